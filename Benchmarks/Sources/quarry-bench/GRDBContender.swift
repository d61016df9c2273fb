// The `grdb-codable` contender: GRDB 7.10 with Codable-derived records and
// its query interface, used the way its documentation shows.

import Foundation
import GRDB

struct GItem: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "item"
    var id: Int64?
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double
    var s1: String, s2: String, s3: String
    var b1: Bool
    var categoryID: Int64

    enum CodingKeys: String, CodingKey {
        case id, i1, i2, i3, d1, d2, s1, s2, s3, b1, categoryID = "category_id"
    }

    static let category = belongsTo(GCategory.self, using: ForeignKey(["category_id"]))

    init(_ k: Int, id: Int64? = nil) {
        self.id = id
        i1 = ItemData.i1(k); i2 = ItemData.i2(k); i3 = ItemData.i3(k)
        d1 = ItemData.d1(k); d2 = ItemData.d2(k)
        s1 = ItemData.s1(k); s2 = ItemData.s2(k); s3 = ItemData.s3(k)
        b1 = ItemData.b1(k); categoryID = ItemData.categoryID(k)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var checksum: Int64 { Int64(i2) &+ Int64(d1) &+ Int64(s1.utf8.count) &+ (b1 ? 1 : 0) &+ categoryID }
}

struct GCategory: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "category"
    var id: Int64
    var name: String
}

struct GItemWithCategory: Decodable, FetchableRecord {
    var item: GItem
    var category: GCategory
}

struct GRDBContender: Contender {
    let name = "grdb-codable"

    func prepare(_ workload: Workload, path: String, sizes: Sizes) throws -> PreparedRun {
        var configuration = GRDB.Configuration()
        let pragmas = sizes.connectionPragmas
        configuration.prepareDatabase { db in try db.execute(sql: pragmas) }
        let pool = try GRDB.DatabasePool(path: path, configuration: configuration)
        let run: () throws -> Int64
        switch workload {
        case .insert, .insertAll:
            // GRDB has no multi-row insert of records: workload 9 runs its
            // fastest record insert, one statement per record.
            run = {
                try pool.write { db in
                    var checksum: Int64 = 0
                    for k in 1...sizes.insert {
                        var item = GItem(k)
                        try item.insert(db)
                        checksum &+= item.id ?? 0
                    }
                    return checksum
                }
            }
        case .fetchAll:
            run = { try pool.read { db in try GItem.fetchAll(db).reduce(0) { $0 &+ $1.checksum } } }
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            run = {
                try pool.read { db in
                    var items: [GItem] = []
                    for key in keys { if let item = try GItem.fetchOne(db, key: key) { items.append(item) } }
                    return items.reduce(0) { $0 &+ $1.checksum }
                }
            }
        case .filterOrderLimit:
            run = {
                try pool.read { db in
                    var total: Int64 = 0
                    for query in 0..<sizes.filterQueries {
                        let x = (query &* sizes.filterStep) % 990
                        let items = try GItem.filter(Column("i1") > x).order(Column("d1")).limit(100).fetchAll(db)
                        total &+= items.reduce(0) { $0 &+ $1.checksum }
                    }
                    return total
                }
            }
        case .update:
            run = {
                try pool.write { db in
                    for k in 1...sizes.update {
                        var item = GItem(k, id: Int64(k))
                        item.i3 += 1
                        try item.update(db)
                    }
                    return Int64(sizes.update)
                }
            }
        case .delete:
            run = {
                try pool.write { db in
                    for k in stride(from: 1, through: sizes.delete, by: 2) {
                        try GItem.deleteOne(db, key: Int64(k))
                    }
                    return Int64(sizes.delete / 2)
                }
            }
        case .eagerLoad:
            run = {
                try pool.read { db in
                    try GItem.including(required: GItem.category).asRequest(of: GItemWithCategory.self).fetchAll(db)
                        .reduce(0) { $0 &+ Int64($1.item.i2) &+ $1.category.id &+ Int64($1.category.name.utf8.count) }
                }
            }
        case .cursor:
            run = {
                try pool.read { db in
                    var sum: Int64 = 0
                    let cursor = try GItem.fetchCursor(db)
                    while let item = try cursor.next() { sum &+= Int64(item.i2) }
                    return sum
                }
            }
        }
        return PreparedRun(run: run, close: { try? pool.close() })
    }
}
