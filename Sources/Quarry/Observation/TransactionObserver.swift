// TransactionObserver: the protocol of objects told about the changes of a
// connection's transactions, and how to attach them.
//
// See ObservationBroker.swift for how the events are gathered and when each
// method is called.

/// An object told about the committed changes of a database connection.
///
/// Attach one with ``Database/add(transactionObserver:extent:)`` (inside an
/// access) or ``DatabaseWriter/add(transactionObserver:extent:)``. On a
/// ``DatabasePool`` it lives on the writer connection, where every write runs.
///
/// ```swift
/// final class OutboxPublisher: TransactionObserver {
///     var inserted: [Int64] = []
///     func observes(eventsOfKind kind: DatabaseEventKind) -> Bool {
///         if case .insert(let table) = kind { return table == "order" }
///         return false
///     }
///     func databaseDidChange(with event: DatabaseEvent) { inserted.append(event.rowID) }
///     func databaseDidCommit(_ db: Database) { publish(inserted); inserted = [] }
///     func databaseDidRollback(_ db: Database) { inserted = [] }
/// }
/// try dbPool.add(transactionObserver: publisher, extent: .databaseLifetime)
/// ```
///
/// For each transaction that writes, the observer is told, in order:
/// 1. ``databaseDidChange(with:)`` once for each row inserted, updated or
///    deleted by a statement of a kind it observes, after that statement
///    succeeded. Changes made inside a savepoint are told when the outermost
///    savepoint is released, and never if it is rolled back.
/// 2. ``databaseWillCommit()`` just before the commit; throwing rolls the
///    transaction back, and the statement that committed throws that error.
/// 3. ``databaseDidCommit(_:)`` after the commit, or
///    ``databaseDidRollback(_:)`` after a rollback, which means that the
///    changes told so far did not happen.
///
/// The observer is called on the connection's thread, inside the access
/// that writes. ``databaseDidChange(with:)``, ``databaseDidChange()`` and
/// ``databaseWillCommit()`` run while SQLite is stepping a statement and must
/// not use the database; ``databaseDidCommit(_:)`` and
/// ``databaseDidRollback(_:)`` may read it.
///
/// What SQLite's update hook (<https://www.sqlite.org/c3ref/update_hook.html>)
/// does not report, and how Quarry handles it:
/// - `DELETE FROM t` without `WHERE` would run as a truncate, reporting
///   nothing. While an observer is attached, Quarry's authorizer disables
///   that optimization, so each deleted row is reported.
/// - Rows of `WITHOUT ROWID` tables have no rowid to report. After a statement
///   that changed such a table, observers of it are told
///   ``databaseDidChange()`` instead.
/// - Rows that `ON CONFLICT REPLACE` deletes to make room for a new row are
///   not reported: only the inserted row is. Observe inserts as "this key
///   may have been replaced".
public protocol TransactionObserver: AnyObject {
    /// Whether the observer wants the events of statements that make changes
    /// of `kind`. Asked before each statement that may change the database
    /// runs; the answer may change from one statement to the next.
    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool

    /// One row inserted, updated or deleted by a statement that succeeded.
    /// Must not use the database.
    func databaseDidChange(with event: DatabaseEvent)

    /// The observed tables changed in a way that has no row events: a
    /// statement changed a `WITHOUT ROWID` table, or failed after changing
    /// rows that SQLite may have kept (`OR FAIL`). Must not use the database.
    /// Does nothing by default.
    func databaseDidChange()

    /// The transaction is about to commit. Throw to roll it back instead.
    /// Must not use the database. Does nothing by default.
    func databaseWillCommit() throws

    /// The transaction committed.
    func databaseDidCommit(_ db: Database)

    /// The transaction was rolled back: forget the changes told since it began.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    /// Does nothing.
    public func databaseDidChange() {}

    /// Accepts the commit.
    public func databaseWillCommit() throws {}
}

extension Database {
    /// How long a transaction observer stays attached to a connection.
    public enum TransactionObservationExtent: Sendable {
        /// Until the observer is deallocated: the connection holds it weakly.
        case observerLifetime
        /// Until the end of the next transaction (or of the current one, if
        /// one is open): the connection holds it until then. It is detached
        /// before it is told `databaseDidCommit` or `databaseDidRollback`, so
        /// a transaction it runs from there is not told to it.
        case nextTransaction
        /// Until the connection closes, or until
        /// ``Database/remove(transactionObserver:)``: the connection holds it.
        case databaseLifetime
    }

    /// Attaches `transactionObserver` to this connection.
    ///
    /// It is told about the statements that start after this call. Attaching
    /// the first observer makes SQLite compile the connection's statements
    /// again before their next run, so that `DELETE` without `WHERE` reports
    /// each row (see ``TransactionObserver``).
    ///
    /// On a database server connection (PostgreSQL), the observer is told
    /// nothing: the server does not report changes. This method cannot throw
    /// (GRDB's spelling); the `DatabaseWriter` method throws there instead.
    /// (``ValueObservation`` and ``DatabaseRegionObservation`` learn of a
    /// server's commits from its notifications.)
    public func add(transactionObserver: some TransactionObserver, extent: TransactionObservationExtent = .observerLifetime) {
        observationBroker.add(transactionObserver, extent: extent)
    }

    /// Detaches `transactionObserver` from this connection; does nothing if
    /// it is not attached.
    public func remove(transactionObserver: some TransactionObserver) {
        observationBroker.remove(transactionObserver)
    }
}

extension Database {
    /// Attaches the observer of an observation (`feature` names it in
    /// errors) to this connection's commits, when the backend reports them
    /// through hooks (SQLite). A backend without hooks reports its commits
    /// through the reader's feed (`hasFeed`); without either, the
    /// observation would never see a change, and this throws.
    func attachCommitObserver(_ observer: some TransactionObserver, hasFeed: Bool, feature: String) throws {
        // Backend conditional: a backend either reports commits through hooks
        // (SQLite), or through its reader's feed (a server), never both.
        if connection.supports(.observation) {
            add(transactionObserver: observer, extent: .observerLifetime)
        } else if !hasFeed {
            try require(.observation, feature)
        }
    }
}

extension DatabaseWriter {
    /// Attaches `transactionObserver` to the writer connection, waiting for
    /// the current write to end; see ``Database/add(transactionObserver:extent:)``.
    ///
    /// Throws if the database is closed, or if called from inside an access
    /// of this database (use the `Database` method there).
    public func add(
        transactionObserver: some TransactionObserver, extent: Database.TransactionObservationExtent = .observerLifetime
    ) throws {
        try writeWithoutTransaction { db in
            try db.require(.observation, "transaction observers (add(transactionObserver:))")
            db.add(transactionObserver: transactionObserver, extent: extent)
        }
    }

    /// Detaches `transactionObserver` from the writer connection.
    public func remove(transactionObserver: some TransactionObserver) throws {
        try writeWithoutTransaction { db in db.remove(transactionObserver: transactionObserver) }
    }
}
