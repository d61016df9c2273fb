// Tests of stopping running statements: interrupt() from another thread, Task
// cancellation of async accesses, and the statement time limit.

import Foundation
import Quarry
import Testing

/// A statement that runs for minutes unless it is stopped: a recursive CTE
/// that counts to 10⁹.
private let countToABillion = """
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000)
    SELECT count(*) FROM c
    """

/// A statement that takes a noticeable but bounded time (a few hundred ms in a debug build).
private let countToTwoMillion = """
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000)
    SELECT count(*) FROM c
    """

/// A SQL function that tells the test its statement is running: each call
/// signals, and, when the probe `holds`, waits (up to 120 s) for `release()`.
/// Tests stop a statement only once its probe says it runs, so that they
/// check that a running statement stops, not that a statement that has not
/// started fails.
private final class StatementProbe: @unchecked Sendable {
    let name: String
    private let started = DispatchSemaphore(value: 0)
    private let released: DispatchSemaphore?

    init(_ name: String = "statement_started", holds: Bool = false) {
        self.name = name
        released = holds ? DispatchSemaphore(value: 0) : nil
    }

    var function: DatabaseFunction {
        DatabaseFunction(name, argumentCount: 0) { [self] _ in
            started.signal()
            if let released { _ = released.wait(timeout: .now() + 120) }
            return 1
        }
    }

    /// A statement that runs for minutes unless it is stopped, and calls the
    /// probe as it starts: `countToABillion`, counting from the probe's 1.
    var countToABillion: String {
        """
        WITH RECURSIVE c(x) AS (SELECT \(name)() UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000)
        SELECT count(*) FROM c
        """
    }

    /// A statement that counts to two million after the probe's call.
    var countToTwoMillion: String {
        """
        WITH RECURSIVE c(x) AS (SELECT \(name)() UNION ALL SELECT x + 1 FROM c WHERE x < 2000000)
        SELECT count(*) FROM c
        """
    }

    /// Whether the statement called the probe within 120 s (blocking): a
    /// hang guard, long enough for a task that waits for a cooperative
    /// thread while synchronous tests hold both (2 cores, sanitizer runs).
    func waitUntilRunning() -> Bool { started.wait(timeout: .now() + 120) == .success }

    /// `waitUntilRunning()`, on a thread of its own.
    func running() async -> Bool { await onNewThread { self.waitUntilRunning() } }

    /// Lets a holding probe's statement go on.
    func release() { released?.signal() }
}

private func makeWriter(
    _ kind: WriterKind, in directory: TemporaryDirectory, configuration: Configuration = Configuration(),
    probes: [StatementProbe] = []
) throws -> any DatabaseWriter {
    var configuration = configuration
    let functions = probes.map(\.function)
    if !functions.isEmpty {
        configuration.prepareDatabase { db in for function in functions { try db.add(function: function) } }
    }
    let writer = try kind.make(in: directory, configuration: configuration)
    try writer.write { db throws in
        try db.execute(sql: "CREATE TABLE t (v INTEGER)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
    }
    return writer
}

/// Calls `interrupt()` from a thread of its own once `probe` says the
/// statement runs. The returned function waits for that thread and tells
/// whether the statement was running (false: it did not start within 120 s,
/// and was interrupted anyway, so that the test does not hang).
private func interrupt(_ writer: any DatabaseWriter, whenRunning probe: StatementProbe) -> () -> Bool {
    let done = DispatchSemaphore(value: 0)
    let wasRunning = UncheckedBox(false)
    Thread.detachNewThread {
        wasRunning.value = probe.waitUntilRunning()
        writer.interrupt()
        done.signal()
    }
    return {
        done.wait()
        return wasRunning.value
    }
}

@Suite struct InterruptTests {
    @Test(arguments: WriterKind.allCases)
    func interruptFromAnotherThreadStopsAReadAndTheConnectionStaysUsable(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let probe = StatementProbe()
        let writer = try makeWriter(kind, in: directory, probes: [probe])
        let started = Date()
        let interrupted = interrupt(writer, whenRunning: probe)
        let error = try #require(throws: DatabaseError.self) {
            try writer.read { db in try Int.fetchOne(db, sql: probe.countToABillion) }
        }
        #expect(interrupted(), "the statement was not running when it was interrupted")
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.sql?.contains("WITH RECURSIVE") == true)
        print("Interrupt[\(kind)]: the read stopped \(Date().timeIntervalSince(started)) s after it started")
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test(arguments: WriterKind.allCases)
    func interruptedWriteIsRolledBackAsAWhole(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let probe = StatementProbe()
        let writer = try makeWriter(kind, in: directory, probes: [probe])
        let interrupted = interrupt(writer, whenRunning: probe)
        let error = try #require(throws: DatabaseError.self) {
            try writer.write { db throws in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                try db.execute(sql: "INSERT INTO t SELECT x FROM (\(probe.countToABillion)) JOIN (SELECT 1 AS x)")
            }
        }
        #expect(interrupted(), "the statement was not running when it was interrupted")
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(try writer.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t") } == [1])
        try writer.write { db throws in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try writer.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") } == [1, 3])
    }

    @Test(arguments: WriterKind.allCases)
    func interruptWhenNothingRunsDoesNotAffectLaterAccesses(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, in: directory)
        writer.interrupt()
        #expect(try writer.read { db in try Int.fetchOne(db, sql: countToTwoMillion) } == 2_000_000)
    }

    @Test func interruptAfterCloseDoesNothing() throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(.pool, in: directory)
        writer.close()
        writer.interrupt()
        #expect(throws: DatabaseError.self) { try writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
    }
}

@Suite struct CancellationTests {
    @Test(arguments: WriterKind.allCases)
    func cancellingTheTaskStopsItsRunningStatement(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let probe = StatementProbe()
        let writer = try makeWriter(kind, in: directory, probes: [probe])
        let task = Task { try await writer.read { db in try Int.fetchOne(db, sql: probe.countToABillion) } }
        #expect(await probe.running(), "the statement did not start")
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        print("Cancellation[\(kind)]: the statement stopped \(ContinuousClock.now - cancelled) after cancel()")
        // The next access on the same connection runs normally.
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: countToTwoMillion) } == 2_000_000)
    }

    @Test(arguments: WriterKind.allCases)
    func aCancelledWriteIsRolledBack(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let probe = StatementProbe()
        let writer = try makeWriter(kind, in: directory, probes: [probe])
        let task = Task {
            try await writer.write { db throws in
                try db.execute(sql: "INSERT INTO t VALUES (2)")
                try db.execute(sql: "INSERT INTO t SELECT x FROM (\(probe.countToABillion)) JOIN (SELECT 1 AS x)")
            }
        }
        #expect(await probe.running(), "the statement did not start")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await writer.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t") } == [1])
    }

    @Test func aBlockThatCatchesTheInterruptStillThrowsCancellation() async throws {
        let directory = try TemporaryDirectory()
        let probe = StatementProbe()
        let writer = try makeWriter(.queue, in: directory, probes: [probe])
        let task = Task {
            try await writer.read { db -> Int in
                do {
                    return try Int.fetchOne(db, sql: probe.countToABillion) ?? 0
                } catch {
                    // Code that wraps errors: the access still ends as cancelled.
                    throw DatabaseError(resultCode: .SQLITE_INTERRUPT, message: "wrapped: \(error)")
                }
            }
        }
        #expect(await probe.running(), "the statement did not start")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aTaskCancelledBeforeItsAccessDoesNotRunIt() async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(.queue, in: directory)
        let ran = UncheckedBox(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await writer.write { db throws in
                ran.value = true
                try db.execute(sql: "INSERT INTO t VALUES (2)")
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.value)
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 1)
    }

    /// Cancelling one task never stops the statement of another task, on
    /// another reader of the same pool.
    @Test func cancellingOneReadDoesNotStopAnotherRead() async throws {
        let directory = try TemporaryDirectory()
        // The other read holds inside its statement until the cancellation
        // is over: both statements run when one is cancelled.
        let otherProbe = StatementProbe("other_started", holds: true)
        let probe = StatementProbe()
        let pool = try makeWriter(.pool, in: directory, probes: [otherProbe, probe])
        let other = Task { try await pool.read { db in try Int.fetchOne(db, sql: otherProbe.countToTwoMillion) } }
        #expect(await otherProbe.running(), "the other statement did not start")
        let cancelled = Task { try await pool.read { db in try Int.fetchOne(db, sql: probe.countToABillion) } }
        #expect(await probe.running(), "the cancelled statement did not start")
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        otherProbe.release()
        #expect(try await other.value == 2_000_000)
    }

    /// A cancellation that arrives after its access ended does not stop the
    /// next access of the same connection.
    @Test func aLateCancellationDoesNotStopTheNextAccess() async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(.queue, in: directory)
        let first = Task { try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } }
        #expect(try await first.value == 1)
        first.cancel()  // too late: the access is over
        #expect(try await writer.read { db in try Int.fetchOne(db, sql: countToTwoMillion) } == 2_000_000)
    }
}

@Suite struct StatementTimeLimitTests {
    @Test(arguments: WriterKind.allCases)
    func aStatementOverTheConfiguredLimitThrowsAnErrorNamingItsSQL(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumStatementDuration = .milliseconds(100)
        let writer = try makeWriter(kind, in: directory, configuration: configuration)
        let error = try #require(throws: DatabaseError.self) {
            try writer.read { db in try Int.fetchOne(db, sql: countToABillion) }
        }
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.message.contains("maximumStatementDuration"))
        #expect(error.sql == countToABillion)
        // Short statements run, also right after.
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 1)
        try writer.write { db throws in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 2)
    }

    @Test func theLimitIsPerStatementNotPerAccess() throws {
        var configuration = Configuration()
        configuration.maximumStatementDuration = .milliseconds(300)
        let dbQueue = try DatabaseQueue(configuration: configuration)
        // Many short statements whose total exceeds the limit all run.
        let total = try dbQueue.read { db -> Int in
            var total = 0
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .milliseconds(600) {
                total += try Int.fetchOne(db, sql: "SELECT 1") ?? 0
            }
            return total
        }
        #expect(total > 0)
    }

    @Test func theConnectionLimitCanBeChangedAndRemoved() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db throws in
            #expect(db.maximumStatementDuration == nil)
            db.maximumStatementDuration = .milliseconds(50)
            #expect(db.maximumStatementDuration == .milliseconds(50))
            #expect(throws: DatabaseError.self) { try Int.fetchOne(db, sql: countToABillion) }
            db.maximumStatementDuration = nil
            #expect(try Int.fetchOne(db, sql: countToTwoMillion) == 2_000_000)
        }
    }

    @Test func aZeroLimitStopsEveryLongStatement() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db throws in
            db.maximumStatementDuration = .zero
            let error = try #require(throws: DatabaseError.self) { try Int.fetchOne(db, sql: countToTwoMillion) }
            #expect(error.message.contains("time limit"))
        }
    }
}
