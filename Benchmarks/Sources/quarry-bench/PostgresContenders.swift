// The two contenders of the PostgreSQL mode (PostgresMode.swift):
//
// - `raw-postgresnio`: PostgresNIO by hand, async/await on one
//   PostgresConnection: PostgresQuery with bound values, rows decoded with
//   `row.decode(...)` into a plain struct. The same transactions as Quarry's
//   (BEGIN … COMMIT for writes, a REPEATABLE READ, READ ONLY transaction for reads).
// - `quarry-postgres`: the same Codable record as the SQLite mode's
//   `quarry-codable` (QItem), through a PostgresDatabasePool and its
//   synchronous `read`/`write`, with the key-path query interface. No hand-written SQL.

import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres

extension RawItem {
    /// The columns read by the raw PostgresNIO contender, in the order of `SELECT *`.
    static let postgresColumns = "id, i1, i2, i3, d1, d2, s1, s2, s3, b1, category_id"

    /// Reads a row of `SELECT \(postgresColumns)`.
    init(_ row: PostgresRow) throws {
        let (id, i1, i2, i3, d1, d2, s1, s2, s3, b1, categoryID) = try row.decode(
            (Int64, Int, Int, Int, Double, Double, String, String, String, Bool, Int64).self)
        self.id = id
        self.i1 = i1; self.i2 = i2; self.i3 = i3
        self.d1 = d1; self.d2 = d2
        self.s1 = s1; self.s2 = s2; self.s3 = s3
        self.b1 = b1
        self.categoryID = categoryID
    }
}

struct RawPostgresContender: PostgresContender {
    static let contenderName = "raw-postgresnio"
    var name: String { Self.contenderName }

    /// What Quarry's PostgresDatabasePool sends for `read` (PostgreSQLDialect).
    static let beginRead: PostgresQuery = "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"

    func prepare(_ workload: Workload, server: PostgresConfiguration, schema: String, sizes: Sizes) throws
        -> PostgresPreparedRun
    {
        // The same server settings as Quarry's connections (UTF8, UTC), and
        // the same no-op logger.
        let nioConfiguration = try server.postgresNIOConfiguration()
        let logger = PostgresSession.silentLogger
        let connection = try blocking {
            let connection = try await PostgresConnection.connect(configuration: nioConfiguration, id: 1, logger: logger)
            try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
            return connection
        }
        let operation: @Sendable () async throws -> Int64
        switch workload {
        case .insert:
            let count = sizes.insert
            operation = {
                try await connection.query("BEGIN", logger: logger)
                var checksum: Int64 = 0
                for k in 1...count {
                    let rows = try await connection.query(
                        """
                        INSERT INTO item (i1, i2, i3, d1, d2, s1, s2, s3, b1, category_id) \
                        VALUES (\(ItemData.i1(k)), \(ItemData.i2(k)), \(ItemData.i3(k)), \(ItemData.d1(k)), \
                        \(ItemData.d2(k)), \(ItemData.s1(k)), \(ItemData.s2(k)), \(ItemData.s3(k)), \(ItemData.b1(k)), \
                        \(ItemData.categoryID(k))) RETURNING id
                        """, logger: logger)
                    for try await row in rows { checksum &+= try row.decode(Int64.self) }
                }
                try await connection.query("COMMIT", logger: logger)
                return checksum
            }
        case .fetchAll:
            operation = {
                try await connection.query(Self.beginRead, logger: logger)
                var items: [RawItem] = []
                let rows = try await connection.query("SELECT \(unescaped: RawItem.postgresColumns) FROM item", logger: logger)
                for try await row in rows { items.append(try RawItem(row)) }
                try await connection.query("COMMIT", logger: logger)
                return items.reduce(0) { $0 &+ $1.checksum }
            }
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            operation = {
                try await connection.query(Self.beginRead, logger: logger)
                var items: [RawItem] = []
                for key in keys {
                    let rows = try await connection.query(
                        "SELECT \(unescaped: RawItem.postgresColumns) FROM item WHERE id = \(key)", logger: logger)
                    for try await row in rows { items.append(try RawItem(row)) }
                }
                try await connection.query("COMMIT", logger: logger)
                return items.reduce(0) { $0 &+ $1.checksum }
            }
        case .filterOrderLimit:
            operation = {
                try await connection.query(Self.beginRead, logger: logger)
                var total: Int64 = 0
                for query in 0..<sizes.filterQueries {
                    let x = (query &* sizes.filterStep) % 990
                    var items: [RawItem] = []
                    let rows = try await connection.query(
                        "SELECT \(unescaped: RawItem.postgresColumns) FROM item WHERE i1 > \(x) ORDER BY d1 LIMIT 100",
                        logger: logger)
                    for try await row in rows { items.append(try RawItem(row)) }
                    total &+= items.reduce(0) { $0 &+ $1.checksum }
                }
                try await connection.query("COMMIT", logger: logger)
                return total
            }
        case .update:
            let count = sizes.update
            operation = {
                try await connection.query("BEGIN", logger: logger)
                for k in 1...count {
                    try await connection.query(
                        """
                        UPDATE item SET i1 = \(ItemData.i1(k)), i2 = \(ItemData.i2(k)), i3 = \(ItemData.i3(k) + 1), \
                        d1 = \(ItemData.d1(k)), d2 = \(ItemData.d2(k)), s1 = \(ItemData.s1(k)), s2 = \(ItemData.s2(k)), \
                        s3 = \(ItemData.s3(k)), b1 = \(ItemData.b1(k)), category_id = \(ItemData.categoryID(k)) \
                        WHERE id = \(Int64(k))
                        """, logger: logger)
                }
                try await connection.query("COMMIT", logger: logger)
                return Int64(count)
            }
        default:
            throw BenchError("--postgres: no workload \(workload.title)")
        }
        return PostgresPreparedRun(
            run: {
                // Timed inside the task: the hop from the benchmark's thread
                // to Swift's concurrency pool and back is not counted.
                try blocking { try await timed { try await operation() } }
            },
            close: { try? blocking { try await connection.close() } })
    }
}

struct QuarryPostgresContender: PostgresContender {
    var name: String { "quarry-postgres" }

    func prepare(_ workload: Workload, server: PostgresConfiguration, schema: String, sizes: Sizes) throws
        -> PostgresPreparedRun
    {
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
        let pool = try PostgresDatabasePool(server, configuration: configuration)
        let run: () throws -> Int64
        switch workload {
        case .insert:
            run = { try pool.write { db in try QItemWork.insertEach(db, count: sizes.insert) } }
        case .fetchAll:
            run = { try pool.read { db in try QItem.fetchAll(db).reduce(0) { $0 &+ $1.checksum } } }
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            run = { try pool.read { db in try QItemWork.fetchByKey(db, keys) } }
        case .filterOrderLimit:
            run = { try pool.read { db in try QItemWork.filterOrderLimit(db, sizes) } }
        case .update:
            run = { try pool.write { db in try QItemWork.updateAll(db, count: sizes.update) } }
        default:
            throw BenchError("--postgres: no workload \(workload.title)")
        }
        return PostgresPreparedRun(
            run: {
                let (checksum, nanoseconds) = try timed { try run() }
                return (checksum, nanoseconds)
            },
            close: { pool.close() })
    }
}
