// DatabaseServerPool: the DatabaseWriter of a database server — a pool of
// server connections with the read and write semantics of DatabasePool.
//
// The backends' public types (QuarryPostgres's PostgresDatabasePool) wrap it
// and give only the connections. Accesses use the same ConnectionPool as the
// SQLite queue and pool: sync callers block, async callers suspend, and work
// runs on each connection's own thread, never on the caller's task thread or
// on an event loop.

import Foundation

/// A pool of connections to a database server that reads in read-only
/// snapshot transactions and writes in transactions.
package final class DatabaseServerPool: DatabaseWriter {
    /// How the server is named (a URL without password).
    package let path: String
    package let configuration: Configuration
    private let pool: ConnectionPool

    /// Opens a first connection at once, so that a wrong address or password
    /// fails here rather than at the first access.
    ///
    /// - parameters:
    ///   - description: names the server in errors and ``path``.
    ///   - maximumConnectionCount: the most connections open at once.
    ///   - openConnection: opens one connection to the server.
    package init(
        description: String, maximumConnectionCount: Int, configuration: Configuration,
        openConnection: @escaping @Sendable () throws -> any DatabaseServerConnection
    ) throws {
        path = description
        self.configuration = configuration
        let open: @Sendable () throws -> Database = {
            try Database(server: openConnection(), configuration: configuration)
        }
        pool = ConnectionPool(capacity: maximumConnectionCount, description: "the connections to \(description)", openConnection: open)
        pool.add(try open())
    }

    package func close() { pool.close() }

    /// Asks the server to stop the statements the pool's connections run
    /// now (each connection's `cancelRunningStatement()`).
    package func interrupt() { pool.interrupt() }

    /// Runs `block` in a read-only transaction that sees one snapshot of the
    /// database (as `DatabaseReader.read(_:)` says).
    @discardableResult
    package func read<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "read") { db in try db.inServerReadTransaction(block) }
    }

    @discardableResult
    package func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "read") { db in try db.inServerReadTransaction(block) }
    }

    @discardableResult
    package func write<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "write") { db in try db.inWriteTransaction(block) }
    }

    @discardableResult
    package func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "write") { db in try db.inWriteTransaction(block) }
    }

    @discardableResult
    package func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "writeWithoutTransaction", block)
    }

    @discardableResult
    package func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "writeWithoutTransaction", block)
    }
}


extension Database {
    /// Runs `block` in a read-only snapshot transaction on the server, which
    /// always ends (the body of a server pool's `read`).
    func inServerReadTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        if isInsideTransaction {
            throw DatabaseError.misuse("a read cannot start inside a transaction left open on \(path)")
        }
        try executeCached(sqlDialect.beginReadOnlyTransactionSQL)
        let result: T
        do {
            result = try block(self)
        } catch {
            rollbackIfNeeded()
            throw error
        }
        if isInsideTransaction { try executeCached("COMMIT TRANSACTION") }
        return result
    }
}
