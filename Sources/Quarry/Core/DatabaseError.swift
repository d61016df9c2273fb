// DatabaseError: the error thrown when SQLite, PostgreSQL, or Quarry on their
// behalf, refuses an operation.

/// An error reported by SQLite (or PostgreSQL, through QuarryPostgres), with
/// the SQL that caused it.
///
/// ```swift
/// do {
///     try db.execute(sql: "INSERT INTO player (email) VALUES (?)", arguments: ["a@example.com"])
/// } catch let error as DatabaseError where error.isUniqueConstraintViolation {
///     // The email is taken.
/// }
/// ```
///
/// The statement arguments are kept out of the error unless
/// ``Configuration/publicStatementArguments`` is true, because they can hold
/// user data that must not reach logs.
///
/// Errors from PostgreSQL carry its five-character error code in ``sqlState``
/// (nil for SQLite), and the helpers such as ``isUniqueConstraintViolation``
/// answer for both databases. Their ``extendedResultCode`` is the closest
/// SQLite code (see ``sqlState``).
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code, such as `.SQLITE_CONSTRAINT`.
    public var resultCode: ResultCode { extendedResultCode.primaryResultCode }

    /// The extended result code, such as `.SQLITE_CONSTRAINT_UNIQUE`
    /// (<https://www.sqlite.org/rescode.html#extrc>).
    public let extendedResultCode: ResultCode

    /// SQLite's error message, or Quarry's for errors Quarry detects itself.
    public let message: String

    /// The SQL that failed, if any.
    public let sql: String?

    /// The arguments of the SQL, when ``Configuration/publicStatementArguments`` is set.
    public let arguments: StatementArguments?

    /// The SQLSTATE error code of a database server's error, such as
    /// PostgreSQL's `"23505"` for a unique violation; nil for SQLite errors
    /// and for errors Quarry detects itself.
    ///
    /// The ``extendedResultCode`` of a server's error is the closest SQLite
    /// code, and its ``categories`` say what it means: QuarryPostgres
    /// documents its table (`DatabaseError.init(sqlState:message:sql:arguments:constraintName:tableName:columnName:detail:)`).
    /// Test ``sqlState`` itself for anything finer.
    public let sqlState: String?

    /// What the error means, whatever the backend that reported it: the
    /// helpers such as ``isUniqueConstraintViolation`` and ``isBusy`` read
    /// it. Each backend classifies its own errors (SQLite from its result
    /// code, PostgreSQL from its SQLSTATE).
    public let categories: Set<Category>

    /// The backend named at the start of ``description``.
    private let backendName: String

    /// The constraint that a PostgreSQL error is about, as the server names
    /// it (`player_email_key`); nil for SQLite, whose messages name the
    /// columns instead.
    public let constraintName: String?

    /// The table that a PostgreSQL error is about, when the server names one
    /// (a constraint violation does); nil for SQLite.
    public let tableName: String?

    /// The column that a PostgreSQL error is about, when the server names
    /// one (a `NOT NULL` violation does); nil for SQLite.
    public let columnName: String?

    /// PostgreSQL's detail line (`Key (email)=(a@example.com) already
    /// exists.`), which can repeat the values of a row: kept only when
    /// ``Configuration/publicStatementArguments`` is true, as the arguments
    /// are; nil otherwise, and for SQLite.
    public let detail: String?

    /// Creates an error, as GRDB does: `DatabaseError(resultCode: .SQLITE_CONSTRAINT)`,
    /// `DatabaseError(message: "…")`.
    ///
    /// Thrown from a ``DatabaseFunction``, the error's code and message become
    /// those of the statement that called the function.
    ///
    /// - parameters:
    ///   - resultCode: the code; `SQLITE_ERROR` by default.
    ///   - message: the message; SQLite's text for the code when nil
    ///     (`"constraint failed"` for `SQLITE_CONSTRAINT`). Unlike GRDB's,
    ///     ``message`` is never nil.
    ///   - sql: the SQL that failed, if any.
    ///   - arguments: its arguments, if they may be shown.
    public init(
        resultCode: ResultCode = .SQLITE_ERROR, message: String? = nil, sql: String? = nil, arguments: StatementArguments? = nil
    ) {
        self.init(
            sqlState: nil, resultCode: resultCode, categories: DatabaseError.categories(forResultCode: resultCode),
            backendName: "SQLite", message: message ?? SQLiteConnection.resultCodeDescription(resultCode.rawValue),
            sql: sql, arguments: arguments)
    }

    /// Creates an error reported by a database server, classified by its
    /// backend: QuarryPostgres makes PostgreSQL's from their SQLSTATE.
    ///
    /// - parameters:
    ///   - sqlState: the server's five-character SQLSTATE, if it sent one.
    ///   - resultCode: the closest SQLite result code.
    ///   - categories: what the error means.
    ///   - backendName: the backend, named at the start of ``description``.
    ///   - message: the server's message.
    ///   - sql: the SQL that failed, if any.
    ///   - arguments: its arguments, if they may be shown.
    ///   - constraintName: the constraint the error is about, if any.
    ///   - tableName: the table the error is about, if any.
    ///   - columnName: the column the error is about, if any.
    ///   - detail: the server's detail line, if it may be shown.
    package init(
        sqlState: String?, resultCode: ResultCode, categories: Set<Category>, backendName: String, message: String,
        sql: String? = nil, arguments: StatementArguments? = nil,
        constraintName: String? = nil, tableName: String? = nil, columnName: String? = nil, detail: String? = nil
    ) {
        (extendedResultCode, self.message, self.sql, self.arguments) = (resultCode, message, sql, arguments)
        (self.sqlState, self.categories, self.backendName) = (sqlState, categories, backendName)
        (self.constraintName, self.tableName, self.columnName, self.detail) = (constraintName, tableName, columnName, detail)
    }

    /// Whether the error is a `UNIQUE` constraint violation (including a
    /// duplicate primary key; PostgreSQL's SQLSTATE `23505`).
    public var isUniqueConstraintViolation: Bool {
        categories.contains(.uniqueConstraintViolation)
    }

    /// Whether the error is a foreign key constraint violation (PostgreSQL's
    /// SQLSTATE `23503`).
    public var isForeignKeyViolation: Bool {
        categories.contains(.foreignKeyViolation)
    }

    /// Whether the error is a `NOT NULL` constraint violation (PostgreSQL's
    /// SQLSTATE `23502`).
    public var isNotNullConstraintViolation: Bool {
        categories.contains(.notNullConstraintViolation)
    }

    /// Whether the error is a `CHECK` constraint violation (PostgreSQL's
    /// SQLSTATE `23514`).
    public var isCheckConstraintViolation: Bool {
        categories.contains(.checkConstraintViolation)
    }

    /// Whether the error is any constraint violation (on PostgreSQL, any
    /// SQLSTATE of class `23`, integrity constraint violation).
    public var isConstraintViolation: Bool {
        categories.contains(.constraintViolation)
    }

    /// Whether another connection or process held a lock for longer than
    /// ``Configuration/busyTimeout`` (`SQLITE_BUSY` and its extended codes,
    /// <https://www.sqlite.org/rescode.html#busy>).
    ///
    /// The statement did not run; retrying later, or raising the timeout, may
    /// succeed. A transaction that was open may have been rolled back.
    /// On PostgreSQL: a serialization failure (`40001`), a deadlock
    /// (`40P01`) or a lock not available (`55P03`); the transaction was
    /// rolled back, and retrying it may succeed.
    public var isBusy: Bool { categories.contains(.busy) }

    /// Whether the error is a write refused because the connection or the
    /// file is read-only (`SQLITE_READONLY` and its extended codes): a
    /// database opened with ``Configuration/readonly``, a write inside a
    /// `read` access, or a file the process may not write.
    public var isReadOnly: Bool { categories.contains(.readOnly) }

    /// Whether the database could not grow: the disk is full, or the database
    /// reached its `PRAGMA max_page_count` (`SQLITE_FULL`,
    /// <https://www.sqlite.org/rescode.html#full>). SQLite may already have
    /// rolled back the open transaction (SQLite 3.40.1 does), so let the
    /// error leave the `write` closure rather than catching it inside.
    public var isDiskFull: Bool { categories.contains(.diskFull) }

    /// Whether the database file is damaged, or is not a database at all
    /// (`SQLITE_CORRUPT` and `SQLITE_NOTADB` with their extended codes,
    /// <https://www.sqlite.org/rescode.html#corrupt>).
    ///
    /// Quarry closes the connection that met it and opens another for the
    /// next access, so that nothing cached from the damaged file is reused.
    /// Retrying does not help: restore the file from a backup, or run
    /// `PRAGMA integrity_check` to see what is damaged. Always false on
    /// PostgreSQL (a server reports damage as `XX001`/`XX002`, kept in
    /// ``sqlState``).
    public var isCorrupt: Bool { categories.contains(.corrupt) }

    /// Whether the operating system failed to read, write, sync, truncate or
    /// lock the database file or its journal (`SQLITE_IOERR` and its
    /// extended codes, such as `SQLITE_IOERR_FSYNC`,
    /// <https://www.sqlite.org/rescode.html#ioerr>).
    ///
    /// The transaction was rolled back, or is rolled back when a new
    /// connection opens the file, unless ``isCommitOutcomeUnknown`` is also
    /// true: in WAL mode, a commit that fails this way may have reached the
    /// `-wal` file. Quarry closes the connection that met the error and
    /// opens another for the next access. A full disk is ``isDiskFull``
    /// instead. Always false on PostgreSQL, whose I/O errors are the server's.
    public var isIOError: Bool { categories.contains(.ioError) }

    /// Whether the error is a misuse of the API that Quarry or SQLite
    /// detected (`SQLITE_MISUSE`): a reentrant access, a closed database, a
    /// wrong number of statement arguments. It is a programming error, and
    /// retrying it fails the same way.
    public var isMisuse: Bool { categories.contains(.misuse) }

    /// Whether the connection to the database server failed or was lost
    /// (PostgreSQL's SQLSTATE class `08`, connection exception, and `57P01`
    /// to `57P03`: the server terminated the session, is shutting down, or
    /// is starting up). Always false for SQLite, which has no connection to
    /// lose.
    ///
    /// The connection is closed and never handed out again; a later access
    /// gets a new one. An access whose connection failed before its
    /// transaction began is retried once by the pool; see
    /// ``isCommitOutcomeUnknown`` for a failure during `COMMIT`.
    public var isConnectionError: Bool { categories.contains(.connectionLost) }

    /// Whether a commit failed in a way that leaves nobody able to tell
    /// whether the transaction was committed. Quarry never reports such a
    /// commit as a success and never runs it again: make the write
    /// idempotent, or check the database, before retrying.
    ///
    /// On PostgreSQL, the connection was lost while the server committed
    /// (SQLSTATE `08007`, transaction resolution unknown); also an
    /// ``isConnectionError``.
    ///
    /// On SQLite, a statement that commits (`COMMIT`, or a write outside a
    /// transaction) on a database in WAL mode failed with an I/O error: also
    /// an ``isIOError``, whose ``extendedResultCode`` (such as
    /// `SQLITE_IOERR_FSYNC`) and message are SQLite's. The transaction may
    /// already be in the `-wal` file. Connections that share the `-shm` file
    /// no longer see it, but the first connection to open the database after
    /// a crash, or a copy of the database and its `-wal` taken without the
    /// `-shm`, may replay it: both outcomes can happen. A later committed
    /// write settles it, as rolled back, once it overwrites those frames.
    public var isCommitOutcomeUnknown: Bool { categories.contains(.commitOutcomeUnknown) }

    /// This SQLite error, marked as an unknown commit outcome
    /// (``isCommitOutcomeUnknown``), with `message`; the codes and the SQL stay.
    package func withUnknownCommitOutcome(message: String) -> DatabaseError {
        var categories = categories
        categories.insert(.commitOutcomeUnknown)
        return DatabaseError(
            sqlState: sqlState, resultCode: extendedResultCode, categories: categories, backendName: backendName,
            message: message, sql: sql, arguments: arguments)
    }

    /// A sentence with the code, the message, the server's fields, and the SQL.
    public var description: String {
        var text: String
        if let sqlState {
            text = "\(backendName) error \(sqlState): \(message)"
            let fields = [
                constraintName.map { "constraint \($0)" }, tableName.map { "table \($0)" },
                columnName.map { "column \($0)" },
            ].compactMap { $0 }
            if !fields.isEmpty { text += " (\(fields.joined(separator: ", ")))" }
            if let detail { text += " \(detail)" }
        } else {
            text = "\(backendName) error \(extendedResultCode.rawValue): \(message)"
        }
        if let sql { text += " — while executing `\(sql)`" }
        if let arguments, !arguments.isEmpty { text += " with arguments \(arguments)" }
        return text
    }
}

extension DatabaseError {
    /// An error for a misuse of Quarry's API, detected before SQLite is called.
    package static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: message, sql: sql)
    }
}
