// DatabaseReader and DatabaseWriter: what DatabaseQueue and DatabasePool have in common.
//
// Code that only needs "a database" (a migrator, a repository type, a test
// helper) takes `some DatabaseWriter` or `any DatabaseReader` and works with both.

/// A type that gives read access to a database: ``DatabaseQueue`` or ``DatabasePool``.
///
/// The ``Database`` passed to a closure is usable only inside it.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The path of the database file, or `:memory:`.
    var path: String { get }

    /// The configuration the database was opened with.
    var configuration: Configuration { get }

    /// Runs `block` with read-only access to the database, blocking the current
    /// thread until a connection is free, and returns its result.
    ///
    /// All reads in `block` see the same snapshot of the database. Writing in
    /// `block` throws `SQLITE_READONLY`. Calling `read` or `write` of the same
    /// queue or pool inside `block` throws a ``DatabaseError`` instead of
    /// deadlocking.
    @discardableResult
    func read<T>(_ block: (Database) throws -> T) throws -> T

    /// Runs `block` with read-only access to the database, without blocking the
    /// calling task's thread while it waits for a connection.
    @discardableResult
    func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Closes the connections. Later accesses throw.
    func close()

    /// Stops the statements that run now, on every connection, from any
    /// thread (<https://www.sqlite.org/c3ref/interrupt.html>).
    ///
    /// The interrupted access throws a ``DatabaseError`` with
    /// `SQLITE_INTERRUPT`; a write is rolled back as a whole. The
    /// connections stay usable, and accesses that start afterwards run
    /// normally. To stop one access rather than all, cancel its task
    /// (async accesses) or set ``Configuration/maximumStatementDuration``.
    func interrupt()
}

/// A type that gives read and write access to a database: ``DatabaseQueue`` or
/// ``DatabasePool``.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `block` in a transaction and returns its result; the transaction
    /// commits when `block` returns, and rolls back when it throws.
    ///
    /// The transaction is `IMMEDIATE` (<https://www.sqlite.org/lang_transaction.html>):
    /// it takes the write lock at once, so that concurrent writers from other
    /// processes wait (up to ``Configuration/busyTimeout``) rather than fail.
    @discardableResult
    func write<T>(_ block: (Database) throws -> T) throws -> T

    /// The async variant of `write(_:)`: waits for the
    /// writer without blocking the calling task's thread.
    @discardableResult
    func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `block` with the writer connection, outside of any transaction, for
    /// statements that cannot run in one (`VACUUM`, some pragmas) or to manage
    /// transactions yourself with ``Database/inTransaction(_:_:)``.
    @discardableResult
    func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T

    /// The async variant of `writeWithoutTransaction(_:)`.
    @discardableResult
    func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T
}

extension Database {
    /// Runs `block` in an `IMMEDIATE` transaction that commits on return and
    /// rolls back on throw: the body of every `write`.
    func inWriteTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        var result: T?
        try inTransaction(.immediate) {
            result = try block(self)
            return .commit
        }
        guard let result else {
            throw DatabaseError.misuse("the write transaction ended without a result")
        }
        return result
    }

    /// Runs `block` in a deferred transaction that always ends (a read snapshot).
    func inReadTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        var result: T?
        try inTransaction(.deferred) {
            result = try block(self)
            return .commit
        }
        guard let result else {
            throw DatabaseError.misuse("the read transaction ended without a result")
        }
        return result
    }
}
