// The `raw` contender: hand-written SQLite C API code, statements prepared
// once per workload — the physical limit the others are measured against.

import CSQLiteBench
import Foundation

/// The record of the raw contender: a plain struct filled by hand.
struct RawItem {
    var id: Int64
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double
    var s1: String, s2: String, s3: String
    var b1: Bool
    var categoryID: Int64

    /// Reads the current row of `SELECT *` from item.
    init(_ statement: OpaquePointer?) {
        id = sqlite3_column_int64(statement, 0)
        i1 = Int(sqlite3_column_int64(statement, 1))
        i2 = Int(sqlite3_column_int64(statement, 2))
        i3 = Int(sqlite3_column_int64(statement, 3))
        d1 = sqlite3_column_double(statement, 4)
        d2 = sqlite3_column_double(statement, 5)
        s1 = columnText(statement, 6)
        s2 = columnText(statement, 7)
        s3 = columnText(statement, 8)
        b1 = sqlite3_column_int64(statement, 9) != 0
        categoryID = sqlite3_column_int64(statement, 10)
    }
}

struct RawCategory {
    var id: Int64
    var name: String
}

func columnText(_ statement: OpaquePointer?, _ index: Int32) -> String {
    guard let text = sqlite3_column_text(statement, index) else { return "" }
    return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
}

struct RawContender: Contender {
    let name = "raw"

    func prepare(_ workload: Workload, path: String, sizes: Sizes) throws -> PreparedRun {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let db = handle else { throw BenchError("cannot open \(path)") }
        try Seeder.exec(db, sizes.connectionPragmas)
        var statements: [OpaquePointer?] = []
        func prepare(_ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            statements.append(statement)
            return statement
        }
        let close = {
            for statement in statements { sqlite3_finalize(statement) }
            sqlite3_close(db)
        }
        let run: () throws -> Int64
        switch workload {
        case .insert:
            let insert = prepare(RawItemSQL.insert)
            run = {
                try Seeder.exec(db, "BEGIN")
                var checksum: Int64 = 0
                for k in 1...sizes.insert {
                    RawItemSQL.bind(insert, k)
                    guard sqlite3_step(insert) == SQLITE_DONE else { throw BenchError("insert failed") }
                    sqlite3_reset(insert)
                    checksum &+= sqlite3_last_insert_rowid(db)
                }
                try Seeder.exec(db, "COMMIT")
                return checksum
            }
        case .insertAll:
            // A hand-written multi-row insert: statements of 1,000 rows
            // prepared once, ids derived from the last rowid of each.
            let full = prepare(RawItemSQL.insert(rows: bulkRowsPerStatement))
            let remainderCount = sizes.insert % bulkRowsPerStatement
            let remainder = remainderCount > 0 ? prepare(RawItemSQL.insert(rows: remainderCount)) : nil
            run = {
                try Seeder.exec(db, "BEGIN")
                var checksum: Int64 = 0
                var k = 1
                while k <= sizes.insert {
                    let count = min(bulkRowsPerStatement, sizes.insert - k + 1)
                    let statement = count == bulkRowsPerStatement ? full : remainder
                    for row in 0..<count { RawItemSQL.bind(statement, k + row, offset: Int32(row * 10)) }
                    guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("bulk insert failed") }
                    sqlite3_reset(statement)
                    let last = sqlite3_last_insert_rowid(db)
                    for id in (last - Int64(count) + 1)...last { checksum &+= id }
                    k += count
                }
                try Seeder.exec(db, "COMMIT")
                return checksum
            }
        case .fetchAll:
            let select = prepare("SELECT * FROM item")
            run = {
                try Seeder.exec(db, "BEGIN")
                var items: [RawItem] = []
                while sqlite3_step(select) == SQLITE_ROW { items.append(RawItem(select)) }
                sqlite3_reset(select)
                try Seeder.exec(db, "COMMIT")
                return checksum(items)
            }
        case .fetchByKey:
            let select = prepare("SELECT * FROM item WHERE id = ?")
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            run = {
                // One read transaction for all queries, as the other
                // contenders' `read { }` (not one implicit transaction each).
                try Seeder.exec(db, "BEGIN")
                var items: [RawItem] = []
                for key in keys {
                    sqlite3_bind_int64(select, 1, key)
                    if sqlite3_step(select) == SQLITE_ROW { items.append(RawItem(select)) }
                    sqlite3_reset(select)
                }
                try Seeder.exec(db, "COMMIT")
                return checksum(items)
            }
        case .filterOrderLimit:
            let select = prepare("SELECT * FROM item WHERE i1 > ? ORDER BY d1 LIMIT ?")
            run = {
                try Seeder.exec(db, "BEGIN")
                defer { try? Seeder.exec(db, "COMMIT") }
                var total: Int64 = 0
                for query in 0..<sizes.filterQueries {
                    sqlite3_bind_int64(select, 1, Int64((query &* sizes.filterStep) % 990))
                    sqlite3_bind_int64(select, 2, 100)
                    var items: [RawItem] = []
                    while sqlite3_step(select) == SQLITE_ROW { items.append(RawItem(select)) }
                    sqlite3_reset(select)
                    total &+= checksum(items)
                }
                return total
            }
        case .update:
            let update = prepare("UPDATE item SET i1 = ?, i2 = ?, i3 = ?, d1 = ?, d2 = ?, s1 = ?, s2 = ?, s3 = ?, b1 = ?, category_id = ? WHERE id = ?")
            run = {
                try Seeder.exec(db, "BEGIN")
                for k in 1...sizes.update {
                    RawItemSQL.bind(update, k)
                    sqlite3_bind_int64(update, 3, Int64(ItemData.i3(k) + 1))
                    sqlite3_bind_int64(update, 11, Int64(k))
                    guard sqlite3_step(update) == SQLITE_DONE else { throw BenchError("update failed") }
                    sqlite3_reset(update)
                }
                try Seeder.exec(db, "COMMIT")
                return Int64(sizes.update)
            }
        case .delete:
            let delete = prepare("DELETE FROM item WHERE id = ?")
            run = {
                try Seeder.exec(db, "BEGIN")
                for k in stride(from: 1, through: sizes.delete, by: 2) {
                    sqlite3_bind_int64(delete, 1, Int64(k))
                    guard sqlite3_step(delete) == SQLITE_DONE else { throw BenchError("delete failed") }
                    sqlite3_reset(delete)
                }
                try Seeder.exec(db, "COMMIT")
                return Int64(sizes.delete / 2)
            }
        case .eagerLoad:
            // The raw two-query version: all categories, then the items.
            let categories = prepare("SELECT id, name FROM category")
            let items = prepare("SELECT * FROM item")
            run = {
                try Seeder.exec(db, "BEGIN")
                defer { try? Seeder.exec(db, "COMMIT") }
                var byID: [Int64: RawCategory] = [:]
                while sqlite3_step(categories) == SQLITE_ROW {
                    let id = sqlite3_column_int64(categories, 0)
                    byID[id] = RawCategory(id: id, name: columnText(categories, 1))
                }
                sqlite3_reset(categories)
                var total: Int64 = 0
                var pairs: [(RawItem, RawCategory)] = []
                while sqlite3_step(items) == SQLITE_ROW {
                    let item = RawItem(items)
                    guard let category = byID[item.categoryID] else { throw BenchError("missing category") }
                    pairs.append((item, category))
                }
                sqlite3_reset(items)
                for (item, category) in pairs { total &+= Int64(item.i2) &+ category.id &+ Int64(category.name.utf8.count) }
                return total
            }
        case .cursor:
            let select = prepare("SELECT * FROM item")
            run = {
                try Seeder.exec(db, "BEGIN")
                var sum: Int64 = 0
                while sqlite3_step(select) == SQLITE_ROW { sum &+= Int64(RawItem(select).i2) }
                sqlite3_reset(select)
                try Seeder.exec(db, "COMMIT")
                return sum
            }
        }
        return PreparedRun(run: run, close: close)
    }

    private func checksum(_ items: [RawItem]) -> Int64 {
        items.reduce(0) { $0 &+ Int64($1.i2) &+ Int64($1.d1) &+ Int64($1.s1.utf8.count) &+ ($1.b1 ? 1 : 0) &+ $1.categoryID }
    }
}
