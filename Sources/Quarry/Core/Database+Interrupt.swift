// Stopping statements while they run: interrupt(), Task cancellation of async
// accesses, and Configuration.maximumStatementDuration.
//
// All three end a running statement with SQLITE_INTERRUPT. `interrupt()` calls
// sqlite3_interrupt (https://www.sqlite.org/c3ref/interrupt.html), which stops
// whatever runs on the connection now. Cancellation and the time limit use a
// progress handler (https://www.sqlite.org/c3ref/progress_handler.html)
// instead, whose answer depends on state owned by one access: a cancellation
// that arrives late can then never stop a later access on the same
// connection, as a stray sqlite3_interrupt could. The handler is installed
// only while it has something to watch, so that accesses without a time limit
// or a cancellable task pay nothing.

import Foundation
import Synchronization

/// The cancellation flag of one async access: set by the task's cancellation
/// handler, from any thread; read by the progress handler, on the connection's thread.
///
/// The task's cancellation handler can run after the access ended and its
/// connection went to another access (the task is cancelled between the
/// access's end and its resumption). `cancel(whileRunning:)` and `end()`
/// share a lock, so what the handler does to the connection (a server's
/// cancel request for the statement running now) happens only while the
/// access still holds it.
final class AccessCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    private let hasEnded = Mutex(false)

    var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Marks the access cancelled, and runs `action` if the access has not
    /// ended yet; the access cannot end while `action` runs.
    func cancel(whileRunning action: () -> Void) {
        flag.store(true, ordering: .relaxed)
        hasEnded.withLock { hasEnded in
            if !hasEnded { action() }
        }
    }

    /// Called on the connection's thread when the access ends, before its
    /// connection is released.
    func end() { hasEnded.withLock { $0 = true } }
}

/// What the progress handler of one connection watches. Only `access` is shared
/// with other threads, through its atomic flag; the rest belongs to the
/// connection's thread.
final class ProgressMonitor {
    /// SQLite calls the handler every this many virtual machine instructions:
    /// about every few microseconds of a long statement.
    static let instructionsPerCheck: Int32 = 1_000

    /// The cancellation of the async access that runs now, if any.
    var access: AccessCancellation?

    /// The longest a statement may run, in nanoseconds; 0 for no limit.
    var statementLimit: UInt64 = 0

    /// When the running statement must stop (`DispatchTime` nanoseconds).
    var statementDeadline: UInt64 = .max

    /// Why the handler stopped the last statement.
    var stopReason: StopReason?

    /// Set while Quarry rolls back: a rollback must never be stopped.
    var isPaused = false

    enum StopReason {
        case cancelled
        case timedOut
    }

    /// Whether the handler must be installed.
    var isActive: Bool { access != nil || statementLimit != 0 }

    /// Called by the progress handler: true stops the statement.
    func shouldStop() -> Bool {
        if isPaused { return false }
        if let access, access.isCancelled {
            stopReason = .cancelled
            return true
        }
        if statementLimit != 0, DispatchTime.now().uptimeNanoseconds >= statementDeadline {
            stopReason = .timedOut
            return true
        }
        return false
    }
}

extension Database {
    /// Installs or removes the progress handler, as the monitor requires
    /// (``DatabaseConnection/watchProgress(_:)``).
    func updateProgressHandler() {
        updateStatementHooks()
        connection.watchProgress(progressMonitor.isActive ? progressMonitor : nil)
    }

    /// Called before a statement's first step when the monitor is active:
    /// starts its time limit.
    func progressMonitorStatementStarts() {
        progressMonitor.stopReason = nil
        let limit = progressMonitor.statementLimit
        if limit != 0 {
            progressMonitor.statementDeadline = DispatchTime.now().uptimeNanoseconds &+ limit
        }
    }

    /// Runs `body` as the access `cancellation` belongs to: its statements stop
    /// with `CancellationError` once the task is cancelled, and it does not
    /// start at all if the task is cancelled already.
    func observingCancellation<T>(_ cancellation: AccessCancellation, _ body: () throws -> T) throws -> T {
        if cancellation.isCancelled { throw CancellationError() }
        progressMonitor.access = cancellation
        updateProgressHandler()
        defer {
            progressMonitor.access = nil
            progressMonitor.stopReason = nil
            updateProgressHandler()
        }
        do {
            return try body()
        } catch let error as DatabaseError
            where error.categories.contains(.interrupted) && cancellation.isCancelled {
            // Caught and rethrown by the block as a DatabaseError: still a cancellation.
            throw CancellationError()
        }
    }

    /// Runs `body` with the progress handler paused (rollbacks).
    func withoutStopping<T>(_ body: () throws -> T) rethrows -> T {
        let wasPaused = progressMonitor.isPaused
        progressMonitor.isPaused = true
        defer { progressMonitor.isPaused = wasPaused }
        return try body()
    }

    /// The error of a step that failed with `code`: a cancellation, a
    /// statement over its time limit, or SQLite's own error.
    func stepError(code: Int32, statement: Statement, arguments: StatementArguments?) -> any Error {
        let error = stepErrorWithoutSpan(code: code, statement: statement, arguments: arguments)
        if instrumentation?.tracer != nil { statementSpanFails(statement.sqliteStatement, error: error) }
        return error
    }

    private func stepErrorWithoutSpan(code: Int32, statement: Statement, arguments: StatementArguments?) -> any Error {
        // A transaction observer refused the commit (Observation/): its error.
        let primary = ResultCode(rawValue: code).primaryResultCode
        if primary == .SQLITE_CONSTRAINT, let veto = executionObserver?.takeCommitVeto() { return veto }
        if primary == .SQLITE_INTERRUPT, let reason = progressMonitor.stopReason {
            progressMonitor.stopReason = nil
            switch reason {
            case .cancelled:
                return CancellationError()
            case .timedOut:
                let limit = Duration.nanoseconds(Int64(clamping: progressMonitor.statementLimit))
                return DatabaseError(
                    resultCode: .SQLITE_INTERRUPT,
                    message: "the statement ran longer than the time limit (maximumStatementDuration: \(limit)) and was interrupted",
                    sql: statement.sql,
                    arguments: configuration.publicStatementArguments ? arguments : nil)
            }
        }
        return commitOutcome(of: makeError(code: code, sql: statement.sql, arguments: arguments), statement: statement)
    }

    /// The longest a statement of this connection may run before it is
    /// interrupted with ``DatabaseError`` `SQLITE_INTERRUPT`, naming its SQL;
    /// nil for no limit. Starts as ``Configuration/maximumStatementDuration``.
    ///
    /// On PostgreSQL, it is the server's `statement_timeout`, in whole
    /// milliseconds, and a statement over it fails with SQLSTATE `57014`. Set
    /// inside a transaction that rolls back, the server undoes it.
    ///
    /// ```swift
    /// try dbQueue.read { db in
    ///     db.maximumStatementDuration = .milliseconds(200)
    ///     defer { db.maximumStatementDuration = nil }
    ///     return try Report.fetchAll(db)   // throws if a statement runs longer
    /// }
    /// ```
    public var maximumStatementDuration: Duration? {
        get {
            let limit = progressMonitor.statementLimit
            return limit == 0 ? nil : .nanoseconds(Int64(clamping: limit))
        }
        set {
            progressMonitor.statementLimit = newValue.map(Database.nanoseconds) ?? 0
            if sqlDialect.statementTimeoutSQL != nil {
                // The server keeps the limit. The setter cannot throw: a
                // connection that fails this statement fails the next one
                // too, which then throws.
                try? setServerStatementTimeout(progressMonitor.statementLimit)
                return
            }
            updateProgressHandler()
        }
    }

    /// On a server, sets its own time limit (PostgreSQL's `statement_timeout`,
    /// a whole number of milliseconds, rounded up; 0 for none). A statement
    /// over it fails with the server's "query canceled" error (57014).
    func setServerStatementTimeout(_ nanoseconds: UInt64) throws {
        guard let sql = sqlDialect.statementTimeoutSQL else { return }
        let milliseconds = nanoseconds == 0 ? 0 : nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
        try execute(sql: sql, arguments: [String(milliseconds)])
    }

    /// A positive duration in nanoseconds (at least 1, so that a zero limit still limits).
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 1 }
        let total = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if total.overflow { return .max }
        return max(1, total.partialValue &+ UInt64(attoseconds / 1_000_000_000))
    }
}

extension Database {
    /// Stops the statements running now on this connection with
    /// `SQLITE_INTERRUPT`; safe from any thread while the connection is open
    /// (<https://www.sqlite.org/c3ref/interrupt.html>). Statements started
    /// after every running one has ended are not affected.
    func interruptRunningStatements() {
        connection.interrupt()
    }
}
