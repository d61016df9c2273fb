// DatabaseQueue: one connection, all accesses serialized.

import Foundation

/// A database accessed through a single connection, one access at a time.
///
/// ```swift
/// let dbQueue = try DatabaseQueue(path: "/path/to/db.sqlite")
/// try dbQueue.write { db in
///     try db.execute(sql: "CREATE TABLE IF NOT EXISTS player (id INTEGER PRIMARY KEY, name TEXT)")
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let names = try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
/// ```
///
/// Use a queue for command-line tools, tests, and in-memory databases
/// (`DatabaseQueue()`). Use a ``DatabasePool`` when reads should run in
/// parallel with each other and with writes.
///
/// `DatabaseQueue` is `Sendable`: share one instance across your service.
/// Accesses from several threads or tasks run one after the other.
public final class DatabaseQueue: DatabaseWriter, ForeignCommitSource {
    /// The path of the database file, or `:memory:`.
    public let path: String

    /// The configuration the database was opened with.
    public let configuration: Configuration

    private let pool: ConnectionPool
    package let foreignCommitFeed: ForeignCommitFeed?

    /// Opens (and creates if needed) the database at `path`.
    ///
    /// The connection is opened at once, so a missing directory, a file that is
    /// not a database, or an unreadable file throws here, with the path in the
    /// error message.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(path: path, configuration: configuration, builtURI: false)
    }

    /// - parameter builtURI: whether `path` is a URI filename that Quarry
    ///   built (``init(named:configuration:)``), accepted whatever
    ///   ``Configuration/acceptsURIFilenames`` says.
    private init(path: String, configuration: Configuration, builtURI: Bool) throws {
        self.path = path
        self.configuration = configuration
        let instrumentation = Instrumentation(configuration: configuration, path: path, role: "queue")
        // Every connection, the first and any that replaces it after a fault
        // (ConnectionPool.swift), gets the journal mode: all but WAL last
        // only as long as the connection.
        let open: @Sendable () throws -> Database = {
            let connection = try Database(
                path: path, configuration: configuration, instrumentation: instrumentation, builtURI: builtURI)
            if let journalMode = configuration.journalMode, !configuration.readonly {
                try connection.execute(sql: "PRAGMA journal_mode = \(journalMode.rawValue)")
            }
            return connection
        }
        let connection = try open()
        pool = ConnectionPool(capacity: 1, description: "DatabaseQueue at \(path)", instrumentation: instrumentation, openConnection: open)
        pool.add(connection)
        let owner = WeakWriter()
        foreignCommitFeed = .sqlite(path: path, configuration: configuration) { owner.writer }
        owner.writer = self
    }

    /// Opens a new, empty in-memory database, private to this queue.
    public convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    /// Opens an in-memory database shared by every queue of this process
    /// opened with the same `name`
    /// (<https://www.sqlite.org/inmemorydb.html#sharedmemdb>).
    ///
    /// ```swift
    /// let dbQueue1 = try DatabaseQueue(named: "test-fixtures")
    /// let dbQueue2 = try DatabaseQueue(named: "test-fixtures")   // same data
    /// ```
    ///
    /// The database exists while at least one queue with that name is open,
    /// and is gone when the last one closes. Connections share one cache
    /// (SQLite's shared-cache mode), so a write waits for the other queues'
    /// reads (`SQLITE_LOCKED` after ``Configuration/busyTimeout``): meant for
    /// tests and fixtures, not for concurrent production access.
    public convenience init(named name: String, configuration: Configuration = Configuration()) throws {
        guard !name.isEmpty else {
            throw DatabaseError.misuse("DatabaseQueue(named:) needs a non-empty name")
        }
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        try self.init(path: "file:\(escaped)?mode=memory&cache=shared", configuration: configuration, builtURI: true)
    }

    deinit { pool.close() }

    /// Closes the connection. Later accesses throw a ``DatabaseError``.
    public func close() { pool.close() }

    /// Stops the statement that runs now; see ``DatabaseReader/interrupt()``.
    public func interrupt() { pool.interrupt() }

    /// Runs `block` with read-only access (`PRAGMA query_only`), in a
    /// transaction so that it sees one snapshot; see `DatabaseReader.read(_:)`.
    @discardableResult
    public func read<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "read") { db in try db.readOnly { try db.inReadTransaction(block) } }
    }

    /// Async `read(_:)`.
    @discardableResult
    public func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "read") { db in try db.readOnly { try db.inReadTransaction(block) } }
    }

    /// Runs `block` in an immediate transaction; see `DatabaseWriter.write(_:)`.
    @discardableResult
    public func write<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "write") { db in try db.inWriteTransaction(block) }
    }

    /// Async `write(_:)`.
    @discardableResult
    public func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "write") { db in try db.inWriteTransaction(block) }
    }

    /// Runs `block` outside of any transaction; see `DatabaseWriter.writeWithoutTransaction(_:)`.
    @discardableResult
    public func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "writeWithoutTransaction", block)
    }

    /// Async `writeWithoutTransaction(_:)`.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "writeWithoutTransaction", block)
    }
}

// MARK: - GRDB's DatabaseQueue spellings

extension DatabaseQueue {
    /// Runs `block` on the connection outside of any transaction, as GRDB's
    /// `inDatabase`: the same as the synchronous `writeWithoutTransaction(_:)`.
    ///
    /// ```swift
    /// try dbQueue.inDatabase { db in
    ///     try db.execute(sql: "VACUUM")
    /// }
    /// ```
    @discardableResult
    public func inDatabase<T>(_ block: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction(block)
    }

    /// Runs `block` in a transaction (`BEGIN IMMEDIATE` by default, as GRDB
    /// does for a writer), committing or rolling back as it returns; if it
    /// throws, the transaction is rolled back and the error rethrown.
    ///
    /// ```swift
    /// try dbQueue.inTransaction { db in
    ///     try db.execute(sql: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     return .commit
    /// }
    /// ```
    public func inTransaction(
        _ kind: TransactionKind = .immediate, _ block: (Database) throws -> TransactionCompletion
    ) throws {
        try writeWithoutTransaction { db in
            try db.inTransaction(kind) { try block(db) }
        }
    }
}

extension Database {
    /// Runs `block` with `PRAGMA query_only` set, restoring it afterwards
    /// (<https://www.sqlite.org/pragma.html#pragma_query_only>).
    func readOnly<T>(_ block: () throws -> T) throws -> T {
        try executeCached("PRAGMA query_only = 1")
        defer { try? executeCached("PRAGMA query_only = 0") }
        return try block()
    }
}
