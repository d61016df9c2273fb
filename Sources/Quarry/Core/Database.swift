// Database: one SQLite connection, with SQL execution and the statement cache.
//
// A Database is handed to the closures of DatabaseQueue and DatabasePool and is
// usable only inside them. It is not Sendable: SQLite connections are used by
// one thread at a time, and the queue and pool types guarantee that.

import Foundation
import Logging
import Tracing

/// A connection to an SQLite database.
///
/// You get a `Database` inside the closures of ``DatabaseQueue`` and
/// ``DatabasePool``; use it only there:
///
/// ```swift
/// try dbQueue.write { db in
///     try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
///     let id = db.lastInsertedRowID
/// }
/// ```
public final class Database {
    /// The path of the database file, or `:memory:`.
    public let path: String

    /// The configuration the connection was opened with.
    public let configuration: Configuration

    /// The SQLite connection handle, for direct use of the C API
    /// (<https://www.sqlite.org/c3ref/sqlite3.html>); nil on a connection to a
    /// database server (PostgreSQL), which has no SQLite handle.
    ///
    /// GRDB spells it the same, also optional.
    public let sqliteConnection: OpaquePointer?

    /// The backend this connection runs on, through the execution seam
    /// (DatabaseConnection.swift): SQLite's connection, or a server's.
    let connection: any DatabaseConnection

    /// Statements compiled by ``cachedStatement(sql:)``, keyed by SQL.
    private var statementCache: [String: Statement] = [:]

    /// The most statements kept in the cache; beyond that, an arbitrary idle
    /// one is evicted, so that generated SQL of unbounded variety cannot grow
    /// memory without limit.
    static let statementCacheCapacity = 512

    /// Receives trace events; see `Database+Trace.swift`.
    var traceHandler: ((TraceEvent) -> Void)?
    var traceOptions: TraceOptions = []

    private var isClosed = false

    /// The authorizer of `withAuthorizer` (Functions/), asked after Quarry's
    /// own (`StatementAuthorizer.swift`): SQLite's action code and names in,
    /// SQLite's answer out.
    var userAuthorizer: ((Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32)?

    /// What the authorizer learned about the statement being compiled.
    var compilingFacts = StatementFacts()

    /// Whether the authorizer disables the truncate optimization (set while a
    /// transaction observer is attached; see `StatementAuthorizer.swift`).
    var preventsTruncateOptimization = false

    /// Why the connection must not serve another access (a failed
    /// rollback, a corrupt file, an I/O error), or nil; see
    /// `discard(because:)` in Database+Transactions.swift.
    var discardReason: String?

    /// Whether its pool may hand the connection out again: nothing made it
    /// unsafe (``discardReason``), and the backend's connection still works
    /// (a server's may be lost).
    var isReusable: Bool { discardReason == nil && connection.isReusable }

    /// Follows statements and transactions for change observation
    /// (Observation/), once something observes this connection.
    var executionObserver: (any StatementExecutionObserver)?

    /// Whether `Statement.step()` calls `statementStarts` and `statementEnds`:
    /// true while the progress monitor or the execution observer needs them.
    /// One stored flag keeps the cost of a step without them to one load.
    var hasStatementHooks = false

    /// Moves on whenever a statement of this connection ends outside of a
    /// transaction (an autocommit statement, or the COMMIT or ROLLBACK that
    /// ended one), and when a statement that changes the schema (DDL, `ROLLBACK
    /// TO`) ends. RecordCache skips its `PRAGMA schema_version` check while it
    /// has not moved since a check made in the same transaction: no other
    /// connection can change the schema a transaction sees.
    var schemaCheckGeneration: UInt64 = 0

    /// Moves on each time `checkSchemaVersion()` notices a schema change
    /// (Database+SchemaVersion.swift): higher layers compare it to drop
    /// their caches.
    var schemaChangeCount: UInt64 = 0

    /// SQLite's check of `PRAGMA schema_version` (Database+SchemaVersion.swift).
    let sqliteSchemaVersionCheck = SQLiteSchemaVersionCheck()

    /// Whether the block of ``inTransaction(_:_:)`` is running: its
    /// transaction must still be open (see `checkTransactionNotAborted`).
    var isInsideTransactionBlock = false

    /// What the progress handler watches: the cancellation of the current
    /// async access and the statement time limit (`Database+Interrupt.swift`).
    let progressMonitor = ProgressMonitor()

    /// The busy timeout of the configuration, in milliseconds (0: none).
    var configuredBusyMilliseconds: Int32 = 0

    /// When the checkpoint policy last ran (`DispatchTime` nanoseconds; see
    /// `SQLite/Database+Checkpoint.swift`).
    var lastPolicyCheckpoint: UInt64 = DispatchTime.now().uptimeNanoseconds

    /// The spans and metrics of the pool this connection belongs to, if its
    /// configuration asks for them (`Instrumentation.swift`).
    let instrumentation: Instrumentation?

    /// The span context of the access that runs now, parent of statement spans.
    var accessContext: ServiceContext?

    /// The open spans of statements, by statement handle.
    var statementSpans: [OpaquePointer: StatementSpan] = [:]

    /// The span of the statement that ended last, still open (see
    /// `statementSpanEnds`).
    var finishedStatementSpan: (statement: OpaquePointer, entry: StatementSpan)?

    /// Per-connection caches of the record layer: table schemas, persistence
    /// statements and encoding layouts (see `Records/RecordCache.swift`).
    let recordCache = RecordCache()

    /// The serial queue on which the async APIs run this connection's work
    /// (see `ConnectionPool.withConnection(_:) async`). One queue per
    /// connection, rather than a global concurrent queue, gives each
    /// connection a thread of its own while it blocks in SQLite: a write is
    /// never queued behind reads waiting for a thread.
    let dispatchQueue = DispatchQueue(label: "Quarry.Database")

    /// Opens a connection and applies the configuration.
    ///
    /// - parameter readerOnly: opens the file read-only, as the reader
    ///   connections of a ``DatabasePool`` are.
    /// - parameter instrumentation: the pool's spans and metrics, if any.
    /// - parameter builtURI: whether `path` is a URI filename built by
    ///   Quarry itself (a named in-memory database), accepted whatever
    ///   ``Configuration/acceptsURIFilenames`` says.
    init(
        path: String, configuration: Configuration, readerOnly: Bool = false, instrumentation: Instrumentation? = nil,
        builtURI: Bool = false
    ) throws {
        self.path = path
        self.configuration = configuration
        self.instrumentation = instrumentation
        let handle = try SQLiteConnection.open(
            path: path, readOnly: configuration.readonly || readerOnly,
            acceptsURIFilenames: configuration.acceptsURIFilenames || builtURI)
        sqliteConnection = handle
        connection = SQLiteConnection(handle: handle, path: path)
        do {
            try setUp(handle, readerOnly: readerOnly)
        } catch let error as DatabaseError {
            close()
            throw DatabaseError(
                resultCode: error.extendedResultCode, message: "could not open database at \(path): \(error.message)",
                sql: error.sql)
        } catch {
            close()
            throw error
        }
    }

    /// A connection to a database server (see ServerConnection.swift): it
    /// has no SQLite handle.
    package convenience init(server: any DatabaseServerConnection, configuration: Configuration) throws {
        try self.init(server: server, configuration: configuration, instrumentation: nil)
    }

    /// A server connection with the spans and metrics of its pool, if any.
    init(server: any DatabaseServerConnection, configuration: Configuration, instrumentation: Instrumentation?) throws {
        path = server.serverDescription
        self.configuration = configuration
        self.instrumentation = instrumentation
        sqliteConnection = nil
        connection = ServerConnection(driver: server)
        // Of the configuration, `readonly`, the statement time limit and the
        // preparation steps apply to a server (`SET search_path`, say), in
        // the same order as on SQLite: the steps added with
        // `prepareDatabase(_:)`, then the `prepareDatabase` property. The
        // other options configure SQLite.
        do {
            if configuration.readonly, let sql = sqlDialect.readOnlySessionSQL {
                try execute(sql: sql)
            }
            if let limit = configuration.maximumStatementDuration {
                progressMonitor.statementLimit = Database.nanoseconds(limit)
                try setServerStatementTimeout(progressMonitor.statementLimit)
            }
            for step in configuration.preparationSteps { try step(self) }
            try configuration.prepareDatabase?(self)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the connection. Called when the owning queue or pool closes.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        endFinishedStatementSpan()
        for entry in statementSpans.values { entry.span.end() }
        statementSpans.removeAll()
        for statement in statementCache.values { statement.finalize() }
        statementCache.removeAll()
        recordCache.finalizeStatements()
        sqliteSchemaVersionCheck.finalize()
        connection.close()
    }

    // MARK: - Executing SQL

    /// Executes one or several SQL statements separated by semicolons.
    ///
    /// ```swift
    /// try db.execute(sql: """
    ///     CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    ///     INSERT INTO player (name) VALUES (?);
    ///     """, arguments: ["Arthur"])
    /// ```
    ///
    /// Positional arguments are consumed by the statements in order.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try connection.execute(self, sql: sql, arguments: arguments)
    }

    /// Compiles a single SQL statement.
    ///
    /// Throws if the SQL is invalid or holds more than one statement.
    public func makeStatement(sql: String) throws -> Statement {
        try require(.preparedStatements, "prepared statements (Statement)")
        return try compileStatement(sql: sql)
    }

    /// Returns a compiled statement for `sql`, compiling it only the first time.
    ///
    /// Quarry's own fetch and persistence methods go through this cache, so a
    /// query or an insert compiled once is reused for every later call with the
    /// same SQL on this connection. If the cached statement is in use by a
    /// cursor that is still iterating, a fresh statement is returned instead.
    /// When the schema changes (`PRAGMA schema_version`), the cache is emptied.
    public func cachedStatement(sql: String) throws -> Statement {
        // After a schema change, cached statements are dropped: their column
        // names and record layouts may no longer match (see RecordCache).
        do {
            try checkSchemaVersion()
        } catch let error as DatabaseError
            where error.isIOError || error.isCorrupt || error.isDiskFull || error.resultCode == .SQLITE_NOMEM
        {
            // The file or the machine failed: SQLite may have rolled the
            // transaction back, and the statement would only say so
            // (SQLITE_ABORT), not why. Thrown under the statement's SQL.
            throw DatabaseError(resultCode: error.extendedResultCode, message: error.message, sql: sql)
        } catch {
            // Anything else (a lock, a `withAuthorizer` scope that denies
            // the check's PRAGMA) concerns the statement too, which reports
            // it with its own SQL, or runs if it is allowed.
        }
        return try cachedStatementWithoutSchemaCheck(sql: sql)
    }

    /// ``cachedStatement(sql:)`` for statements that return no columns, such
    /// as `BEGIN` or `SAVEPOINT`: they need no check of the schema version.
    func cachedStatementWithoutSchemaCheck(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            if !statement.isBusy { return statement }
            return try makeStatement(sql: sql)
        }
        let statement = try makeStatement(sql: sql)
        if statementCache.count >= Database.statementCacheCapacity,
            let idle = statementCache.first(where: { !$0.value.isBusy })
        {
            statementCache.removeValue(forKey: idle.key)
        }
        statementCache[sql] = statement
        return statement
    }

    /// Removes every statement from the statement cache.
    ///
    /// Call it after changing something that compiled statements depend on in
    /// a way SQLite does not detect itself (SQLite recompiles statements on
    /// schema changes on its own).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    // MARK: - Connection state

    /// The rowid of the most recent successful `INSERT` on this connection
    /// (<https://www.sqlite.org/c3ref/last_insert_rowid.html>).
    ///
    /// A database server has no rowid: on a server connection this is always
    /// 0; use `RETURNING` (records do) to read generated keys.
    public var lastInsertedRowID: Int64 { connection.lastInsertedRowID }

    /// The number of rows changed by the most recent `INSERT`, `UPDATE` or
    /// `DELETE` (<https://www.sqlite.org/c3ref/changes.html>).
    public var changesCount: Int { connection.changesCount }

    /// The number of rows changed since the connection was opened
    /// (<https://www.sqlite.org/c3ref/total_changes.html>).
    public var totalChangesCount: Int { connection.totalChangesCount }

    /// Whether a transaction is open (<https://www.sqlite.org/c3ref/get_autocommit.html>).
    ///
    /// On a server connection: whether a transaction that Quarry's transaction
    /// methods, or a `BEGIN` run with ``execute(sql:arguments:)``, opened is
    /// still open.
    public var isInsideTransaction: Bool { connection.isInsideTransaction }

    // MARK: - Errors

    /// Makes a ``DatabaseError`` from the connection's current error state.
    ///
    /// An error that says the file is damaged (``DatabaseError/isCorrupt``)
    /// or the disk failed (``DatabaseError/isIOError``) discards the
    /// connection of a database file: its page cache, its locks and its
    /// journal state are no longer to be trusted, and a new connection reads
    /// the file afresh (and rolls back a journal that the failure left).
    /// An in-memory database lives only in its connection and is kept.
    func makeError(code: Int32, sql: String?, arguments: StatementArguments? = nil) -> DatabaseError {
        let error = SQLiteConnection.error(
            on: sqliteConnection, code: code, sql: sql,
            arguments: configuration.publicStatementArguments ? arguments : nil,
            explainsUntrustedFileLimits: configuration.acceptsUntrustedFiles)
        if error.isCorrupt || error.isIOError, !Database.isInMemory(path) {
            discard(because: "\(error)")
        }
        return error
    }

    /// Whether `path` opens a database that lives in memory rather than in a
    /// file: `:memory:`, a temporary database (empty path), or a URI
    /// filename `file::memory:` or with `mode=memory` (a named in-memory one).
    static func isInMemory(_ path: String) -> Bool {
        path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:")
            || (path.hasPrefix("file:") && path.contains("mode=memory"))
    }
}
