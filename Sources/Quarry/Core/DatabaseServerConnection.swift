// DatabaseServerConnection: the driver a database server backend implements
// (PostgreSQL's, in the QuarryPostgres target), under the execution seam.
//
// A driver only sends one statement with its values and returns its rows
// whole. ServerConnection.swift does the rest, the same for every server:
// rewriting raw SQL for the dialect, following transactions and change
// counts, reading the rows as copied Rows. A backend for another server
// implements this protocol and an `SQLDialect` (see the DocC article
// "Backends").

/// A connection to a database server, as `ServerConnection` drives it. Implemented by
/// backends of this package (QuarryPostgres); not public API.
///
/// A connection is used by one thread at a time (a `Database` is), and its
/// calls block: Quarry runs them on its own threads, never on an event loop.
package protocol DatabaseServerConnection: AnyObject {
    /// The SQL dialect of the server.
    var dialect: any SQLDialect { get }

    /// The catalog of the server: its introspection queries, the
    /// migrator's lock, its rowids and limits.
    var catalog: any DatabaseCatalog { get }

    /// The most values one statement binds.
    var boundValueLimit: Int { get }

    /// How the server is named in errors and logs (a URL without password).
    var serverDescription: String { get }

    /// The name of the database on the server (the `db.namespace` of spans).
    var databaseName: String { get }

    /// Whether the connection is still open: false once the server or the
    /// network closed it, or the driver closed it after a lost answer. Safe
    /// from any thread.
    var isUsable: Bool { get }

    /// This backend's error for a failure that `ServerConnection` detects
    /// in the server's answers: `.commitAnsweredWithRollback`, and
    /// `.commitOutcomeUnknown` (a lost connection too), with the backend's
    /// own code for it (PostgreSQL: `25P02`, `08007`).
    func error(_ category: DatabaseError.Category, message: String, sql: String?) -> DatabaseError

    /// Whether the server has `capability`: the features that a server may
    /// have or not (`RETURNING`, say); the features only SQLite has are
    /// never asked for.
    func supports(_ capability: DatabaseCapability) -> Bool

    /// Runs one statement, whose parameters are written in the dialect
    /// (`$1…$n`), with `arguments`, and returns its rows.
    func execute(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult

    /// Runs one query (its first keyword is `SELECT`, `VALUES` or `TABLE`)
    /// like ``execute(sql:arguments:)``, for its rows: the driver may keep
    /// it prepared on the connection (PostgreSQL's named statements). Its
    /// `rowsAffected` is its number of rows; its command tag may be empty.
    func query(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult

    /// Called when an access ended and left the connection outside any
    /// transaction, before the pool hands the connection out again: the
    /// driver may tidy up there (PostgreSQL's deallocates the prepared
    /// statements it evicted). A thrown error discards the connection.
    func accessDidEnd() throws

    /// The tables that a read statement, which just ran on this connection
    /// with `arguments`, reads, as the server plans it (views and subqueries
    /// down to their tables, lowercased), or nil when the server cannot tell
    /// (the region of an observed fetch is then the whole database). Called
    /// once per distinct statement while a value observation records the
    /// region of its fetch.
    func tablesRead(sql: String, arguments: [DatabaseValue]) throws -> Set<String>?

    /// Asks the server to stop the statement this connection runs now, if
    /// any, and returns at once (the request travels on its own connection).
    /// Safe from any thread. A statement that the request reaches stops with
    /// the server's "query canceled" error.
    func cancelRunningStatement()

    /// Closes the connection; later calls throw.
    func close()
}

extension DatabaseServerConnection {
    /// A driver that keeps no statement runs queries as any statement.
    package func query(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult {
        try execute(sql: sql, arguments: arguments)
    }

    /// A driver that keeps nothing between accesses has nothing to tidy.
    package func accessDidEnd() throws {}
}

/// The outcome of one statement run on a server.
package struct DatabaseServerResult: Sendable {
    /// The names of the result columns (empty for statements without rows).
    package var columnNames: [String]
    /// The rows, each with one value per column.
    package var rows: [[DatabaseValue]]
    /// The rows inserted, updated or deleted by the statement.
    package var rowsAffected: Int
    /// The command tag of the server's answer, without its counts (`INSERT`,
    /// `COMMIT`; PostgreSQL answers `ROLLBACK` to the `COMMIT` of a
    /// transaction that a failed statement aborted); empty when the driver
    /// does not tell.
    package var commandTag: String

    package init(columnNames: [String], rows: [[DatabaseValue]], rowsAffected: Int, commandTag: String = "") {
        self.columnNames = columnNames
        self.rows = rows
        self.rowsAffected = rowsAffected
        self.commandTag = commandTag
    }
}

extension Database {
    /// The driver of this connection when it is a server's (the backends
    /// check with it that a `Database` is theirs), or nil on SQLite.
    package var serverDriver: (any DatabaseServerConnection)? {
        (connection as? ServerConnection)?.driver
    }
}
