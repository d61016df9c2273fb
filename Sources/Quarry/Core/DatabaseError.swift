// DatabaseError: the error thrown when SQLite, or Quarry on its behalf, refuses an operation.

import CSQLite

/// An error reported by SQLite, with the SQL that caused it.
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

    /// Creates an error.
    public init(resultCode: ResultCode, message: String, sql: String? = nil, arguments: StatementArguments? = nil) {
        self.extendedResultCode = resultCode
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// Whether the error is a `UNIQUE` constraint violation (including a
    /// duplicate primary key).
    public var isUniqueConstraintViolation: Bool {
        extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
    }

    /// Whether the error is a foreign key constraint violation.
    public var isForeignKeyViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY }

    /// Whether the error is a `NOT NULL` constraint violation.
    public var isNotNullConstraintViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL }

    /// Whether the error is a `CHECK` constraint violation.
    public var isCheckConstraintViolation: Bool { extendedResultCode == .SQLITE_CONSTRAINT_CHECK }

    /// Whether the error is any constraint violation.
    public var isConstraintViolation: Bool { resultCode == .SQLITE_CONSTRAINT }

    /// Whether another connection or process held a lock for longer than
    /// ``Configuration/busyTimeout`` (`SQLITE_BUSY` and its extended codes,
    /// <https://www.sqlite.org/rescode.html#busy>).
    ///
    /// The statement did not run; retrying later, or raising the timeout, may
    /// succeed. A transaction that was open may have been rolled back.
    public var isBusy: Bool { resultCode == .SQLITE_BUSY }

    /// Whether the error is a write refused because the connection or the
    /// file is read-only (`SQLITE_READONLY` and its extended codes): a
    /// database opened with ``Configuration/readonly``, a write inside a
    /// `read` access, or a file the process may not write.
    public var isReadOnly: Bool { resultCode == .SQLITE_READONLY }

    /// Whether the database could not grow: the disk is full, or the database
    /// reached its `PRAGMA max_page_count` (`SQLITE_FULL`,
    /// <https://www.sqlite.org/rescode.html#full>). SQLite may already have
    /// rolled back the open transaction (SQLite 3.40.1 does), so let the
    /// error leave the `write` closure rather than catching it inside.
    public var isDiskFull: Bool { resultCode == .SQLITE_FULL }

    /// Whether the error is a misuse of the API that Quarry or SQLite
    /// detected (`SQLITE_MISUSE`): a reentrant access, a closed database, a
    /// wrong number of statement arguments. It is a programming error, and
    /// retrying it fails the same way.
    public var isMisuse: Bool { resultCode == .SQLITE_MISUSE }

    /// A sentence with the code, the message, and the SQL.
    public var description: String {
        var text = "SQLite error \(extendedResultCode.rawValue): \(message)"
        if let sql { text += " — while executing `\(sql)`" }
        if let arguments, !arguments.isEmpty { text += " with arguments \(arguments)" }
        return text
    }
}

extension DatabaseError {
    /// An error for a misuse of Quarry's API, detected before SQLite is called.
    static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_MISUSE, message: message, sql: sql)
    }
}
