// Database+StatementHooks: what runs around the steps of a statement when
// something needs it: the progress monitor (a time limit or a cancellable
// async access, Database+Interrupt.swift) and change observation
// (Observation/, through the StatementExecutionObserver protocol, so that
// Core does not depend on it).
//
// `Statement.step()` checks one stored flag, `hasStatementHooks`, and calls
// nothing more when it is false: statements of connections that nothing
// watches pay one load per step.

/// Follows the statements and transactions of one connection. Change
/// observation (Observation/) implements it.
protocol StatementExecutionObserver: AnyObject {
    /// Whether it needs `statementWillStart` and `statementDidEnd` now.
    var followsStatements: Bool { get }

    /// Called before the first step of `statement`.
    func statementWillStart(_ statement: Statement)

    /// Whether it records the region a fetch reads now (on a server, where
    /// no authorizer tells it, `serverStatementDidRead` then does).
    var isRecordingRegion: Bool { get }

    /// A read statement of a server connection read `tables` (nil: unknown,
    /// the whole database).
    func serverStatementDidRead(tables: Set<String>?)

    /// Called once per run of `statement`: after its last step (it returned
    /// `SQLITE_DONE` or an error), or when it is reset before that.
    func statementDidEnd(_ statement: Statement, succeeded: Bool)

    /// The error a transaction observer threw to refuse the commit that just
    /// failed with `SQLITE_CONSTRAINT_COMMITHOOK`, if any; cleared as it is taken.
    func takeCommitVeto() -> (any Error)?

    /// What a connection that replaces this one must attach again, called
    /// when its pool discards the connection (`Database.discard(because:)`):
    /// the transaction observers that still live, so that an observation
    /// of a `DatabasePool` outlives a fault of its writer. Nil when there
    /// is nothing to carry over.
    func handOver() -> ((Database) -> Void)?
}

extension Database {
    /// Recomputes `hasStatementHooks` after the progress monitor or the
    /// execution observer changed what it needs.
    func updateStatementHooks() {
        hasStatementHooks = progressMonitor.isActive || executionObserver?.followsStatements == true
    }

    /// Called by `Statement.step()` before the first step of a statement.
    func statementStarts(_ statement: Statement) {
        if progressMonitor.isActive { progressMonitorStatementStarts() }
        // A recompilation inside sqlite3_step (after a schema change or an
        // expiry) calls the authorizer with no statement being compiled: its
        // facts must not mix with those of an earlier compilation.
        compilingFacts = StatementFacts()
        executionObserver?.statementWillStart(statement)
    }

    /// Called by `Statement.step()` after the last step of a statement, or by
    /// `Statement.reset()` for a run left before its end.
    func statementEnds(_ statement: Statement, succeeded: Bool) {
        executionObserver?.statementDidEnd(statement, succeeded: succeeded)
    }
}
