// Stopping statements on PostgreSQL: interrupt(), the cancellation of an
// async access (both send pg_cancel_backend), and maximumStatementDuration
// (the server's statement_timeout). The statements are `pg_sleep(30)`: each
// test stops one long before it would end, and checks the error it gets.

import Foundation
import Quarry
import QuarryPostgres
import Testing

extension PostgresTestServer {
    static let interruptSuiteEnabled = isConfigured(for: "PostgresInterruptTests")
}

@Suite(.enabled(if: PostgresTestServer.interruptSuiteEnabled, "QUARRY_POSTGRES_URL is not set"))
struct PostgresInterruptTests {
    /// A statement that sleeps 30 seconds, tagged so that `waitForSleep`
    /// finds this test's statement and no other test's.
    private static func sleepSQL(_ tag: String) -> String { "SELECT pg_sleep(30) /* \(tag) */" }

    /// Waits until the server runs `sleepSQL(tag)`, so that the request that
    /// follows finds it running.
    private func waitForSleep(_ observer: PostgresDatabasePool, _ tag: String) async throws {
        for _ in 0..<200 {
            let sleeping = try await observer.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM pg_stat_activity WHERE query = ? AND state = 'active'",
                    arguments: [Self.sleepSQL(tag)]) ?? 0
            }
            if sleeping > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the statement never started")
    }

    @Test func interruptStopsTheRunningStatement() async throws {
        try await PostgresTestServer.withPool { pool in
            let observer = try PostgresDatabasePool(url: PostgresTestServer.url ?? "", maximumConnectionCount: 1)
            defer { observer.close() }
            let tag = UUID().uuidString
            let sleeper = Task { try await pool.read { db in try db.execute(sql: Self.sleepSQL(tag)) } }
            try await waitForSleep(observer, tag)
            // Timed from the interrupt, not from the task's start, which a
            // busy cooperative pool can delay (under the sanitizers in CI).
            let start = ContinuousClock.now
            pool.interrupt()
            let error = await #expect(throws: DatabaseError.self) { try await sleeper.value }
            #expect(error?.sqlState == "57014")
            #expect(error?.message.contains("canceling statement") == true)
            #expect(ContinuousClock.now - start < .seconds(20))
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
            let sleeper = Task {
                try await pool.write { db in
                    try db.execute(sql: "CREATE TABLE touched (id BIGINT)")
                    try db.execute(sql: Self.sleepSQL(tag))
                }
            }
            try await waitForSleep(observer, tag)
            // Timed from the cancellation (see interruptStopsTheRunningStatement).
            let start = ContinuousClock.now
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            #expect(ContinuousClock.now - start < .seconds(20))
            // The write transaction rolled back.
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
                let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT pg_sleep(30)") }
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
