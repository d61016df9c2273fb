// DatabaseServerPool (Core/DatabaseServerPool.swift): the DatabaseWriter of a
// database server, tested with stand-in servers that share one SQLite file
// (Support/StandInServer.swift).

import Foundation
@testable import Quarry
import QuarryPostgres
import Testing

@Suite("Database server pool")
struct DatabaseServerPoolTests {
    /// A pool whose connections are stand-ins on one file; `opened` collects them.
    private final class Opened: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [StandInServer] = []
        func append(_ server: StandInServer) { lock.withLock { servers.append(server) } }
        var all: [StandInServer] { lock.withLock { servers } }
    }

    private func makePool(_ directory: TemporaryDirectory, capacity: Int = 3) throws -> (DatabaseServerPool, Opened) {
        let path = directory.path()
        let opened = Opened()
        let pool = try DatabaseServerPool(
            description: "stand-in://pool", maximumConnectionCount: capacity, configuration: Configuration()
        ) {
            let server = StandInServer(path: path, dialect: SQLiteDialect())
            opened.append(server)
            return server
        }
        try pool.write { db in try db.execute(sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)") }
        return (pool, opened)
    }

    @Test func observationIsRefusedOnAServer() async throws {
        let directory = try TemporaryDirectory()
        let (pool, _) = try makePool(directory)
        let failed = AsyncStream<String>.makeStream()
        let cancellable = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? 0 }
            .start(in: pool, onError: { error in failed.continuation.yield("\(error)") }, onChange: { _ in failed.continuation.yield("value") })
        var iterator = failed.stream.makeAsyncIterator()
        let first = await iterator.next()
        cancellable.cancel()
        #expect(first?.contains("ValueObservation is SQLite-only") == true)
    }

    @Test func writesCommitAndReadsSeeThem() throws {
        let directory = try TemporaryDirectory()
        let (pool, opened) = try makePool(directory)
        #expect(pool.path == "stand-in://pool")
        try pool.write { db in
            #expect(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO entry (value) VALUES (?), (?)", arguments: [1, 2])
        }
        let sum = try pool.read { db in try Int.fetchOne(db, sql: "SELECT sum(value) FROM entry") }
        #expect(sum == 3)
        let sent = opened.all.flatMap(\.received).map(\.sql)
        // The dialect spells BEGIN (plain on PostgreSQL; this stand-in speaks SQLite's SQL).
        #expect(sent.contains(SQLiteDialect().beginTransactionSQL(.immediate)))
        #expect(sent.contains(SQLiteDialect().beginReadOnlyTransactionSQL))
        #expect(sent.filter { $0 == "COMMIT TRANSACTION" }.count == 3)
        // The connections are server connections.
        try pool.read { db throws in
            #expect(db.connection is ServerConnection && db.sqliteConnection == nil)
            #expect(throws: DatabaseError.self) { try db.makeStatement(sql: "SELECT 1") }
        }
    }

    @Test func aThrowingWriteRollsBackAndAThrowingReadEnds() throws {
        let directory = try TemporaryDirectory()
        let (pool, _) = try makePool(directory, capacity: 1)
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try pool.write { db in
                try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
                throw Failure()
            }
        }
        #expect(throws: Failure.self) { try pool.read { _ in throw Failure() } }
        // The one connection is usable again, outside of any transaction.
        try pool.writeWithoutTransaction { db throws in
            #expect(!db.isInsideTransaction)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") == 0)
        }
    }

    @Test func asyncAccessesRunConcurrentlyWithinTheCapacity() async throws {
        let directory = try TemporaryDirectory()
        let (pool, opened) = try makePool(directory, capacity: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 1...20 {
                group.addTask {
                    try await pool.write { db in try db.execute(sql: "INSERT INTO entry (value) VALUES (?)", arguments: [value]) }
                }
                group.addTask { _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") } }
            }
            try await group.waitForAll()
        }
        let sum = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT sum(value) FROM entry") }
        #expect(sum == 210)
        #expect((1...3).contains(opened.all.count))
        let afterWrite = try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") }
        #expect(afterWrite == 20)
    }

    @Test func nestedAccessesAndClosedPoolsThrow() throws {
        let directory = try TemporaryDirectory()
        let (pool, _) = try makePool(directory, capacity: 2)
        #expect(throws: DatabaseError.self) {
            try pool.read { _ in try pool.read { _ in } }
        }
        pool.close()
        #expect(throws: DatabaseError.self) { try pool.read { _ in } }
    }

    @Test func prepareDatabaseRunsOnEachNewConnectionAndItsErrorFailsTheOpening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS prepared (x INTEGER)") }
        let pool = try DatabaseServerPool(description: "stand-in://prepared", maximumConnectionCount: 1, configuration: configuration) {
            StandInServer(path: path, dialect: SQLiteDialect())
        }
        #expect(try pool.read { db in try db.tableExists("prepared") })
        var failing = Configuration()
        failing.prepareDatabase = { db in try db.execute(sql: "NOT SQL") }
        #expect(throws: DatabaseError.self) {
            _ = try DatabaseServerPool(description: "stand-in://failing", maximumConnectionCount: 1, configuration: failing) {
                StandInServer(path: path, dialect: SQLiteDialect())
            }
        }
    }

    @Test func aConnectionThatCannotOpenFailsTheInit() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try DatabaseServerPool(description: "stand-in://down", maximumConnectionCount: 1, configuration: Configuration()) {
                throw Refused()
            }
        }
    }
}
