// The named prepared statements of a PostgreSQL connection
// (PostgresStatementCache.swift, PostgresServerConnection.query): which
// statements are prepared, the bound and its deallocations, and each way a
// statement heals: a failed preparation, a schema change by this connection
// (committed or rolled back), by another connection (0A000), and statements
// the server dropped behind the cache's back (26000).
//
// What is prepared is read from the server's own view,
// `pg_prepared_statements`, through a statement that is never prepared
// itself (it starts with `WITH`, so the driver sends it unnamed).

import Foundation
import Quarry
@testable import QuarryPostgres
import Testing

extension PostgresTestServer {
    static let statementCacheSuiteEnabled = isConfigured(for: "PostgresStatementCacheTests")
}

/// The SQL of this connection's prepared statements, by name.
private func preparedStatements(_ db: Database) throws -> [String: String] {
    let rows = try Row.fetchAll(
        db, sql: "WITH s AS (SELECT name, statement FROM pg_prepared_statements) SELECT name, statement FROM s")
    var statements: [String: String] = [:]
    for row in rows {
        let name: String = try row["name"]
        statements[name] = try row["statement"]
    }
    return statements
}

private struct CachedPlayer: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
}

@Suite struct PostgresStatementCacheUnitTests {
    private func key(_ sql: String, _ arguments: [DatabaseValue] = []) -> PostgresStatementCache.Key {
        PostgresStatementCache.Key(sql: sql, arguments: arguments)
    }

    @Test func aFullCacheEvictsTheLeastRecentlyUsedStatementForDeallocation() {
        var cache = PostgresStatementCache(capacity: 2)
        let a = cache.name(for: key("SELECT 1"))
        let b = cache.name(for: key("SELECT 2"))
        #expect(a.isNew && b.isNew && a.name != b.name)
        // A hit keeps its name and counts as a use.
        #expect(cache.name(for: key("SELECT 1")) == (a.name, false, false))
        let c = cache.name(for: key("SELECT 3"))
        #expect(c.isNew && c.name != a.name && c.name != b.name)
        #expect(cache.count == 2)
        #expect(cache.takeDeallocations() == [b.name])
        #expect(cache.takeDeallocations() == [])
        // The evicted statement comes back under a new name.
        let b2 = cache.name(for: key("SELECT 2"))
        #expect(b2.isNew && b2.name != b.name)
        #expect(cache.takeDeallocations() == [a.name])
        #expect(cache.retiredCount == 2)
    }

    @Test func blobParametersMakeAnotherStatement() {
        var cache = PostgresStatementCache(capacity: 8)
        let text = cache.name(for: key("SELECT $1", [.text("a")]))
        let blob = cache.name(for: key("SELECT $1", [.blob(Data([1]))]))
        #expect(text.name != blob.name && blob.isNew)
        #expect(cache.name(for: key("SELECT $1", [.integer(2)])).name == text.name)
        #expect(cache.name(for: key("SELECT $1", [.blob(Data([2, 3]))])).name == blob.name)
    }

    @Test func removedStatementsAreDeallocatedOnlyWhenTheServerMayStillHaveThem() {
        var cache = PostgresStatementCache(capacity: 8)
        let gone = cache.name(for: key("SELECT 1")).name
        let stale = cache.name(for: key("SELECT 2")).name
        let kept = cache.name(for: key("SELECT 3")).name
        cache.remove(key("SELECT 1"), deallocate: false)
        cache.remove(key("SELECT 2"), deallocate: true)
        #expect(cache.takeDeallocations() == [stale])
        cache.removeAll(deallocate: true)
        #expect(cache.takeDeallocations() == [kept])
        #expect(cache.count == 0)
        #expect(!gone.isEmpty)
    }

    @Test func aConnectionThatRetiredTooManyNamesMustBeReplaced() {
        var cache = PostgresStatementCache(capacity: 1)
        for index in 0...1_024 {
            #expect(!cache.mustRetire)
            _ = cache.name(for: key("SELECT \(index)"))
        }
        // 1,025 statements in a cache of one: 1,024 names retired.
        #expect(cache.retiredCount == 1_024)
        #expect(!cache.mustRetire)
        _ = cache.name(for: key("SELECT -1"))
        #expect(cache.mustRetire)
    }
}

@Suite(.enabled(if: PostgresTestServer.statementCacheSuiteEnabled, "QUARRY_POSTGRES_URL is not set"))
struct PostgresStatementCacheTests {
    private func withPool<T>(capacity: Int? = nil, _ body: (PostgresDatabasePool) async throws -> T) async throws -> T {
        var server = try PostgresTestServer.configuration
        if let capacity { server.statementCacheCapacity = capacity }
        return try await PostgresTestServer.withPool(maximumConnectionCount: 1, server: server, body)
    }

    /// A table `player (id)` with one row, 1.
    private func createPlayer(in pool: PostgresDatabasePool) async throws {
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY)")
            try db.execute(sql: "INSERT INTO player VALUES (1)")
        }
    }

    /// Another pool on the schema of `pool`, with connections of its own.
    private func otherPool(sharingSchemaOf pool: PostgresDatabasePool, maximumConnectionCount: Int = 1) async throws -> PostgresDatabasePool {
        let schema = try #require(try await pool.read { db in try String.fetchOne(db, sql: "SELECT current_schema()") })
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
        return try PostgresDatabasePool(
            try PostgresTestServer.configuration, maximumConnectionCount: maximumConnectionCount, configuration: configuration)
    }

    @Test func fetchesArePreparedOnceAndWritesAreNot() async throws {
        try await withPool { pool in
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur'), (2, 'Barbara')")
            }
            for _ in 0..<3 {
                let names = try await pool.read { db in
                    try String.fetchAll(db, sql: "SELECT name FROM player WHERE id >= ? ORDER BY id", arguments: [1])
                }
                #expect(names == ["Arthur", "Barbara"])
            }
            let changes = try await pool.write { db in
                try db.execute(sql: "UPDATE player SET name = upper(name)")
                return db.changesCount
            }
            #expect(changes == 2)
            let statements = try await pool.read { db in try preparedStatements(db) }
            let fetches = statements.filter { $0.value == "SELECT name FROM player WHERE id >= $1 ORDER BY id" }
            #expect(fetches.count == 1, "\(statements)")
            #expect(fetches.keys.allSatisfy { $0.hasPrefix("quarry_") })
            #expect(!statements.values.contains { $0.contains("INSERT") || $0.contains("UPDATE") }, "\(statements)")
        }
    }

    @Test func recordWritesKeepTheServersRowCounts() async throws {
        try await withPool { pool in
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur'), (2, 'Barbara'), (3, 'Craig')")
            }
            let (deleted, remaining) = try await pool.write { db in
                let deleted = try CachedPlayer.filter(\.id >= 2).deleteAll(db)
                return (deleted, try CachedPlayer.fetchAll(db))
            }
            #expect(deleted == 2)
            #expect(remaining == [CachedPlayer(id: 1, name: "Arthur")])
            // An update of a missing row finds no row: the server's count, 0.
            await #expect(throws: RecordError.self) {
                try await pool.write { db in try CachedPlayer(id: 9, name: "Nobody").update(db) }
            }
            try await pool.write { db in try CachedPlayer(id: 1, name: "Arthur II").update(db) }
            #expect(try await pool.read { db in try CachedPlayer.fetchOne(db, key: 1)?.name } == "Arthur II")
        }
    }

    @Test func aQueryThatReturnedManyRowsRunsUnnamedUntilItReturnsFewAgain() async throws {
        try await withPool { pool in
            let sql = "SELECT generate_series(1, ?::int)"
            /// How many times the server ran the prepared statement of `sql`.
            func preparedRuns() async throws -> Int? {
                try await pool.read { db in
                    try Int.fetchOne(
                        db,
                        sql: "WITH s AS (SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements) "
                            + "SELECT runs FROM s WHERE statement = ?",
                        arguments: ["SELECT generate_series(1, $1::int)"])
                }
            }
            func run(_ count: Int) async throws {
                let values = try await pool.read { db in try Int.fetchAll(db, sql: sql, arguments: [count]) }
                #expect(values == Array(1...count))
            }
            // The first run is prepared; it returned more than 64 rows, so the next ones run unnamed.
            for count in [100, 100, 10] { try await run(count) }
            #expect(try await preparedRuns() == 1)
            // The unnamed run returned few rows: the next ones are prepared again.
            for count in [10, 64] { try await run(count) }
            #expect(try await preparedRuns() == 3)
        }
    }

    @Test func whatAnAccessCostsInRoundTrips() async throws {
        try await withPool { pool in
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur')")
            }
            /// The round trips of one access, on the pool's one connection.
            func roundTrips(_ access: (PostgresDatabasePool, @escaping @Sendable (Database) throws -> Void) async throws -> Void,
                            _ body: @escaping @Sendable (Database) throws -> Void) async throws -> Int {
                let counter = try await pool.read { db in try #require(db.serverDriver as? PostgresServerConnection).roundTrips }
                let before = counter.value
                try await access(pool, body)
                return counter.value - before
            }
            let read: (PostgresDatabasePool, @escaping @Sendable (Database) throws -> Void) async throws -> Void = {
                try await $0.read($1)
            }
            let write: (PostgresDatabasePool, @escaping @Sendable (Database) throws -> Void) async throws -> Void = {
                try await $0.write($1)
            }
            let fetch: @Sendable (Database) throws -> Void = { db in _ = try String.fetchOne(db, sql: "SELECT name FROM player WHERE id = ?", arguments: [1]) }
            // BEGIN, the preparation, the query, COMMIT.
            #expect(try await roundTrips(read, fetch) == 4)
            // BEGIN, the query, COMMIT.
            #expect(try await roundTrips(read, fetch) == 3)
            // BEGIN, the insert, COMMIT.
            #expect(try await roundTrips(write) { db in try db.execute(sql: "INSERT INTO player VALUES (2, 'Barbara')") } == 3)
            #expect(try await roundTrips(write) { db in
                try db.execute(sql: "UPDATE player SET name = 'B' WHERE id = 2")
                _ = try String.fetchOne(db, sql: "SELECT name FROM player WHERE id = ?", arguments: [2])
            } == 4)
        }
    }

    @Test func aCacheOfZeroPreparesNothing() async throws {
        try await withPool(capacity: 0) { pool in
            let value = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 40 + ?", arguments: [2]) }
            #expect(value == 42)
            #expect(try await pool.read { db in try preparedStatements(db) }.isEmpty)
        }
    }

    @Test func theCacheStaysWithinItsCapacityAndDeallocatesWhatItEvicts() async throws {
        try await withPool(capacity: 2) { pool in
            let values = try await pool.read { db in
                try (1...5).map { number in try Int.fetchOne(db, sql: "SELECT \(number)") }
            }
            #expect(values == [1, 2, 3, 4, 5])
            // The evicted statements were deallocated when the access ended.
            let statements = try await pool.read { db in try preparedStatements(db) }
            #expect(Set(statements.values) == ["SELECT 4", "SELECT 5"], "\(statements)")
        }
    }

    @Test func aConnectionThatEvictedTooManyStatementsIsReplaced() async throws {
        try await withPool(capacity: 1) { pool in
            let pid: @Sendable (Database) throws -> Int64? = { db in
                try Int64.fetchOne(db, sql: "WITH p AS (SELECT pg_backend_pid() AS pid) SELECT pid FROM p")
            }
            let first = try await pool.read(pid)
            // 1,026 statements through a cache of one: 1,025 names retired,
            // past PostgresStatementCache's bound of 1,024.
            try await pool.read { db in
                for number in 0...1_025 { _ = try Int.fetchOne(db, sql: "SELECT \(number)") }
            }
            let second = try await pool.read(pid)
            #expect(first != nil && second != nil && first != second)
        }
    }

    @Test func aFailedPreparationIsNotKept() async throws {
        try await withPool { pool in
            // The table comes from another connection, so that no schema
            // change of this one drops the failed statement.
            let other = try await otherPool(sharingSchemaOf: pool)
            defer { other.close() }
            let sql = "SELECT id FROM player"
            await #expect {
                try await pool.read { db in try Int.fetchAll(db, sql: sql) }
            } throws: { error in
                (error as? DatabaseError)?.sqlState == "42P01"
            }
            try await other.write { db in
                try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY)")
                try db.execute(sql: "INSERT INTO player VALUES (10)")
            }
            #expect(try await pool.read { db in try Int.fetchAll(db, sql: sql) } == [10])
        }
    }

    @Test func aSchemaChangeOfTheConnectionItselfDropsItsStatements() async throws {
        try await withPool { pool in
            try await createPlayer(in: pool)
            let sql = "SELECT * FROM player"
            #expect(try await pool.read { db in try Row.fetchOne(db, sql: sql)?.count } == 1)
            // Committed.
            try await pool.write { db in try db.execute(sql: "ALTER TABLE player ADD COLUMN name TEXT") }
            #expect(try await pool.read { db in try Row.fetchOne(db, sql: sql)?.count } == 2)
            // Rolled back, after a fetch prepared against the changed table.
            let insideCount = try await pool.write { db in
                var count: Int?
                try db.inSavepoint {
                    try db.execute(sql: "ALTER TABLE player ADD COLUMN score BIGINT")
                    count = try Row.fetchOne(db, sql: sql)?.count
                    return .rollback
                }
                return count
            }
            #expect(insideCount == 3)
            #expect(try await pool.read { db in try Row.fetchOne(db, sql: sql)?.count } == 2)
        }
    }

    @Test func anotherConnectionsSchemaChangeFailsOneFetchThenHeals() async throws {
        try await withPool { pool in
            try await createPlayer(in: pool)
            let other = try await otherPool(sharingSchemaOf: pool)
            defer { other.close() }
            let sql = "SELECT * FROM player"
            #expect(try await pool.read { db in try Row.fetchOne(db, sql: sql)?.count } == 1)
            try await other.write { db in try db.execute(sql: "ALTER TABLE player ADD COLUMN name TEXT") }
            await #expect {
                try await pool.read { db in try Row.fetchOne(db, sql: sql) }
            } throws: { error in
                guard let error = error as? DatabaseError else { return false }
                return error.sqlState == "0A000" && error.message.contains("cached plan must not change result type")
                    && error.message.contains("running the access again prepares the statement anew")
            }
            #expect(try await pool.read { db in try Row.fetchOne(db, sql: sql)?.count } == 2)
        }
    }

    @Test func readersFailAtMostOncePerConnectionWhileAnotherConnectionAltersTheTable() async throws {
        try await withPool { pool in
            try await createPlayer(in: pool)
            let readers = try await otherPool(sharingSchemaOf: pool, maximumConnectionCount: 3)
            defer { readers.close() }
            // Each reader task reads in a loop; the pool's connections are
            // shared, so failures are counted by backend process.
            let failures = try await withThrowingTaskGroup(of: [Int64: Int].self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        var failures: [Int64: Int] = [:]
                        for _ in 0..<60 {
                            do {
                                _ = try await readers.read { db in try Row.fetchAll(db, sql: "SELECT * FROM player") }
                            } catch let error as DatabaseError where error.sqlState == "0A000" {
                                let pid = try await readers.read { db in try Int64.fetchOne(db, sql: "SELECT pg_backend_pid()") }
                                failures[pid ?? -1, default: 0] += 1
                            }
                        }
                        return failures
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(20))
                    try await pool.write { db in try db.execute(sql: "ALTER TABLE player ADD COLUMN name TEXT") }
                    return [:]
                }
                var all: [[Int64: Int]] = []
                for try await failures in group { all.append(failures) }
                return all
            }
            let total = failures.reduce(0) { $0 + $1.values.reduce(0, +) }
            #expect(total <= 3, "\(failures)")
            // After the change, every connection reads the new shape.
            #expect(try await readers.read { db in try Row.fetchOne(db, sql: "SELECT * FROM player")?.count } == 2)
        }
    }

    @Test func statementsTheServerDroppedHeal() async throws {
        try await withPool { pool in
            let sql = "SELECT 1 + ?"
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: sql, arguments: [1]) } == 2)
            // DISCARD ALL, seen by its command tag: the cache forgets its statements.
            try await pool.writeWithoutTransaction { db in try db.execute(sql: "DISCARD ALL") }
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: sql, arguments: [2]) } == 3)
            // Dropped unseen (inside a DO block): one fetch fails with 26000, the next prepares again.
            try await pool.write { db in try db.execute(sql: "DO $$ BEGIN EXECUTE 'DEALLOCATE ALL'; END $$") }
            await #expect {
                try await pool.read { db in try Int.fetchOne(db, sql: sql, arguments: [3]) }
            } throws: { error in
                guard let error = error as? DatabaseError else { return false }
                return error.sqlState == "26000" && error.message.contains("dropped from the connection's statement cache")
            }
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: sql, arguments: [4]) } == 5)
        }
    }

    @Test func blobArgumentsArePreparedAsBytea() async throws {
        try await withPool { pool in
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE file (id BIGINT PRIMARY KEY, content BYTEA)")
                try db.execute(sql: "INSERT INTO file VALUES (1, ?), (2, ?)", arguments: [Data([1, 2]), Data([3])])
            }
            for (content, id) in [(Data([1, 2]), 1), (Data([3]), 2)] {
                let found = try await pool.read { db in
                    try Int.fetchOne(db, sql: "SELECT id FROM file WHERE content = ?", arguments: [content])
                }
                #expect(found == id)
            }
            // The same SQL with a text argument is another statement.
            let length = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT length(?)", arguments: ["abc"]) }
            let bytes = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT length(?)", arguments: [Data([0, 1])]) }
            #expect(length == 3)
            #expect(bytes == 2)
        }
    }
}
