// PostgresDatabasePool through a server restart, an outage, and a network
// that drops, resets or blackholes its connections (Support/FaultProxy.swift),
// on servers of the tests' own (Support/PrivatePostgresServer.swift), since
// the shared test server serves other suites meanwhile. Each checks that no
// acknowledged write is lost (every write is acknowledged and present, or
// failed with a DatabaseError), that the pool serves again within 2 seconds
// of the fault's end, and that no failing access outlives its bound.
// Every wait for an access or a writer thread is bounded too: a writer that
// hangs fails its test (BoundedWaitTimeout, HungWriters) instead of hanging
// the run.

import Foundation
import Quarry
import QuarryPostgres
import QuarryTestSupport
import Synchronization
import Testing

extension PrivatePostgresServer {
    static let restartSuiteEnabled = isAvailable(for: "PostgresRestartTests")
}

@Suite(.enabled(if: PrivatePostgresServer.restartSuiteEnabled, "no PostgreSQL binaries"))
struct PostgresRestartTests {
    /// The bounds of these tests: short, so that a fault costs little time.
    private static func configure(_ server: inout PostgresConfiguration) {
        server.connectTimeout = .seconds(2)
        server.statementDeadline = .seconds(2)
        server.acquisitionTimeout = .seconds(5)
    }

    /// The slack a loaded 2-core machine needs over a bound.
    private static let slack: Duration = .seconds(3)

    /// The longest wait for one access on a thread of its own: far more
    /// than its bounds allow (connect, then one retry, each at most 2 s).
    private static let accessBound: Duration = .seconds(30)

    private func makePool(_ server: PostgresConfiguration, connections: Int = 8) throws -> PostgresDatabasePool {
        var server = server
        Self.configure(&server)
        let pool = try PostgresDatabasePool(server, maximumConnectionCount: connections)
        try pool.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS entry (id BIGINT PRIMARY KEY)") }
        return pool
    }

    /// Retries a read until it succeeds, on a thread of its own (see
    /// Support/OwnThread.swift), and returns how long that took.
    private func timeUntilServing(_ pool: PostgresDatabasePool) async throws -> Duration? {
        try await onOwnThread(within: .seconds(30) + Self.accessBound, "reads until the pool serves") {
            timeUntil { (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1 }
        }
    }

    /// Runs `access` on a thread of its own; returns its error, if any, and
    /// how long it took.
    private func timed(_ access: @escaping @Sendable () throws -> Void) async throws -> (error: (any Error)?, duration: Duration) {
        try await onOwnThread(within: Self.accessBound, "an access") {
            let start = ContinuousClock.now
            do {
                try access()
                return (nil, ContinuousClock.now - start)
            } catch {
                return (error, ContinuousClock.now - start)
            }
        }
    }

    @Test func aServerRestartWhileEightWritersRunLosesNoAcknowledgedWrite() async throws {
        try await PrivatePostgresServer.with { server in
            let pool = try makePool(try server.configuration())
            defer { pool.close() }
            let ledger = WriteLedger()
            let slowest = SharedMaximum()
            // Eight writers on threads of their own, and the restart, timed
            // on a thread too (see Support/OwnThread.swift).
            // Bounded: the restart (at most 60 s), the recovery (30 s), the
            // writers' last writes (30 s), and slack.
            let (recovery, acknowledgedBefore) = try await onOwnThread(within: .seconds(150), "the restart with eight writers") {
                () -> (Duration, Int) in
                let stop = SharedFlag()
                let writers = DispatchGroup()
                let running = RunningWriters()
                for writer in 0..<8 {
                    writers.enter()
                    running.started(writer)
                    Thread {
                        var index = 0
                        while !stop.isSet {
                            let start = ContinuousClock.now
                            ledger.writeBlocking(writer * 1_000_000 + index, in: pool)
                            slowest.record(ContinuousClock.now - start)
                            index += 1
                        }
                        running.ended(writer)
                        writers.leave()
                    }.start()
                }
                usleep(300_000)
                try server.controlBlocking("restart")
                // The first write acknowledged after the restart.
                let acknowledgedBefore = ledger.acknowledged.count
                let recovery = timeUntil { ledger.acknowledged.count > acknowledgedBefore } ?? .seconds(30)
                usleep(300_000)
                stop.set()
                // Each writer ends after its current write, which its bounds
                // end within seconds: one still running is a write that hung.
                if writers.wait(timeout: .now() + 30) == .timedOut {
                    throw HungWriters(writers: running.current, waited: .seconds(30))
                }
                return (recovery, acknowledgedBefore)
            }
            #expect(recovery < .seconds(2), "the pool served again after \(recovery)")
            #expect(ledger.acknowledged.count > acknowledgedBefore)
            // Failures are the restart's, and say so.
            for error in ledger.errors {
                #expect(error.isConnectionError, "\(error)")
            }
            try await ledger.checkNoAcknowledgedWriteLost(in: pool)
            // No write waited longer than the statement deadline allows
            // (connect, then one retry).
            #expect(slowest.value < .seconds(2) * 3 + Self.slack, "\(slowest.value)")
        }
    }

    @Test func accessesFailFastDuringAnOutageAndServeWithinTwoSecondsAfterIt() async throws {
        try await PrivatePostgresServer.with { server in
            let pool = try makePool(try server.configuration(), connections: 2)
            defer { pool.close() }
            try await server.stopServer()
            for _ in 0..<3 {
                let (error, duration) = try await timed {
                    try pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (1)") }
                }
                let databaseError = try #require(error as? DatabaseError, "a write succeeded with the server down")
                #expect(databaseError.isConnectionError, "\(databaseError)")
                // Refused at once, or at worst after the connect timeout.
                #expect(duration < .seconds(2) + Self.slack)
            }
            try await server.startServer()
            let served = try await timeUntilServing(pool)
            #expect(served.map { $0 < .seconds(2) + TimingSlack.underSanitizers } == true, "\(String(describing: served))")
            try await pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (1)") }
            #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") } == 1)
        }
    }

    @Test func droppedAndResetConnectionsAreReplaced() async throws {
        try await PrivatePostgresServer.with { server in
            try await FaultProxy.with(targetPort: server.port) { proxy in
                let pool = try makePool(try PostgresConfiguration(url: proxy.url()), connections: 4)
                defer { pool.close() }
                for mode in [FaultProxy.Mode.drop, .reset] {
                    // The pool's idle connections are cut.
                    await proxy.setMode(mode)
                    let (error, duration) = try await timed {
                        try pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (1)") }
                    }
                    let databaseError = try #require(error as? DatabaseError, "a write succeeded through a proxy in \(mode) mode")
                    #expect(databaseError.isConnectionError, "\(mode): \(databaseError)")
                    #expect(duration < .seconds(2) * 2 + Self.slack)
                    await proxy.setMode(.forward)
                    let served = try await timeUntilServing(pool)
                    #expect(served.map { $0 < .seconds(2) + TimingSlack.underSanitizers } == true, "\(mode): \(String(describing: served))")
                }
                // Cut while idle, then healed: the next write runs, retried
                // once on a new connection if its BEGIN met a dead one.
                await proxy.setMode(.drop)
                await proxy.setMode(.forward)
                try await pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (2)") }
                #expect(try await pool.read { db in try Int.fetchAll(db, sql: "SELECT id FROM entry") } == [2])
            }
        }
    }

    @Test func aBlackholedNetworkFailsAtTheDeadlinesAndThePoolServesAfterIt() async throws {
        try await PrivatePostgresServer.with { server in
            try await FaultProxy.with(targetPort: server.port) { proxy in
                let pool = try makePool(try PostgresConfiguration(url: proxy.url()), connections: 1)
                defer { pool.close() }
                await proxy.setMode(.blackhole)
                // The open connection: its statement gets no answer.
                let (writeError, writeWait) = try await timed {
                    try pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (1)") }
                }
                let lost = try #require(writeError as? DatabaseError, "a write succeeded through a blackhole")
                #expect(lost.isConnectionError, "\(lost)")
                // BEGIN's deadline, then the retry's connect timeout.
                #expect(writeWait >= .seconds(2) && writeWait < .seconds(2) * 2 + Self.slack, "\(writeWait)")
                // A new connection: its login gets no answer.
                let (readError, readWait) = try await timed {
                    _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
                }
                let refused = try #require(readError as? DatabaseError, "a read succeeded through a blackhole")
                #expect(refused.isConnectionError, "\(refused)")
                #expect(refused.message.contains("connect timeout"), "\(refused)")
                #expect(readWait >= .seconds(2) && readWait < .seconds(2) + Self.slack, "\(readWait)")
                await proxy.setMode(.forward)
                let served = try await timeUntilServing(pool)
                #expect(served.map { $0 < .seconds(2) + TimingSlack.underSanitizers } == true, "\(String(describing: served))")
                // The write that failed at its BEGIN never ran.
                #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") } == 0)
            }
        }
    }
}

/// The writer threads of a test that have not ended yet.
final class RunningWriters: Sendable {
    private let running = Mutex(Set<Int>())
    func started(_ writer: Int) { running.withLock { _ = $0.insert(writer) } }
    func ended(_ writer: Int) { running.withLock { _ = $0.remove(writer) } }
    var current: [Int] { running.withLock { $0.sorted() } }
}

/// Writer threads that did not end within their bound after being told to stop.
struct HungWriters: Error, CustomStringConvertible {
    var writers: [Int]
    var waited: Duration
    var description: String { "writers \(writers) still running \(waited) after they were told to stop: a write hung" }
}

/// A flag shared by concurrent tasks.
final class SharedFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

/// The longest of durations recorded by concurrent tasks.
final class SharedMaximum: Sendable {
    private let maximum = Mutex(Duration.zero)
    func record(_ duration: Duration) { maximum.withLock { $0 = max($0, duration) } }
    var value: Duration { maximum.withLock { $0 } }
}
