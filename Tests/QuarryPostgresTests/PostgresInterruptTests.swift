// Stopping statements on PostgreSQL: interrupt(), the cancellation of an
// async access (both send pg_cancel_backend), and maximumStatementDuration
// (the server's statement_timeout). The statements are `pg_sleep(30)`: each
// test stops one long before it would end, and checks the error it gets.

import Foundation
import Quarry
import QuarryPostgres
import Synchronization
import Testing

extension PostgresTestServer {
    static let interruptSuiteEnabled = isConfigured(for: "PostgresInterruptTests")
}

@Suite(.enabled(if: PostgresTestServer.interruptSuiteEnabled, "QUARRY_POSTGRES_URL is not set"))
struct PostgresInterruptTests {
    /// A statement that sleeps 30 seconds, tagged so that `waitForSleep`
    /// finds this test's statement and no other test's.
    private static func sleepSQL(_ tag: String) -> String { "SELECT pg_sleep(30) /* \(tag) */" }

    /// The server process of an access's connection, which the access
    /// records before it sleeps.
    private final class ServerProcess: Sendable {
        let pid = Mutex<Int?>(nil)

        /// Records the connection's server process, then runs `sleepSQL(tag)`.
        func sleep(_ db: Database, _ tag: String) throws {
            let backend = try Int.fetchOne(db, sql: "SELECT pg_backend_pid()")
            pid.withLock { $0 = backend }
            try db.execute(sql: PostgresInterruptTests.sleepSQL(tag))
        }
    }

    /// Whether `backend`'s server process runs `sleepSQL(tag)` now
    /// (`pg_stat_activity`: that process, state `active`, that statement).
    private func isSleeping(_ observer: PostgresDatabasePool, _ backend: ServerProcess, _ tag: String) async throws -> Bool {
        guard let pid = backend.pid.withLock({ $0 }) else { return false }
        return try await observer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND state = 'active' AND query = ?",
                arguments: [pid, Self.sleepSQL(tag)]) ?? 0
        } > 0
    }

    /// Waits (up to 60 s) until the statement runs on the server, so that
    /// the request that follows stops a running statement; throws if it
    /// never does.
    private func waitForSleep(_ observer: PostgresDatabasePool, _ backend: ServerProcess, _ tag: String) async throws {
        for _ in 0..<3000 {
            if try await isSleeping(observer, backend, tag) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(Bool(false), "the statement never ran on the server (pg_stat_activity)")
    }

    /// Whether the statement stops running on the server within 15 s (it
    /// would run 30 s unless stopped).
    private func stopsSleeping(_ observer: PostgresDatabasePool, _ backend: ServerProcess, _ tag: String) async throws -> Bool {
        for _ in 0..<750 {
            if try await !isSleeping(observer, backend, tag) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func interruptStopsTheRunningStatement() async throws {
        try await PostgresTestServer.withPool { pool in
            let observer = try PostgresDatabasePool(url: PostgresTestServer.url ?? "", maximumConnectionCount: 1)
            defer { observer.close() }
            let tag = UUID().uuidString
            let backend = ServerProcess()
            let sleeper = Task { try await pool.read { db in try backend.sleep(db, tag) } }
            try await waitForSleep(observer, backend, tag)
            // Timed from the interrupt, not from the task's start, which a
            // busy cooperative pool can delay (under the sanitizers in CI).
            let start = ContinuousClock.now
            pool.interrupt()
            let error = await #expect(throws: DatabaseError.self) { try await sleeper.value }
            #expect(error?.sqlState == "57014")
            // The cancel request's error, not the statement timeout's.
            #expect(error?.message.contains("canceling statement due to user request") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(20))
            // The server process no longer runs it.
            #expect(try await stopsSleeping(observer, backend, tag))
            // The connection serves the next access.
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
            // Nothing running: nothing to stop, and later statements run.
            pool.interrupt()
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2)
        }
    }

    @Test func cancellingAnAsyncAccessStopsItsStatement() async throws {
        try await PostgresTestServer.withPool { pool in
            let observer = try PostgresDatabasePool(url: PostgresTestServer.url ?? "", maximumConnectionCount: 1)
            defer { observer.close() }
            let tag = UUID().uuidString
            let backend = ServerProcess()
            let sleeper = Task {
                try await pool.write { db in
                    try db.execute(sql: "CREATE TABLE touched (id BIGINT)")
                    try backend.sleep(db, tag)
                }
            }
            try await waitForSleep(observer, backend, tag)
            // Timed from the cancellation (see interruptStopsTheRunningStatement).
            let start = ContinuousClock.now
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            #expect(ContinuousClock.now - start < .seconds(20))
            // The server stopped the statement (the access did not merely
            // stop waiting for it)...
            #expect(try await stopsSleeping(observer, backend, tag))
            // ...and the write transaction rolled back.
            #expect(try await pool.read { db in try db.tableExists("touched") } == false)
        }
    }

    @Test func maximumStatementDurationIsTheServersStatementTimeout() async throws {
        try await PostgresTestServer.withPool { pool in
            var configuration = Configuration()
            configuration.maximumStatementDuration = .milliseconds(250)
            let limited = try PostgresDatabasePool(
                url: PostgresTestServer.url ?? "", maximumConnectionCount: 1, configuration: configuration)
            defer { limited.close() }
            try await limited.writeWithoutTransaction { db in
                #expect(db.maximumStatementDuration == .milliseconds(250))
                #expect(try String.fetchOne(db, sql: "SHOW statement_timeout") == "250ms")
                let start = ContinuousClock.now
                let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT pg_sleep(30)") }
                // Not before the limit (a lower bound no load can break).
                #expect(ContinuousClock.now - start >= .milliseconds(250))
                #expect(error.sqlState == "57014")
                #expect(error.message.contains("statement timeout"))
                // Changed on the connection: no limit, then a rounded-up one.
                db.maximumStatementDuration = nil
                #expect(try String.fetchOne(db, sql: "SHOW statement_timeout") == "0")
                try db.execute(sql: "SELECT pg_sleep(0.3)")
                db.maximumStatementDuration = .microseconds(1500)
                #expect(try String.fetchOne(db, sql: "SHOW statement_timeout") == "2ms")
            }
            // The pool of another configuration has no limit.
            #expect(try await pool.read { db in try String.fetchOne(db, sql: "SHOW statement_timeout") } == "0")
        }
    }
}
