// The workloads, their sizes, the test data, and the interface every contender implements.

import CSQLiteBench
import Foundation

/// Rows per multi-row INSERT in workload 9, for raw: the number Quarry's
/// insertAll uses for this table (1,000, below SQLite's 32,766 variables / 10 columns).
let bulkRowsPerStatement = 1000

/// How many rows or operations each workload uses.
struct Sizes: Sendable {
    var insert: Int
    var fetchAll: Int
    /// The rows in the table that workloads 3 and 4 query.
    var keyedRows: Int
    var byKey: Int
    var filterQueries: Int
    var update: Int
    var delete: Int
    var eager: Int
    var cursor: Int
    /// `--cache-size`: SQLite's page cache per connection, in KiB, for every
    /// contender (nil: SQLite's default, `PRAGMA cache_size = -2000`, 2,000 KiB).
    var cacheSizeKiB: Int? = nil

    /// What every contender runs on each connection it opens.
    var connectionPragmas: String { pragmas(cacheSizeKiB: cacheSizeKiB) }

    /// Query `q` of workload 4 filters on `i1 > (q * filterStep) % 990`: with
    /// 1,000 queries, 0, 1, 2…; with fewer, spread over the same range, so
    /// that each query still selects about half of the table on average.
    var filterStep: Int { max(1, 1_000 / max(1, filterQueries)) }

    /// The sizes the issue asks for.
    static let full = Sizes(
        insert: 100_000, fetchAll: 100_000, keyedRows: 100_000, byKey: 10_000, filterQueries: 1_000, update: 10_000,
        delete: 10_000, eager: 10_000, cursor: 1_000_000)
    /// Tiny sizes for CI: checks that every contender does the same work, times nothing meaningful.
    static let smoke = Sizes(
        insert: 1_000, fetchAll: 1_000, keyedRows: 1_000, byKey: 200, filterQueries: 20, update: 200, delete: 200,
        eager: 300, cursor: 5_000)

    /// The sizes of one point of the cost curves (`--curve`): every workload
    /// at `rows` rows. Workload 3 runs `rows / 10` queries (as the full run:
    /// 10,000 of 100,000); workload 4, whose every query scans and sorts
    /// about half of the table, runs at most 1,000 queries and at most
    /// 10,000,000 / `rows` (1,000 up to 10k rows, 100 at 100k, 10 at 1M).
    static func curve(rows: Int) -> Sizes {
        Sizes(
            insert: rows, fetchAll: rows, keyedRows: rows, byKey: max(1, rows / 10),
            filterQueries: max(1, min(1_000, 10_000_000 / rows)), update: rows, delete: rows, eager: rows, cursor: rows)
    }

    /// The rows a workload handles, to report a cost per row: rows inserted,
    /// fetched, updated or deleted, queries by key, and for workload 4, rows
    /// of the table times queries (each query scans the table).
    func operations(_ workload: Workload) -> Int {
        switch workload {
        case .insert, .insertAll: return insert
        case .fetchAll: return fetchAll
        case .fetchByKey: return byKey
        case .filterOrderLimit: return filterQueries * keyedRows
        case .update: return update
        case .delete: return (delete + 1) / 2
        case .eagerLoad: return eager
        case .cursor: return cursor
        }
    }
}

enum Workload: Int, CaseIterable, Sendable {
    case insert = 1, fetchAll, fetchByKey, filterOrderLimit, update, delete, eagerLoad, cursor, insertAll

    var title: String {
        switch self {
        case .insert: return "1 insert"
        case .fetchAll: return "2 fetch all"
        case .fetchByKey: return "3 fetch by primary key"
        case .filterOrderLimit: return "4 filter+order+limit"
        case .update: return "5 update by primary key"
        case .delete: return "6 delete by primary key"
        case .eagerLoad: return "7 eager-loaded parent"
        case .cursor: return "8 cursor"
        case .insertAll: return "9 bulk insert"
        }
    }

    /// How many rows the database holds before the workload runs.
    func seedCount(_ sizes: Sizes) -> Int {
        switch self {
        case .insert, .insertAll: return 0
        case .fetchAll: return sizes.fetchAll
        case .fetchByKey, .filterOrderLimit: return sizes.keyedRows
        case .update: return sizes.update
        case .delete: return sizes.delete
        case .eagerLoad: return sizes.eager
        case .cursor: return sizes.cursor
        }
    }
}

/// The statements every contender runs on each connection it opens.
func pragmas(cacheSizeKiB: Int?) -> String {
    "PRAGMA synchronous = NORMAL" + (cacheSizeKiB.map { "; PRAGMA cache_size = -\($0)" } ?? "")
}

/// The values of item row `k` (1-based), the same for every contender.
enum ItemData {
    static let categoryCount = 100
    static func i1(_ k: Int) -> Int { (k &* 7919) % 1000 }
    static func i2(_ k: Int) -> Int { k }
    static func i3(_ k: Int) -> Int { k % 97 }
    static func d1(_ k: Int) -> Double { Double((k &* 104_729) % 100_000) / 7 }
    static func d2(_ k: Int) -> Double { Double(k) / 3 }
    static func s1(_ k: Int) -> String { "first-\(k)-value" }
    static func s2(_ k: Int) -> String { "second value \(k % 1000)" }
    static func s3(_ k: Int) -> String { "third-\(k % 37)-text" }
    static func b1(_ k: Int) -> Bool { k % 3 == 0 }
    static func categoryID(_ k: Int) -> Int64 { Int64(k % categoryCount + 1) }
    /// The primary keys fetched one at a time by workload 3, and updated or deleted by 5 and 6.
    static func keys(count: Int, rows: Int) -> [Int64] { (0..<count).map { Int64(($0 &* 7_919) % rows + 1) } }
}

/// A contender: prepares a workload on a database file (outside the timed
/// region) and returns the timed operation, which returns a checksum.
protocol Contender: Sendable {
    var name: String { get }
    func prepare(_ workload: Workload, path: String, sizes: Sizes) throws -> PreparedRun
    /// Opens what workload 10 (concurrent reads) needs for `plan.readers`
    /// readers, outside the timed region (ConcurrentReads.swift).
    func prepareConcurrentReads(path: String, plan: ReadPlan) throws -> ConcurrentReads
}

/// A prepared, timed operation, and the clean-up that closes its connections.
struct PreparedRun {
    let run: () throws -> Int64
    let close: () -> Void
}

/// Creates the schema and the rows of a workload, with the C API, so that
/// every contender starts from the same file.
enum Seeder {
    static let schema = """
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE category (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE item (
            id INTEGER PRIMARY KEY,
            i1 INTEGER NOT NULL, i2 INTEGER NOT NULL, i3 INTEGER NOT NULL,
            d1 REAL NOT NULL, d2 REAL NOT NULL,
            s1 TEXT NOT NULL, s2 TEXT NOT NULL, s3 TEXT NOT NULL,
            b1 BOOLEAN NOT NULL,
            category_id INTEGER NOT NULL REFERENCES category(id));
        CREATE INDEX item_i1 ON item(i1);
        """

    static func create(path: String, rows: Int) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        try exec(db, schema)
        try exec(db, "BEGIN")
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO category (id, name) VALUES (?, ?)", -1, &statement, nil)
        for k in 1...ItemData.categoryCount {
            sqlite3_bind_int64(statement, 1, Int64(k))
            bindText(statement, 2, "category \(k)")
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("seed category failed") }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        if rows > 0 {
            sqlite3_prepare_v2(db, RawItemSQL.insert, -1, &statement, nil)
            for k in 1...rows {
                RawItemSQL.bind(statement, k)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError("seed item failed") }
                sqlite3_reset(statement)
            }
            sqlite3_finalize(statement)
        }
        try exec(db, "COMMIT")
    }

    /// A summary of the item table, to check that contenders did the same writes.
    static func summary(path: String) throws -> String {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT count(*), total(i1), total(i2), total(i3), total(d1), total(length(s1)) FROM item", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("summary failed") }
        return (0..<6).map { String(sqlite3_column_double(statement, $0)) }.joined(separator: "/")
    }

    static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("SQL failed: \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}

/// The SQL and bindings of the raw contender (also used for seeding).
enum RawItemSQL {
    static let insert = "INSERT INTO item (i1, i2, i3, d1, d2, s1, s2, s3, b1, category_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    /// The same INSERT with `rows` rows in its VALUES clause (workload 9).
    static func insert(rows: Int) -> String {
        let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        return "INSERT INTO item (i1, i2, i3, d1, d2, s1, s2, s3, b1, category_id) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Binds the values of row `k` to parameters `offset + 1` to `offset + 10`.
    static func bind(_ statement: OpaquePointer?, _ k: Int, offset: Int32 = 0) {
        sqlite3_bind_int64(statement, offset + 1, Int64(ItemData.i1(k)))
        sqlite3_bind_int64(statement, offset + 2, Int64(ItemData.i2(k)))
        sqlite3_bind_int64(statement, offset + 3, Int64(ItemData.i3(k)))
        sqlite3_bind_double(statement, offset + 4, ItemData.d1(k))
        sqlite3_bind_double(statement, offset + 5, ItemData.d2(k))
        bindText(statement, offset + 6, ItemData.s1(k))
        bindText(statement, offset + 7, ItemData.s2(k))
        bindText(statement, offset + 8, ItemData.s3(k))
        sqlite3_bind_int64(statement, offset + 9, ItemData.b1(k) ? 1 : 0)
        sqlite3_bind_int64(statement, offset + 10, ItemData.categoryID(k))
    }
}

let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

func bindText(_ statement: OpaquePointer?, _ index: Int32, _ text: String) {
    sqlite3_bind_text(statement, index, text, -1, transientDestructor)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
