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
///
/// A connection that was lost is never handed out again (see
/// `ConnectionPool`). A `read` or `write` whose connection fails before its
/// transaction began (its `BEGIN` got no answer: the server restarted while
/// the connection sat idle) runs once more on a new connection; nothing of
/// the access ran, so nothing runs twice. A later failure is thrown.
package final class DatabaseServerPool: DatabaseWriter {
    /// How the server is named (a URL without password).
    package let path: String
    package let configuration: Configuration
    /// Internal, not private: tests reach its test seams.
    let pool: ConnectionPool

    /// Opens a first connection at once, so that a wrong address or password
    /// fails here rather than at the first access.
    ///
    /// - parameters:
    ///   - description: names the server in errors and ``path``.
    ///   - maximumConnectionCount: the most connections open at once.
    ///   - acquisitionTimeout: the longest an access waits for a connection
    ///     when all are in use, or nil for no limit.
    ///   - openConnection: opens one connection to the server.
    package init(
        description: String, maximumConnectionCount: Int, acquisitionTimeout: Duration? = nil, configuration: Configuration,
        openConnection: @escaping @Sendable () throws -> any DatabaseServerConnection
    ) throws {
        path = description
        self.configuration = configuration
        let first = try openConnection()
        let instrumentation = Instrumentation(
            configuration: configuration, path: description, role: "server",
            system: first.dialect.name.lowercased(), databaseName: first.databaseName)
        let open: @Sendable () throws -> Database = {
            try Database(server: openConnection(), configuration: configuration, instrumentation: instrumentation)
        }
        pool = ConnectionPool(
            capacity: maximumConnectionCount, description: "the connections to \(description)",
            instrumentation: instrumentation, acquisitionTimeout: acquisitionTimeout, openConnection: open)
        do {
            pool.add(try Database(server: first, configuration: configuration, instrumentation: instrumentation))
        } catch {
            first.close()
            throw error
        }
    }

    package func close() { pool.close() }

    /// Asks the server to stop the statements the pool's connections run
    /// now (each connection's `cancelRunningStatement()`).
    package func interrupt() { pool.interrupt() }

    /// Runs `block` in a read-only transaction that sees one snapshot of the
    /// database (as `DatabaseReader.read(_:)` says).
    @discardableResult
    package func read<T>(_ block: (Database) throws -> T) throws -> T {
        try retryingOnce { fresh in
            try pool.withConnection(operation: "read", fresh: fresh) { db in
                try ServerConnection.beginning(db) { try db.inServerReadTransaction(block) }
            }
        }
    }

    @discardableResult
    package func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await retryingOnce { fresh in
            try await pool.withConnection(operation: "read", fresh: fresh) { db in
                try ServerConnection.beginning(db) { try db.inServerReadTransaction(block) }
            }
        }
    }

    @discardableResult
    package func write<T>(_ block: (Database) throws -> T) throws -> T {
        try retryingOnce { fresh in
            try pool.withConnection(operation: "write", fresh: fresh) { db in
                try ServerConnection.beginning(db) { try db.inWriteTransaction(block) }
            }
        }
    }

    @discardableResult
    package func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await retryingOnce { fresh in
            try await pool.withConnection(operation: "write", fresh: fresh) { db in
                try ServerConnection.beginning(db) { try db.inWriteTransaction(block) }
            }
        }
    }

    /// Not retried: the closure may have done work of its own before its
    /// first statement failed.
    @discardableResult
    package func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.withConnection(operation: "writeWithoutTransaction", block)
    }

    @discardableResult
    package func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.withConnection(operation: "writeWithoutTransaction", block)
    }

    // MARK: - Retrying an access whose transaction never began

    /// Runs `access`, and once more on a newly opened connection (the lost
    /// one is closed on release, and other idle ones may have died with it)
    /// when its transaction never began.
    private func retryingOnce<T>(_ access: (_ fresh: Bool) throws -> T) throws -> T {
        do {
            return try access(false)
        } catch let failure as LostBeforeAnyAnswer {
            logRetry(failure.error)
            do {
                return try access(true)
            } catch let again as LostBeforeAnyAnswer {
                throw again.error
            }
        }
    }

    private func retryingOnce<T>(_ access: (_ fresh: Bool) async throws -> T) async throws -> T {
        do {
            return try await access(false)
        } catch let failure as LostBeforeAnyAnswer {
            logRetry(failure.error)
            do {
                return try await access(true)
            } catch let again as LostBeforeAnyAnswer {
                throw again.error
            }
        }
    }

    private func logRetry(_ error: DatabaseError) {
        configuration.logger?.warning(
            "The connection to \(path) was lost before the transaction began; retrying once on a new connection",
            metadata: ["error": "\(error.message)"])
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
