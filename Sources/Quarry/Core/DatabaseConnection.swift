// DatabaseConnection: the execution seam between Quarry and a backend.
//
// Everything Quarry runs goes through two small protocols. A connection
// (`DatabaseConnection`) prepares statements, runs scripts and reports the
// connection's state; a prepared statement (`PreparedStatement`) binds values
// and steps through rows. SQLite's connection (SQLite/SQLiteConnection.swift,
// whose statements are `Statement`) and a database server's
// (ServerConnection.swift) conform. The fetch entry points, the record plans (RecordCache.swift) and
// transactions are written once, over these protocols.
//
// The backend is chosen per statement, never per row: on SQLite, a fetch
// steps its `Statement` directly and reads columns with the readers cached on
// it (`RowReading.statement`), as fast as before the seam; a server returns
// its rows whole, read as copied `Row`s (`RowReading.row`).
//
// The other half of the seam is the dialect (SQL/SQLDialect.swift): every
// spelling decision. What a backend cannot do at all is a
// `DatabaseCapability`, refused by one check (`Database.require(_:_:)`).

/// A connection of a backend, as a `Database` uses it: SQLite's, or a
/// database server's. Not public API: a backend is a target of this package.
///
/// A connection is used by one thread at a time (its `Database` is), and its
/// calls block: Quarry runs them on its own threads, never on an event loop.
protocol DatabaseConnection: AnyObject {
    /// The SQL spelling of this backend.
    var dialect: any SQLDialect { get }

    /// What this backend answers about the database by asking it
    /// (introspection, the migrator's lock, rowids, limits).
    var catalog: any DatabaseCatalog { get }

    /// How the connection is named in errors and logs: a path, or a server
    /// URL without its password.
    var connectionDescription: String { get }

    /// Whether the backend supports `capability`.
    func supports(_ capability: DatabaseCapability) -> Bool

    /// One statement of `sql`, with `arguments` bound, ready to step; from a
    /// statement cache when the backend keeps one. Throws for SQL that holds
    /// no statement or several.
    func prepare(_ db: Database, sql: String, arguments: StatementArguments) throws -> any PreparedStatement

    /// One statement of `sql`, whose `parameterCount` `?` parameters are bound
    /// for each use (``PreparedStatement/bind(_:bindings:)``): a record plan
    /// keeps it for as long as the connection lives.
    func preparePlan(_ db: Database, sql: String, parameterCount: Int) throws -> any PreparedStatement

    /// Runs a script: one or several statements separated by semicolons,
    /// which consume positional arguments in order.
    func execute(_ db: Database, sql: String, arguments: StatementArguments) throws

    /// Runs a statement without arguments that returns no rows (transaction
    /// control runs on every read and write), through the statement cache.
    func executeCached(_ db: Database, sql: String) throws

    /// Called by the pool when an access ended, after its transaction was
    /// rolled back if it was left open: a server connection on which raw SQL
    /// ran outside Quarry's own transactions rolls back a transaction that
    /// SQL may have opened unseen. Nothing to do on SQLite, whose own flag
    /// tells whether a transaction is open (`isInsideTransaction`).
    func resetAfterAccess(_ db: Database) throws

    /// Whether the schema changed since the last call (false on the first),
    /// as far as the backend can tell (Database+SchemaVersion.swift).
    func schemaChanged(_ db: Database) throws -> Bool

    /// The most values one statement binds.
    var boundValueLimit: Int { get }

    /// The rowid of the last `INSERT`; 0 on a backend without rowids.
    var lastInsertedRowID: Int64 { get }

    /// The rows changed by the last statement.
    var changesCount: Int { get }

    /// The rows changed since the connection opened.
    var totalChangesCount: Int { get }

    /// Whether a transaction is open.
    var isInsideTransaction: Bool { get }

    /// Whether the connection may serve another access: false once a
    /// server connection was lost or closed, so that its pool closes it and
    /// opens a new one instead of handing it out again. Read by the pool
    /// between accesses, from any thread.
    var isReusable: Bool { get }

    /// Stops the statement running now, if any; returns at once. Safe from
    /// any thread while the connection is open.
    func interrupt()

    /// Told, from any thread, that the async access running on this
    /// connection was cancelled: SQLite's progress handler sees the
    /// cancellation on its own; a server needs a cancel request.
    func accessWasCancelled()

    /// Waits up to `milliseconds` in all for a lock that another connection
    /// holds, counting each wait in the metrics of `db`; 0 fails at once
    /// (Database+BusyHandler.swift). A server does nothing: it waits for its
    /// locks itself (PostgreSQL's `lock_timeout`).
    func setBusyWait(_ db: Database, milliseconds: Int32)

    /// Lets `monitor` stop the running statement (cancellation, time limit:
    /// Database+Interrupt.swift); nil stops watching. A server does nothing:
    /// a cancellation sends it a cancel request (`accessWasCancelled()`),
    /// and the time limit is its own (`statement_timeout`).
    func watchProgress(_ monitor: ProgressMonitor?)

    /// Reports the statements `db` runs as its trace options, logger and
    /// instrumentation now ask (Database+Trace.swift). A server does
    /// nothing: `ServerConnection.run` reports each statement it sends,
    /// whatever the options (`Database.observingServerStatement`).
    func updateTrace(_ db: Database)

    /// Calls `update` for each row changed in a table with rowids (SQLite's
    /// operation code, `SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE`:
    /// the raw values of `DatabaseEvent.Kind`; the database and table names;
    /// the rowid), `commit` before each commit (false turns it into a
    /// rollback) and `rollback` after each rollback, from now on
    /// (Observation/ObservationBroker.swift). A server does nothing: it has
    /// no such hooks, and observations follow its commits through their
    /// reader's feed (`Database.attachCommitObserver`).
    func observeChanges(update: @escaping (Int32, UnsafePointer<CChar>, UnsafePointer<CChar>, Int64) -> Void, commit: @escaping () -> Bool, rollback: @escaping () -> Void)

    /// Closes the connection; it runs nothing afterwards.
    func close()
}

/// One prepared statement of a backend: SQLite's `Statement`, or a statement
/// a server runs when it is first stepped (`ServerStatement`).
///
/// It is bound, stepped until it returns no more rows, and reset, then bound
/// again.
protocol PreparedStatement: AnyObject {
    /// The SQL of the statement, as the backend runs it.
    var sql: String { get }

    /// Whether the statement is between its first step and its reset: a
    /// cached statement in this state is not reused (a cursor iterates it).
    var isBusy: Bool { get }

    /// Binds `values[bindings[i]]` to the parameter `i + 1` (record plans).
    func bind(_ values: [DatabaseValue], bindings: [Int]) throws

    /// Advances to the next row: true if there is one, false at the end.
    func step() throws -> Bool

    /// Steps through every row, calling `body` on each, then resets.
    func forEachRow(_ body: () throws -> Void) throws

    /// Ends the current run, so that the statement holds no lock.
    func reset()

    /// Releases what the statement holds on the backend; it is not used
    /// afterwards. Called when its connection closes.
    func finalize()

    /// The function that reads the current row as `Result`, made once per
    /// run of the statement, before or after its first step.
    func reader<Result>(_ reading: RowReading<Result>) throws -> () throws -> Result
}

/// How to read each row of a statement as `Result`: `make` runs once per run
/// of the statement, given its rows as a ``RowSource`` (Core/RowSource.swift),
/// and the function it returns reads the source's current row.
struct RowReading<Result> {
    let make: (any RowSource) throws -> (any RowSource) throws -> Result

    init(_ make: @escaping (any RowSource) throws -> (any RowSource) throws -> Result) {
        self.make = make
    }
}

/// What a backend may not support. A backend declares what it supports
/// (`DatabaseConnection.supports(_:)`); `Database.require(_:_:)` refuses the
/// rest with one error shape.
package enum DatabaseCapability: Sendable, CaseIterable {
    /// `Statement`, `makeStatement(sql:)` and `cachedStatement(sql:)`.
    case preparedStatements
    /// FTS5 virtual tables (`create(virtualTable:using:)`).
    case fullTextSearch5
    /// Swift functions, aggregates and collations callable from SQL.
    case swiftFunctions
    /// The authorizer (`withAuthorizer`).
    case authorizer
    /// The trigger DSL (`create(trigger:)`).
    case triggerDSL
    /// WAL checkpoints.
    case walCheckpoints
    /// The online backup, `vacuum(into:)` and `erase()`.
    case backup
    /// Transaction observers and `ValueObservation`.
    case observation
    /// `foreignKeyViolations(in:)` and `checkForeignKeys()`.
    case foreignKeyCheck
    /// `hasSchemaChanges` and `eraseDatabaseOnSchemaChange` of the migrator.
    case schemaComparison
    /// The rowid of the last insert (`lastInsertedRowID`): records read the
    /// ids SQLite gives them from it. A backend without it returns them with
    /// `RETURNING`.
    case lastInsertedRowID
    /// `RETURNING` clauses: the `…AndFetch` methods of records and requests.
    /// SQLite (3.35 and later) and PostgreSQL have them; a MySQL-like
    /// backend would not.
    case returning

    /// How the refusal of a feature that needs this capability reads.
    fileprivate var refusal: String {
        switch self {
        case .returning: "needs RETURNING, which the backend of this connection does not have"
        // The others are SQLite's features, which no server backend has.
        default: "is SQLite-only"
        }
    }
}

extension Database {
    /// The SQL dialect of this connection (SQL/SQLDialect.swift).
    var sqlDialect: any SQLDialect { connection.dialect }

    /// The catalog of the connection's backend (SQL/DatabaseCatalog.swift).
    var catalog: any DatabaseCatalog { connection.catalog }

    /// Throws when this connection's backend does not support `capability`:
    /// the one check of every backend-specific feature. The error names
    /// `feature`, the API the caller used, and what the dialect suggests
    /// instead.
    @inline(__always)
    func require(_ capability: DatabaseCapability, _ feature: @autoclosure () -> String) throws {
        guard !connection.supports(capability) else { return }
        throw DatabaseError.unsupported(
            feature(), capability.refusal, by: connection.connectionDescription,
            alternative: connection.dialect.alternative(to: capability))
    }

    /// One statement of `sql`, with `arguments` bound, ready to step (see
    /// ``DatabaseConnection/prepare(_:sql:arguments:)``).
    @inline(__always)
    func prepared(sql: String, arguments: StatementArguments) throws -> any PreparedStatement {
        try connection.prepare(self, sql: sql, arguments: arguments)
    }
}

extension DatabaseError {
    /// The error of a feature the backend of a connection does not support.
    static func unsupported(_ feature: String, _ refusal: String, by connection: String, alternative: String?) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "\(feature) \(refusal); this connection is to \(connection)"
                + (alternative.map { ": use \($0)" } ?? ""))
    }
}

// MARK: - Fetching, written once over the seam

extension PreparedStatement {
    /// All rows, read with `reading`; the statement is reset.
    @inline(__always)
    func fetchAll<Result>(_ reading: RowReading<Result>) throws -> [Result] {
        let read = try reader(reading)
        var results: [Result] = []
        try forEachRow { results.append(try read()) }
        return results
    }

    /// The first row, read with `reading`, or nil; the statement is reset.
    @inline(__always)
    func fetchOne<Result>(_ reading: RowReading<Result>) throws -> Result? {
        defer { reset() }
        guard try step() else { return nil }
        return try reader(reading)()
    }

    /// A cursor over the rows, read with `reading`.
    func fetchCursor<Result>(_ reading: RowReading<Result>) throws -> StatementCursor<Result> {
        StatementCursor(prepared: self, read: try reader(reading))
    }
}

extension RowReading where Result == Row {
    /// Rows, copied.
    static var rows: RowReading<Row> {
        RowReading { source in
            let layout = RowLayout(columnNames: source.columnNames)
            return { Row($0, layout: layout) }
        }
    }
}

extension RowReading where Result: DatabaseValueConvertible {
    /// The value of the first column, which must not be `NULL`.
    static var firstColumn: RowReading<Result> {
        RowReading { _ in { try $0.decode(Result.self, at: 0) } }
    }
}

extension RowReading {
    /// The value of the first column, nil for `NULL`.
    static func optionalFirstColumn<Wrapped: DatabaseValueConvertible>() -> RowReading<Wrapped?> where Result == Wrapped? {
        RowReading<Wrapped?> { _ in { try $0.decodeIfPresent(Wrapped.self, at: 0) } }
    }
}
