// ServerConnection: a database server's side of the execution seam
// (DatabaseConnection.swift), over the driver of a backend target
// (DatabaseServerConnection.swift: PostgreSQL's, in QuarryPostgres).
//
// Raw SQL is rewritten for the server's dialect (parameters `$1…$n`, one
// statement at a time); a statement runs when it is first stepped and its
// rows come back whole, read as copied Rows; the transaction state and the
// change counts are followed from the statements Quarry sends, since a
// server tells no SQLite-style autocommit flag.

/// A database server's connection, as the execution seam sees it.
final class ServerConnection: DatabaseConnection {
    /// The backend's driver.
    let driver: any DatabaseServerConnection

    /// The transactions and savepoints open on the server, as Quarry opened them.
    private var transactionDepth = 0
    private(set) var changesCount = 0
    private(set) var totalChangesCount = 0
    /// The tables each read statement reads, asked of the server once per
    /// statement while a fetch's region is recorded (`recordRead`).
    private var tablesReadBySQL: [String: Set<String>?] = [:]
    /// `Database.schemaCheckGeneration` at the last check of the schema.
    private var checkedGeneration: UInt64 = 0
    /// Set when a statement failed because the connection was lost: the
    /// pool then closes the connection instead of reusing it.
    private var isBroken = false
    /// Whether the open transaction began `READ ONLY` (a server pool's
    /// `read`): losing its `COMMIT` loses nothing.
    private var transactionIsReadOnly = false
    /// The statements that completed on this connection, successful or
    /// refused by the server: the server pool's retry compares it before and
    /// after an access, to tell whether the access failed before anything ran.
    private(set) var answeredStatementCount = 0
    /// The first statement that the server refused inside the open
    /// transaction (since its `BEGIN`, or the last `ROLLBACK TO`): PostgreSQL
    /// then aborts the transaction, and answers its `COMMIT` with `ROLLBACK`.
    /// Named in the error that `COMMIT` throws.
    private var failedStatementInTransaction: String?
    /// Set when SQL other than Quarry's own transaction control ran outside
    /// a transaction Quarry knows of (`writeWithoutTransaction`), or a
    /// transaction control statement failed: such SQL may have left the
    /// session inside a transaction that Quarry cannot see (a procedure, a
    /// form the keywords do not tell), so the connection sends `ROLLBACK`
    /// before it is handed out again (`resetAfterAccess`). Accesses that
    /// run in Quarry's own transactions (`read`, `write`) never set it.
    private var mayBeInsideUnknownTransaction = false

    init(driver: any DatabaseServerConnection) {
        self.driver = driver
    }

    var dialect: any SQLDialect { driver.dialect }
    var catalog: any DatabaseCatalog { driver.catalog }
    var boundValueLimit: Int { driver.boundValueLimit }
    var connectionDescription: String { driver.serverDescription }

    /// A server has none of SQLite's own features: each throws there.
    /// The driver tells (`RETURNING`, say): SQLite's own features it never has.
    func supports(_ capability: DatabaseCapability) -> Bool { driver.supports(capability) }

    /// A server has no schema version to read: the schema changed when this
    /// connection changed it or rolled back (see `run`).
    func schemaChanged(_ db: Database) throws -> Bool {
        guard checkedGeneration != db.schemaCheckGeneration else { return false }
        checkedGeneration = db.schemaCheckGeneration
        return true
    }

    var lastInsertedRowID: Int64 { 0 }
    var isInsideTransaction: Bool { transactionDepth > 0 }
    var isReusable: Bool { !isBroken && driver.isUsable }

    func prepare(_ db: Database, sql: String, arguments: StatementArguments) throws -> any PreparedStatement {
        let statements = try SQLScanner.serverStatements(sql, arguments, dialect: dialect)
        guard statements.count == 1, let statement = statements.first else {
            throw DatabaseError.misuse(
                statements.isEmpty ? "no statement to fetch from" : "fetching needs exactly one statement; got \(statements.count)",
                sql: sql)
        }
        return ServerStatement(db, self, sql: statement.sql, values: statement.values)
    }

    func preparePlan(_ db: Database, sql: String, parameterCount: Int) throws -> any PreparedStatement {
        // Plan SQL has one `?` per binding: the rewrite checks the count.
        let placeholders = StatementArguments(databaseValues: Array(repeating: .null, count: parameterCount))
        let statements = try SQLScanner.serverStatements(sql, placeholders, dialect: dialect)
        guard statements.count == 1, let statement = statements.first else {
            throw DatabaseError.misuse("a record statement must be one statement", sql: sql)
        }
        return ServerStatement(db, self, sql: statement.sql, values: [])
    }

    func execute(_ db: Database, sql: String, arguments: StatementArguments) throws {
        for statement in try SQLScanner.serverStatements(sql, arguments, dialect: dialect) {
            _ = try run(db, sql: statement.sql, values: statement.values)
        }
    }

    /// Quarry's own transaction control (Database+Transactions.swift).
    func executeCached(_ db: Database, sql: String) throws {
        _ = try run(db, sql: sql, values: [], isTransactionControl: true)
    }

    /// Sends `ROLLBACK` when SQL may have left the session inside a
    /// transaction Quarry does not know of (`mayBeInsideUnknownTransaction`).
    /// Outside a transaction, PostgreSQL answers it with a warning, not an
    /// error. Called by the pool when an access ends, after
    /// `Database.rollbackIfNeeded()`.
    func resetAfterAccess(_ db: Database) throws {
        guard !isBroken else { return }
        if mayBeInsideUnknownTransaction {
            try db.withoutStopping { _ = try run(db, sql: "ROLLBACK", values: [], isTransactionControl: true) }
        }
        guard transactionDepth == 0 else { return }
        try driver.accessDidEnd()
    }

    func interrupt() { driver.cancelRunningStatement() }

    func accessWasCancelled() { driver.cancelRunningStatement() }

    /// The server waits for its locks itself.
    func setBusyWait(_ db: Database, milliseconds: Int32) {}

    /// `run` stops on a cancel request; the time limit is the server's.
    func watchProgress(_ monitor: ProgressMonitor?) {}

    /// `run` reports each statement (`Database.observingServerStatement`).
    func updateTrace(_ db: Database) {}

    /// No hooks: observations follow the server's commits through their reader's feed.
    func observeChanges(update: @escaping (Int32, UnsafePointer<CChar>, UnsafePointer<CChar>, Int64) -> Void, commit: @escaping () -> Bool, rollback: @escaping () -> Void) {}

    func close() { driver.close() }

    /// Runs one statement written for the server (`$1…$n`) and follows the
    /// transaction state, the change counts and the schema changes.
    ///
    /// - parameter isTransactionControl: whether Quarry sends the statement
    ///   to open or end its own transaction or savepoint.
    /// - parameter asQuery: whether the statement is a query run for its
    ///   rows (`ServerStatement.isPlainQuery`): it then goes through the
    ///   driver's `query`, which may keep it prepared.
    func run(
        _ db: Database, sql: String, values: [DatabaseValue], isTransactionControl: Bool = false, asQuery: Bool = false
    ) throws -> DatabaseServerResult {
        let change = ServerTransactionChange(sql)
        try checkCanRun(db, sql: sql, change: change, isTransactionControl: isTransactionControl)
        if transactionDepth == 0, !isTransactionControl { mayBeInsideUnknownTransaction = true }
        let result: DatabaseServerResult
        do {
            // The driver's errors name the statement.
            result = try db.observingServerStatement(sql, values: values) {
                try asQuery
                    ? driver.query(sql: sql, arguments: values) : driver.execute(sql: sql, arguments: values)
            }
        } catch {
            throw failure(error, sql: sql, change: change)
        }
        answeredStatementCount &+= 1
        if Self.mayChangeSchema(sql) {
            db.schemaCheckGeneration &+= 1
            tablesReadBySQL.removeAll()
        }
        if change == .none, let observer = db.executionObserver, observer.isRecordingRegion {
            try recordRead(sql: sql, values: values, to: observer)
        }
        changesCount = result.rowsAffected
        totalChangesCount &+= result.rowsAffected
        try follow(change, of: sql, answeredWith: result.commandTag)
        return result
    }

    /// Throws before a statement is sent that must not run: a savepoint
    /// outside a transaction, `PREPARE TRANSACTION`, a statement of a
    /// cancelled access, or one that would run outside the transaction of
    /// an `inTransaction` block after that transaction ended under it.
    private func checkCanRun(_ db: Database, sql: String, change: ServerTransactionChange, isTransactionControl: Bool) throws {
        switch change {
        case .savepoint where transactionDepth == 0:
            // SQLite starts a transaction at a savepoint; a server refuses it.
            throw DatabaseError.misuse("a savepoint on a database server must be inside a transaction", sql: sql)
        case .prepareTransaction:
            throw DatabaseError.misuse(
                "PREPARE TRANSACTION is not supported on the connections of \(connectionDescription): the session would "
                    + "leave the transaction while it stays open on the server, and a pooled connection cannot tell; "
                    + "run two-phase commits on a PostgresSession of your own", sql: sql)
        default: break
        }
        // A cancelled async access sends no more statements (on SQLite, the
        // progress handler stops them). A rollback still runs.
        if db.progressMonitor.access?.isCancelled == true, !db.progressMonitor.isPaused, !change.endsTransaction {
            throw CancellationError()
        }
        // As SQLite's `checkTransactionNotAborted` does: the block's
        // statements would otherwise each commit on their own.
        if db.isInsideTransactionBlock, transactionDepth == 0, !isTransactionControl, change != .begin {
            throw DatabaseError(
                resultCode: .SQLITE_ABORT,
                message: "the transaction of this inTransaction block was rolled back or ended before its closure returned; "
                    + "this statement would run outside of it, committed on its own, so it is refused",
                sql: sql)
        }
    }

    /// The error to throw for a statement that failed, after noting what the
    /// failure did to the connection and its transaction.
    private func failure(_ error: any Error, sql: String, change: ServerTransactionChange) -> any Error {
        if change.endsTransaction {
            // A failed COMMIT ends the transaction on a server too. Whether
            // a chained one opened is not told: roll back on release.
            transactionDepth = 0
            failedStatementInTransaction = nil
            mayBeInsideUnknownTransaction = true
        } else if change != .none {
            mayBeInsideUnknownTransaction = true
        }
        guard let error = error as? DatabaseError else { return error }
        guard error.isConnectionError else {
            // The server answered, with an error, which aborted the open transaction.
            answeredStatementCount &+= 1
            if transactionDepth > 0, failedStatementInTransaction == nil { failedStatementInTransaction = sql }
            return error
        }
        isBroken = true
        return Self.outcomeUnknown(
            error, sql: sql, change: change, insideTransaction: transactionDepth > 0, readOnly: transactionIsReadOnly,
            server: driver) ?? error
    }

    /// Follows the transaction state after a statement succeeded, and throws
    /// when the server answered a `COMMIT` with `ROLLBACK`.
    private func follow(_ change: ServerTransactionChange, of sql: String, answeredWith commandTag: String) throws {
        switch change {
        case .begin:
            transactionDepth = 1
            transactionIsReadOnly = sql == dialect.beginReadOnlyTransactionSQL
            failedStatementInTransaction = nil
        case .savepoint: transactionDepth += 1
        case .release: transactionDepth = max(1, transactionDepth - 1)
        case .rollbackToSavepoint: failedStatementInTransaction = nil
        case .commit, .commitAndChain, .rollback, .rollbackAndChain, .prepareTransaction:
            let failed = failedStatementInTransaction
            let chains = change == .commitAndChain || change == .rollbackAndChain
            transactionDepth = chains ? 1 : 0
            failedStatementInTransaction = nil
            if !chains { mayBeInsideUnknownTransaction = false }
            if change.commits, commandTag == "ROLLBACK" {
                throw Self.commitRolledBack(failedStatement: failed, sql: sql, server: driver)
            }
        case .none: break
        }
    }

    /// The error of a `COMMIT` that the server answered with `ROLLBACK`: a
    /// statement of the transaction failed, and PostgreSQL aborted the whole
    /// transaction then, even though the error was caught.
    static func commitRolledBack(
        failedStatement: String?, sql: String, server: any DatabaseServerConnection
    ) -> DatabaseError {
        let cause = failedStatement.map { "the statement `\($0)` failed in it" } ?? "a statement failed in it"
        return server.error(
            .commitAnsweredWithRollback,
            message: "\(server.serverDescription) rolled the transaction back instead of committing it, because \(cause): "
                + "PostgreSQL aborts a whole transaction at its first error, even when the error is caught, "
                + "so nothing of the transaction was saved. Let the error propagate out of the transaction, "
                + "or run the statement whose failure you handle inside db.inSavepoint { … }",
            sql: sql)
    }

    /// Tells `observer` the tables that the read statement `sql` read, asked
    /// of the server the first time (a statement that is no query reads no
    /// table of a fetch's region).
    private func recordRead(sql: String, values: [DatabaseValue], to observer: any StatementExecutionObserver) throws {
        guard Self.isQuery(sql) else { return }
        if let tables = tablesReadBySQL[sql] {
            observer.serverStatementDidRead(tables: tables)
            return
        }
        let tables: Set<String>?
        do {
            tables = try driver.tablesRead(sql: sql, arguments: values)
        } catch let error as DatabaseError where error.isConnectionError {
            isBroken = true
            throw error
        }
        if tablesReadBySQL.count >= 512 { tablesReadBySQL.removeAll() }
        tablesReadBySQL[sql] = tables
        observer.serverStatementDidRead(tables: tables)
    }

    /// Whether a statement is a query whose count is its rows, read from its
    /// first keyword (`WITH` may lead a write, whose count is not its rows).
    static func isPlainQuery(_ sql: String) -> Bool {
        let first = SQLScanner.leadingKeywords(sql, count: 1).first
        return first == "SELECT" || first == "VALUES" || first == "TABLE"
    }

    /// Whether a statement is a query, read from its first keyword.
    static func isQuery(_ sql: String) -> Bool {
        let first = sql.drop(while: { $0.isWhitespace || $0 == "(" }).prefix(while: { $0.isLetter }).uppercased()
        return first == "SELECT" || first == "WITH" || first == "VALUES" || first == "TABLE"
    }

    /// The error of a write whose answer was lost with the connection, so
    /// that nobody can tell whether the server committed it: a `COMMIT`,
    /// and a statement that ran outside a transaction (autocommit), which
    /// the server commits on its own. Nil when the outcome is known: the
    /// statement was never sent (the connection was known closed:
    /// `.notSent`), or it ran inside a transaction that had not reached its
    /// `COMMIT` (the server rolled it back when the connection ended), or it
    /// was a plain query (`SELECT`, `VALUES`, `TABLE`, `SHOW`, `EXPLAIN`),
    /// or the `COMMIT` of a read-only transaction, which had nothing to
    /// commit: those throw the plain connection error.
    static func outcomeUnknown(
        _ error: DatabaseError, sql: String, change: ServerTransactionChange, insideTransaction: Bool, readOnly: Bool,
        server: any DatabaseServerConnection
    ) -> DatabaseError? {
        guard !error.categories.contains(.notSent) else { return nil }
        let what: String
        switch change {
        case .commit, .commitAndChain:
            guard !readOnly else { return nil }
            what = "during COMMIT, so the transaction may or may not have been committed"
        case .none where !insideTransaction:
            let first = SQLScanner.leadingKeywords(sql, count: 1).first
            guard !["SELECT", "VALUES", "TABLE", "SHOW", "EXPLAIN"].contains(first) else { return nil }
            what = "while a statement ran outside of any transaction, which the server commits on its own, "
                + "so it may or may not have been committed"
        default:
            return nil
        }
        return server.error(.commitOutcomeUnknown, message: "the connection was lost \(what): \(error.message)", sql: sql)
    }

    /// Whether a statement sent to a server may change the schema, read from
    /// its first keyword.
    static func mayChangeSchema(_ sql: String) -> Bool {
        // The first keyword only, after white space and comments: splitting
        // the whole text cost a tenth of a write's time (a profile of
        // `quarry-bench --postgres`, workload 5).
        guard let first = SQLScanner.leadingKeywords(sql, count: 1).first else { return false }
        switch first {
        // ROLLBACK, and ROLLBACK TO: PostgreSQL's DDL is transactional.
        case "CREATE", "ALTER", "DROP", "COMMENT", "TRUNCATE", "ROLLBACK", "ABORT": return true
        default: return false
        }
    }
}

/// Thrown out of an access whose connection was lost before the server
/// answered any statement of it: its `BEGIN` failed, so its closure never
/// ran, and the server pool may run it again (DatabaseServerPool.swift).
struct LostBeforeAnyAnswer: Error {
    var error: DatabaseError
}

extension ServerConnection {
    /// Runs `body`, a transaction on `db`, and throws ``LostBeforeAnyAnswer``
    /// instead of a connection error met before the server answered any of
    /// its statements.
    static func beginning<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let connection = db.connection as? ServerConnection
        let answered = connection?.answeredStatementCount
        do {
            return try body()
        } catch let error as DatabaseError where error.isConnectionError && connection?.answeredStatementCount == answered {
            throw LostBeforeAnyAnswer(error: error)
        }
    }
}

/// A statement on a server: it runs when first stepped (or read), and its
/// rows, returned whole, are read through one ``RowBuffer`` that holds the
/// current row.
final class ServerStatement: PreparedStatement {
    /// The connection it runs on (strong, as `Statement`'s is: a cursor may
    /// outlive the closure that made it; RecordCache drops its plans when
    /// the connection closes).
    private let db: Database
    private let connection: ServerConnection
    let sql: String
    /// Whether the statement is a query whose count is its rows
    /// (`ServerConnection.isPlainQuery`), which the driver may keep prepared.
    private let isPlainQuery: Bool
    private var values: [DatabaseValue]
    private var result: DatabaseServerResult?
    /// The current row, as readers read it (Core/RowSource.swift).
    private let buffer: RowBuffer
    /// The index of the current row in `result`.
    private var index = -1

    init(_ db: Database, _ connection: ServerConnection, sql: String, values: [DatabaseValue]) {
        self.db = db
        self.connection = connection
        self.sql = sql
        isPlainQuery = ServerConnection.isPlainQuery(sql)
        self.values = values
        buffer = RowBuffer(columnNames: [], sql: sql)
    }

    var isBusy: Bool { result != nil }

    func bind(_ values: [DatabaseValue], bindings: [Int]) throws {
        reset()
        self.values = bindings.map { values[$0] }
    }

    /// The result of the statement, which runs on the first call of a run.
    @discardableResult
    private func run() throws -> DatabaseServerResult {
        if let result { return result }
        let result = try connection.run(db, sql: sql, values: values, asQuery: isPlainQuery)
        self.result = result
        buffer.setColumnNames(result.columnNames)
        buffer.values = []
        index = -1
        return result
    }

    func step() throws -> Bool {
        let rows = try run().rows
        guard index + 1 < rows.count else {
            index = rows.count
            return false
        }
        index += 1
        buffer.values = rows[index]
        return true
    }

    func forEachRow(_ body: () throws -> Void) throws {
        defer { reset() }
        while try step() { try body() }
    }

    func reset() {
        result = nil
        buffer.values = []
        index = -1
    }

    /// A server statement holds nothing on the server between runs.
    func finalize() { reset() }

    /// Reads the current row from the buffer; a decoding error names the
    /// statement.
    func reader<Result>(_ reading: RowReading<Result>) throws -> () throws -> Result {
        // Without rows, the server may not name the columns: no reader is
        // made, and there is no row for one to read.
        let buffer = buffer
        let read = try run().rows.isEmpty ? nil : RowDecodingError.naming(sql, try reading.make(buffer))
        return {
            guard let read, let rows = self.result?.rows, rows.indices.contains(self.index) else {
                throw DatabaseError.misuse("no current row to read", sql: self.sql)
            }
            return try read(buffer)
        }
    }
}
