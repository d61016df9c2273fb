// DatabasePool: a WAL database with one writer connection and parallel readers.

import Foundation

/// A database in WAL mode (<https://www.sqlite.org/wal.html>), accessed through
/// one writer connection and a bounded pool of reader connections.
///
/// Reads run in parallel with each other and with the write in progress, and
/// each read sees the database as of its start, with only committed data:
///
/// ```swift
/// let dbPool = try DatabasePool(path: "/var/lib/app/db.sqlite")
/// try await dbPool.write { db in
///     try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
/// }
/// let count = try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") }
/// ```
///
/// Writes are serialized by the pool and use `BEGIN IMMEDIATE`, so the pool's
/// own connections never make each other fail with `SQLITE_BUSY`. Other
/// processes and pools on the same file are waited for up to
/// ``Configuration/busyTimeout``.
///
/// A pool needs a file: an in-memory database throws. Use ``DatabaseQueue`` for those.
public final class DatabasePool: DatabaseWriter, ForeignCommitSource {
    /// The path of the database file.
    public let path: String

    /// The configuration the database was opened with.
    public let configuration: Configuration

    private let writer: ConnectionPool
    private let readers: ConnectionPool
    package let foreignCommitFeed: ForeignCommitFeed?

    /// Opens (and creates if needed) the database at `path`, and switches it to WAL mode.
    ///
    /// The writer connection is opened at once, so errors such as a missing
    /// directory or a file that is not a database throw here. Readers are
    /// opened when first needed, up to ``Configuration/maximumReaderCount``.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        if Database.isInMemory(path) {
            throw DatabaseError.misuse("DatabasePool needs a database file (WAL mode); use DatabaseQueue for \(path.isEmpty ? "a temporary database" : path)")
        }
        self.path = path
        self.configuration = configuration
        let writerInstrumentation = Instrumentation(configuration: configuration, path: path, role: "writer")
        let readerInstrumentation = Instrumentation(configuration: configuration, path: path, role: "reader")
        let connection = try Database(path: path, configuration: configuration, instrumentation: writerInstrumentation)
        if !configuration.readonly {
            let mode = try String.fetchOne(connection, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(
                    resultCode: .SQLITE_ERROR,
                    message: "could not switch the database at \(path) to WAL mode (journal_mode is \(mode ?? "unknown"))")
            }
        }
        writer = ConnectionPool(
            capacity: 1, description: "the writer of DatabasePool at \(path)", instrumentation: writerInstrumentation
        ) {
            try Database(path: path, configuration: configuration, instrumentation: writerInstrumentation)
        }
        writer.add(connection)
        readers = ConnectionPool(
            capacity: configuration.maximumReaderCount, description: "the readers of DatabasePool at \(path)",
            instrumentation: readerInstrumentation
        ) {
            try Database(path: path, configuration: configuration, readerOnly: true, instrumentation: readerInstrumentation)
        }
        let owner = WeakWriter()
        foreignCommitFeed = .sqlite(path: path, configuration: configuration) { owner.writer }
        owner.writer = self
    }

    deinit { close() }

    /// Closes all connections. Later accesses throw a ``DatabaseError``.
    public func close() {
        readers.close()
        writer.close()
    }

    /// Stops the statements that run now on the writer and on every reader;
    /// see ``DatabaseReader/interrupt()``.
    public func interrupt() {
        writer.interrupt()
        readers.interrupt()
    }

    /// Runs `block` on a reader connection, in a transaction that gives it a
    /// stable snapshot of committed data. Runs in parallel with other reads and
    /// with the current write.
    @discardableResult
    public func read<T>(_ block: (Database) throws -> T) throws -> T {
        try readers.withConnection(operation: "read") { db in try db.inReadTransaction(block) }
    }

    /// Async `read(_:)`.
    @discardableResult
    public func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.withConnection(operation: "read") { db in try db.inReadTransaction(block) }
    }

    /// Runs `block` on the writer connection in an immediate transaction.
    @discardableResult
    public func write<T>(_ block: (Database) throws -> T) throws -> T {
        try writer.withConnection(operation: "write") { db in try db.inPoolWriteTransaction(block) }
    }

    /// Async `write(_:)`.
    @discardableResult
    public func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.withConnection(operation: "write") { db in try db.inPoolWriteTransaction(block) }
    }

    /// Runs `block` on the writer connection, outside of any transaction.
    @discardableResult
    public func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try writer.withConnection(operation: "writeWithoutTransaction", block)
    }

    /// Async `writeWithoutTransaction(_:)`.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.withConnection(operation: "writeWithoutTransaction", block)
    }
}

extension Database {
    /// A pool's write: the transaction, then the checkpoint policy
    /// (``Configuration/checkpointPolicy``), after the commit.
    fileprivate func inPoolWriteTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        let result = try inWriteTransaction(block)
        checkpointIfDue(configuration.checkpointPolicy)
        return result
    }
}
