// DatabaseServerPool (Core/DatabaseServerPool.swift) and ConnectionPool when
// server connections fail: a lost connection is never handed out again, an
// access whose BEGIN met a lost connection runs once more, a lost COMMIT is
// reported as such, and waits for a busy pool are bounded. Stand-in servers
// on one SQLite file lose their connection on the statement a test chooses
// (Support/StandInServer.swift); the same behaviours against a real
// PostgreSQL server are in QuarryPostgresTests/PostgresFaultTests.swift.

import Foundation
@testable import Quarry
import Testing

@Suite("Database server pool faults")
struct DatabaseServerPoolFaultTests {
    /// The stand-ins a pool opened, in order; `losses[i]` is the SQL prefix
    /// at which the i-th connection loses its server (none past the list).
    private final class Connections: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [StandInServer] = []
        private var losses: [String?]
        init(losses: [String?]) { self.losses = losses }
        func open(path: String) -> StandInServer {
            lock.withLock {
                let server = StandInServer(path: path, dialect: SQLiteDialect())
                server.losesConnectionAt = servers.count < losses.count ? losses[servers.count] : nil
                servers.append(server)
                return server
            }
        }
        var count: Int { lock.withLock { servers.count } }
        var all: [StandInServer] { lock.withLock { servers } }
    }

    /// A pool on a file with an `entry` table, created by a connection of
    /// its own before the planned ones.
    private func makePool(
        _ directory: TemporaryDirectory, losses: [String?], capacity: Int = 2, acquisitionTimeout: Duration? = nil
    ) throws -> (DatabaseServerPool, Connections) {
        let path = directory.path()
        let setup = StandInServer(path: path, dialect: SQLiteDialect())
        _ = try setup.execute(sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)", arguments: [])
        setup.close()
        let connections = Connections(losses: losses)
        let pool = try DatabaseServerPool(
            description: "stand-in://faults", maximumConnectionCount: capacity, acquisitionTimeout: acquisitionTimeout,
            configuration: Configuration()
        ) { connections.open(path: path) }
        return (pool, connections)
    }

    /// Runs a write of one row that is expected to fail; returns how many
    /// times its closure ran and its error.
    private func failingInsert(_ pool: DatabaseServerPool) -> (runs: Int, error: DatabaseError?) {
        var runs = 0
        do {
            try pool.write { db in
                runs += 1
                try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
            }
            Issue.record("the write succeeded")
            return (runs, nil)
        } catch {
            #expect(error is DatabaseError, "\(error)")
            return (runs, error as? DatabaseError)
        }
    }

    private func count(_ pool: DatabaseServerPool) throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? -1 }
    }

    @Test func aWriteWhoseBeginMeetsALostConnectionRunsOnceMoreOnANewOne() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["BEGIN"])
        var runs = 0
        try pool.write { db in
            runs += 1
            try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
        }
        #expect(runs == 1)
        #expect(connections.count == 2)
        #expect(connections.all.first?.isUsable == false)
        #expect(try count(pool) == 1)
    }

    @Test func anAsyncReadWhoseBeginMeetsALostConnectionRunsOnceMore() async throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["BEGIN"])
        let total = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") }
        #expect(total == 0)
        #expect(connections.count == 2)
    }

    @Test func aSecondLostBeginIsThrownNotRetriedAgain() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["BEGIN", "BEGIN"])
        var runs = 0
        do {
            try pool.write { db in runs += 1 }
            Issue.record("the write succeeded")
        } catch let error as DatabaseError {
            #expect(error.isConnectionError, "\(error)")
            #expect(error.sqlState == "08006")
        }
        #expect(runs == 0)
        #expect(connections.count == 2)
        // Both lost connections were closed; the next access opens a third.
        #expect(try count(pool) == 0)
        #expect(connections.count == 3)
    }

    @Test func aConnectionLostInsideTheTransactionIsThrownAndNeverReused() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["INSERT"])
        let (runs, failure) = failingInsert(pool)
        let error = try #require(failure)
        #expect(error.isConnectionError, "\(error)")
        #expect(!error.isCommitOutcomeUnknown)
        // Not retried: the closure had run.
        #expect(runs == 1)
        #expect(try count(pool) == 0)
        #expect(connections.count == 2)
    }

    @Test func aLostCommitIsReportedAsOfUnknownOutcomeAndNotRetried() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["COMMIT"])
        let (runs, failure) = failingInsert(pool)
        let error = try #require(failure)
        #expect(error.isCommitOutcomeUnknown, "\(error)")
        #expect(error.sqlState == "08007")
        #expect(error.isConnectionError)
        #expect(error.message.contains("may or may not have been committed"))
        #expect(error.sql == "COMMIT TRANSACTION")
        #expect(runs == 1)
        // The stand-in lost the COMMIT before running it: the transaction
        // is gone with its connection, and the pool serves on a new one.
        #expect(try count(pool) == 0)
        #expect(connections.count == 2)
    }

    @Test func aReadWhoseCommitIsLostThrowsAPlainConnectionError() throws {
        let directory = try TemporaryDirectory()
        let (pool, _) = try makePool(directory, losses: ["COMMIT"])
        do {
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") }
            Issue.record("the read succeeded")
        } catch let error as DatabaseError {
            // A read-only transaction had nothing to commit: no outcome is unknown.
            #expect(error.isConnectionError, "\(error)")
            #expect(!error.isCommitOutcomeUnknown)
        }
        #expect(try count(pool) == 0)
    }

    @Test func aCommitOnAConnectionKnownClosedIsAPlainConnectionError() throws {
        func unknown(_ error: DatabaseError, _ sql: String, inside: Bool = true, readOnly: Bool = false) -> DatabaseError? {
            ServerConnection.outcomeUnknown(
                error, sql: sql, change: ServerTransactionChange(sql), insideTransaction: inside, readOnly: readOnly,
                server: StandInServer())
        }
        let error = DatabaseError(sqlState: "08003", message: "closed", sql: "COMMIT TRANSACTION")
        #expect(unknown(error, "COMMIT TRANSACTION") == nil)
        #expect(unknown(error, "INSERT INTO entry DEFAULT VALUES", inside: false) == nil)
        let lost = DatabaseError(sqlState: "08006", message: "lost", sql: "COMMIT TRANSACTION")
        #expect(unknown(lost, "COMMIT TRANSACTION")?.isCommitOutcomeUnknown == true)
        #expect(unknown(lost, "/* chained */ commit and chain")?.isCommitOutcomeUnknown == true)
        #expect(unknown(lost, "COMMIT TRANSACTION", readOnly: true) == nil)
        // A lost ROLLBACK leaves nothing committed; nor does a lost write
        // inside a transaction that had not reached its COMMIT.
        #expect(unknown(lost, "ROLLBACK TRANSACTION") == nil)
        #expect(unknown(lost, "INSERT INTO entry DEFAULT VALUES") == nil)
        // Outside a transaction, the server commits each statement on its own.
        let autocommit = try #require(unknown(lost, "INSERT INTO entry DEFAULT VALUES", inside: false))
        #expect(autocommit.isCommitOutcomeUnknown)
        #expect(autocommit.isConnectionError)
        #expect(autocommit.message.contains("outside of any transaction"))
        #expect(autocommit.sql == "INSERT INTO entry DEFAULT VALUES")
        #expect(unknown(lost, "-- a write\nDELETE FROM entry", inside: false)?.isCommitOutcomeUnknown == true)
        // A plain query commits nothing.
        #expect(unknown(lost, "SELECT count(*) FROM entry", inside: false) == nil)
        #expect(unknown(lost, "BEGIN TRANSACTION", inside: false) == nil)
    }

    /// The task of an async access is cancelled after the access released
    /// its connection and another access took it (the test seam holds the
    /// first access between its release and its return): no cancel request
    /// may reach the server, whose statement now belongs to the other access.
    @Test func aCancellationAfterTheAccessEndedSendsNoCancelRequest() async throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: [], capacity: 1)
        let released = AsyncStream<Void>.makeStream()
        let resume = AsyncStream<Void>.makeStream()
        pool.pool.afterAsyncAccessForTesting = {
            released.continuation.yield()
            for await _ in resume.stream { break }
        }
        let first = Task { try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
        var releases = released.stream.makeAsyncIterator()
        await releases.next()
        pool.pool.afterAsyncAccessForTesting = nil
        // The second access holds the connection while the first task is cancelled.
        let holding = AsyncStream<Void>.makeStream()
        let proceed = DispatchSemaphore(value: 0)
        let second = Task {
            try await pool.write { db in
                holding.continuation.yield()
                _ = proceed.wait(timeout: .now() + 30)
                try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
            }
        }
        var holds = holding.stream.makeAsyncIterator()
        await holds.next()
        first.cancel()
        proceed.signal()
        try await second.value
        resume.continuation.yield()
        #expect(try await first.value == 1)
        #expect(connections.all.map(\.cancelRequestCount) == [0])
        #expect(try count(pool) == 1)
    }

    /// Raw SQL ran outside Quarry's own transactions and opened one that its
    /// keywords do not show (the stand-in opens it for a marker statement):
    /// the connection rolls back before it serves the next access. Accesses
    /// in Quarry's own transactions pay no such ROLLBACK.
    @Test func aConnectionIsRolledBackAfterRawSQLRanOutsideATransaction() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: [], capacity: 1)
        try pool.write { db in try db.execute(sql: "INSERT INTO entry (value) VALUES (1)") }
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") }
        let server = try #require(connections.all.first)
        #expect(!server.received.map(\.sql).contains("ROLLBACK"), "\(server.received.map(\.sql))")
        server.opensTransactionAt = "SELECT 'opens a transaction unseen'"
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "SELECT 'opens a transaction unseen'")
            #expect(!db.isInsideTransaction)
            try db.execute(sql: "INSERT INTO entry (value) VALUES (2)")
        }
        #expect(server.received.last?.sql == "ROLLBACK")
        // The unseen transaction's insert was rolled back, and the next write works.
        try pool.write { db in try db.execute(sql: "INSERT INTO entry (value) VALUES (3)") }
        #expect(try pool.read { db in try Int.fetchAll(db, sql: "SELECT value FROM entry ORDER BY value") } == [1, 3])
    }

    @Test func writeWithoutTransactionIsNotRetried() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["INSERT"])
        var runs = 0
        let error = try #require(throws: DatabaseError.self) {
            try pool.writeWithoutTransaction { db in
                runs += 1
                try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
            }
        }
        // The server may have committed the statement before its answer was lost.
        #expect(error.isCommitOutcomeUnknown, "\(error)")
        #expect(runs == 1)
        #expect(try count(pool) == 0)
        #expect(connections.count == 2)
    }

    @Test func anIdleConnectionThatDiedIsReplacedBeforeItIsHandedOut() throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: [])
        #expect(try count(pool) == 0)
        // The server closes the idle connection (a restart).
        connections.all.first?.close()
        #expect(try count(pool) == 0)
        #expect(connections.count == 2)
    }

    @Test func aWaiterGetsANewConnectionWhenTheBusyOneIsLost() async throws {
        let directory = try TemporaryDirectory()
        let (pool, connections) = try makePool(directory, losses: ["INSERT"], capacity: 1)
        let holding = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let failing = Task {
            try await pool.write { db in
                holding.continuation.yield()
                release.wait()
                try db.execute(sql: "INSERT INTO entry (value) VALUES (1)")
            }
        }
        var iterator = holding.stream.makeAsyncIterator()
        await iterator.next()
        let waiting = Task { try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") } }
        // The read waits for the only connection, which is then lost.
        try await Task.sleep(for: .milliseconds(100))
        release.signal()
        await #expect(throws: DatabaseError.self) { try await failing.value }
        let total = try await waiting.value
        #expect(total == 0)
        #expect(connections.count == 2)
    }

    @Test func aBusyPoolFailsTheWaitAfterTheAcquisitionTimeout() async throws {
        let directory = try TemporaryDirectory()
        let (pool, _) = try makePool(directory, losses: [], capacity: 1, acquisitionTimeout: .milliseconds(200))
        let holding = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await pool.write { _ in
                holding.continuation.yield()
                release.wait()
            }
        }
        var iterator = holding.stream.makeAsyncIterator()
        await iterator.next()
        let start = ContinuousClock.now
        // Async and sync waiters both give up.
        do {
            _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
            Issue.record("the async read got a connection")
        } catch let error as DatabaseError {
            #expect(error.isBusy, "\(error)")
            #expect(error.message.contains("within"))
        }
        let asyncWait = ContinuousClock.now - start
        let syncResult = await Task.detached {
            Result { try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
        }.value
        #expect(throws: DatabaseError.self) { try syncResult.get() }
        release.signal()
        try await holder.value
        // The bound holds (a generous margin for a loaded machine), and the
        // pool serves again once the connection is free.
        #expect(asyncWait >= .milliseconds(200) && asyncWait < .seconds(10))
        #expect(try count(pool) == 0)
    }
}
