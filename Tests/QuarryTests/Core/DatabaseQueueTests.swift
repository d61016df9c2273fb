// Tests of DatabaseQueue: opening errors, serialization, async access, reentrancy, closing.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseQueueTests {
    @Test func inMemoryDatabasesArePrivate() throws {
        let first = try DatabaseQueue()
        let second = try DatabaseQueue()
        try first.write { db in try db.execute(sql: "CREATE TABLE t (v)") }
        #expect(try first.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") } == 1)
        #expect(try second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") } == 0)
        #expect(first.path == ":memory:")
    }

    @Test func missingDirectoryThrowsWithThePath() throws {
        let error = try #require(throws: DatabaseError.self) {
            try DatabaseQueue(path: "/nonexistent-quarry-dir/db.sqlite")
        }
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message.hasPrefix("could not open database at /nonexistent-quarry-dir/db.sqlite"))
    }

    @Test func fileThatIsNotADatabaseThrows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("text.sqlite")
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: DatabaseError.self) { try DatabaseQueue(path: path) }
        #expect(error.resultCode == .SQLITE_NOTADB)
        #expect(error.message == "could not open database at \(path): file is not a database")
    }

    @Test func readonlyConfigurationRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE t (v)") }
        var configuration = Configuration()
        configuration.readonly = true
        let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error.resultCode == .SQLITE_READONLY)
        #expect(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 0)
        // Read-only and missing: cannot be created.
        #expect(throws: DatabaseError.self) {
            try DatabaseQueue(path: directory.path("missing.sqlite"), configuration: configuration)
        }
    }

    @Test func configurationIsApplied() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase = { db in try db.execute(sql: "PRAGMA user_version = 7") }
        let dbQueue = try DatabaseQueue(path: directory.path(), configuration: configuration)
        try dbQueue.read { db throws in
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 0)
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == 7)
        }
        let defaults = try DatabaseQueue()
        try defaults.read { db throws in #expect(try Int.fetchOne(db, sql: "PRAGMA foreign_keys") == 1) }
    }

    @Test func prepareDatabaseErrorsAreThrownAtOpening() throws {
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: "PRAGMA nonsense(") }
        #expect(throws: DatabaseError.self) { try DatabaseQueue(configuration: configuration) }
    }

    @Test func reentrantAccessThrowsInsteadOfDeadlocking() throws {
        let dbQueue = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { _ in try dbQueue.read { _ in 1 } }
        }
        #expect(error.resultCode == .SQLITE_MISUSE)
        #expect(error.message.contains("reentrant database access"))
        // The queue still works afterwards.
        #expect(try dbQueue.read { _ in 2 } == 2)
    }

    @Test func asyncAccessAndConcurrentWritesAreSerialized() async throws {
        let dbQueue = try DatabaseQueue()
        try await dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (v INTEGER)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 0..<50 {
                group.addTask {
                    try await dbQueue.write { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
                }
            }
            try await group.waitForAll()
        }
        let sum = try await dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT sum(v) FROM t") }
        #expect(sum == (0..<50).reduce(0, +))
        let outside = try await dbQueue.writeWithoutTransaction { db in db.isInsideTransaction }
        #expect(!outside)
    }

    @Test func closedQueueThrows() async throws {
        let dbQueue = try DatabaseQueue()
        dbQueue.close()
        let error = try #require(throws: DatabaseError.self) { try dbQueue.read { _ in 1 } }
        #expect(error.message == "DatabaseQueue at :memory: is closed")
        await #expect(throws: DatabaseError.self) { try await dbQueue.write { _ in 1 } }
    }

    @Test func cancelledTaskWaitingForTheConnectionIsReleased() async throws {
        let dbQueue = try DatabaseQueue()
        let holding = ThreadGate(), release = ThreadGate()
        // Hold the only connection on a thread of its own: a blocking wait
        // in a task, or on the test's own thread, would hold one of the two
        // cooperative threads of a 2-core machine, and stall the whole suite
        // while a long synchronous test holds the other.
        let holder = StartedThread {
            Result { try dbQueue.write { _ in holding.open(); return release.wait() } }
        }
        #expect(await onNewThread { holding.wait() })
        let waiter = Task { try await dbQueue.read { _ in 1 } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        release.open()
        #expect(try await holder.value.get())
        #expect(try await dbQueue.read { _ in 3 } == 3)
    }
}

/// GRDB's `inDatabase` and `inTransaction` (issue 32).
@Suite struct DatabaseQueueGRDBSpellingTests {
    @Test func inDatabaseRunsOutsideOfATransaction() throws {
        let dbQueue = try DatabaseQueue()
        let (wasInside, count) = try dbQueue.inDatabase { db throws in
            try db.execute(sql: "CREATE TABLE t (v)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return (db.isInsideTransaction, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"))
        }
        #expect(!wasInside)
        #expect(count == 1)
        // Errors propagate.
        #expect(throws: DatabaseError.self) { try dbQueue.inDatabase { db throws in try db.execute(sql: "NOT SQL") } }
    }

    @Test func inTransactionCommitsOrRollsBack() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db throws in try db.execute(sql: "CREATE TABLE t (v)") }
        try dbQueue.inTransaction { db throws in
            #expect(db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        try dbQueue.inTransaction(.deferred) { db throws in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .rollback
        }
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try dbQueue.inTransaction { db throws in
                try db.execute(sql: "INSERT INTO t VALUES (3)")
                throw Failure()
            }
        }
        #expect(try dbQueue.read { db throws in try Int.fetchAll(db, sql: "SELECT v FROM t") } == [1])
    }
}
