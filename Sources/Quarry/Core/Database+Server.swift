// Running SQL on a database server connection (see DatabaseServerConnection.swift):
// raw SQL is rewritten for the server's dialect (parameters `$1…$n`, one
// statement at a time), its rows come back as copied Rows, and the
// transaction state is followed from the statements Quarry sends.

extension Database {
    /// The SQL dialect of this connection.
    package var sqlDialect: any SQLDialect { server?.dialect ?? SQLiteDialect() }

    /// Throws, on a server connection, that `feature` is SQLite's only.
    ///
    /// - parameter alternative: what to use instead, if anything.
    @inline(__always)
    func requireSQLite(_ feature: @autoclosure () -> String, alternative: @autoclosure () -> String? = nil) throws {
        guard let server else { return }
        throw DatabaseError.sqliteOnly(feature(), server: server.serverDescription, alternative: alternative())
    }

    /// Runs a script of one or several statements on the server; returns the
    /// result of the last one.
    @discardableResult
    func executeOnServer(sql: String, arguments: StatementArguments) throws -> DatabaseServerResult {
        guard let server else { throw DatabaseError.misuse("executeOnServer(sql:arguments:) on an SQLite connection") }
        let statements = try SQLScanner.serverStatements(sql, arguments, dialect: server.dialect)
        var last = DatabaseServerResult(columnNames: [], rows: [], rowsAffected: 0)
        for statement in statements {
            last = try runOnServer(server, sql: statement.sql, values: statement.values)
        }
        return last
    }

    /// The rows of one statement run on the server (rows share their layout).
    func serverRows(sql: String, arguments: StatementArguments) throws -> [Row] {
        guard let server else { throw DatabaseError.misuse("serverRows(sql:arguments:) on an SQLite connection") }
        let statements = try SQLScanner.serverStatements(sql, arguments, dialect: server.dialect)
        guard statements.count == 1, let statement = statements.first else {
            throw DatabaseError.misuse(
                statements.isEmpty ? "no statement to fetch from" : "fetching needs exactly one statement; got \(statements.count)",
                sql: sql)
        }
        return try runOnServer(server, sql: statement.sql, values: statement.values).copiedRows()
    }

    /// Runs one statement already written for the server (`$1…$n`), such as
    /// the cached statements of records (RecordCache.swift).
    func executeServerStatement(sql: String, values: [DatabaseValue]) throws -> DatabaseServerResult {
        guard let server else { throw DatabaseError.misuse("executeServerStatement(sql:values:) on an SQLite connection") }
        return try runOnServer(server, sql: sql, values: values)
    }

    private func runOnServer(
        _ server: any DatabaseServerConnection, sql: String, values: [DatabaseValue]
    ) throws -> DatabaseServerResult {
        let change = ServerTransactionChange(sql)
        if change == .savepoint, serverTransactionDepth == 0 {
            // SQLite starts a transaction at a savepoint; a server refuses it.
            throw DatabaseError.misuse("a savepoint on a database server must be inside a transaction", sql: sql)
        }
        // A cancelled async access sends no more statements (on SQLite, the
        // progress handler stops them). A rollback still runs.
        if progressMonitor.access?.isCancelled == true, !progressMonitor.isPaused, change != .end {
            throw CancellationError()
        }
        // trace(options:_:) reports the statements sent, as the server runs them.
        if traceOptions.contains(.statements) { traceHandler?(.statement(sql: sql)) }
        let start = traceOptions.contains(.profile) ? ContinuousClock.now : nil
        defer {
            if let start { traceHandler?(.profile(sql: sql, duration: ContinuousClock.now - start)) }
        }
        let result: DatabaseServerResult
        do {
            // The server connection's errors name the statement.
            result = try server.execute(sql: sql, arguments: values)
        } catch {
            // A failed COMMIT ends the transaction on a server too.
            if change == .end { serverTransactionDepth = 0 }
            throw error
        }
        if Self.mayChangeSchema(sql) {
            schemaCheckGeneration &+= 1
        }
        serverChangesCount = result.rowsAffected
        serverTotalChangesCount &+= result.rowsAffected
        switch change {
        case .begin: serverTransactionDepth = 1
        case .savepoint: serverTransactionDepth += 1
        case .release: serverTransactionDepth = max(1, serverTransactionDepth - 1)
        case .end: serverTransactionDepth = 0
        case .none: break
        }
        return result
    }
}

extension DatabaseServerResult {
    /// The rows, as Rows that share one layout.
    func copiedRows() -> [Row] {
        let layout = RowLayout(columnNames: columnNames)
        return rows.map { Row(layout: layout, databaseValues: $0) }
    }
}

extension Database {
    /// Whether a statement sent to a server may change the schema, read from
    /// its first keyword.
    static func mayChangeSchema(_ sql: String) -> Bool {
        guard let first = sql.split(whereSeparator: { $0.isWhitespace || $0 == ";" || $0 == "(" }).first else { return false }
        switch first.uppercased() {
        // ROLLBACK, and ROLLBACK TO: PostgreSQL's DDL is transactional.
        case "CREATE", "ALTER", "DROP", "COMMENT", "TRUNCATE", "ROLLBACK", "ABORT": return true
        default: return false
        }
    }
}

/// How a statement changes the transaction state of a server connection,
/// read from its first keywords.
enum ServerTransactionChange: Equatable {
    case begin, savepoint, release, end, none

    init(_ sql: String) {
        let words = sql.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).prefix(3).map { $0.uppercased() }
        switch words.first {
        case "BEGIN", "START": self = .begin
        case "SAVEPOINT": self = .savepoint
        case "RELEASE": self = .release
        case "COMMIT", "END", "ABORT": self = .end
        case "ROLLBACK":
            // ROLLBACK [TRANSACTION|WORK] TO [SAVEPOINT] name keeps the transaction.
            self = words.dropFirst().contains("TO") ? .none : .end
        default: self = .none
        }
    }
}

extension DatabaseError {
    /// The error of an SQLite-only feature used on a database server.
    static func sqliteOnly(_ feature: String, server: String, alternative: String?) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_MISUSE,
            message: "\(feature) is SQLite-only; this connection is to \(server)"
                + (alternative.map { ": use \($0)" } ?? ""))
    }
}
