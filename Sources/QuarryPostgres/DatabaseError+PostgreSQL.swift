// DatabaseError+PostgreSQL: PostgreSQL's classification of its errors. A
// SQLSTATE code gives the closest SQLite result code and the categories that
// Quarry's shared code and the helpers of DatabaseError read; Quarry's own
// server failures (a commit answered with a rollback, an unknown commit
// outcome) get PostgreSQL's codes for them. Core never reads a SQLSTATE.

import Quarry

extension DatabaseError {
    /// Creates an error reported by PostgreSQL, with its SQLSTATE code and
    /// the fields the server sent. QuarryPostgres makes them; tests of code
    /// that handles them can too.
    ///
    /// The error's `DatabaseError.extendedResultCode` is the closest SQLite
    /// code: `23505` gives `SQLITE_CONSTRAINT_UNIQUE`, `23503`
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, `23502` `SQLITE_CONSTRAINT_NOTNULL`,
    /// `23514` `SQLITE_CONSTRAINT_CHECK`, the other codes of class 23
    /// `SQLITE_CONSTRAINT`; `40001` (serialization failure), `40P01`
    /// (deadlock) and `55P03` (lock not available) give `SQLITE_BUSY`; `25006`
    /// (read-only transaction) `SQLITE_READONLY`; `53100` (disk full)
    /// `SQLITE_FULL`; `57014` (query canceled) `SQLITE_INTERRUPT`; `22P02`
    /// (invalid text representation) and `42804` (datatype mismatch)
    /// `SQLITE_MISMATCH`; `3D000` (no such database), `08001` and `08004`
    /// (connection refused) and the class 28 (invalid authorization)
    /// `SQLITE_CANTOPEN`; `08P01` (protocol violation, such as a wrong number
    /// of arguments) `SQLITE_MISUSE`; the other codes of class 08 (connection
    /// exception) `SQLITE_IOERR`; any other code `SQLITE_ERROR`.
    ///
    /// Its `DatabaseError.categories` follow: class 08 and `57P01` to
    /// `57P03` (the server ended the session, is shutting down or starting)
    /// are `.connectionLost`, `08003` (connection
    /// does not exist: the statement was not sent) also
    /// `.notSent`, `08007` (transaction resolution
    /// unknown) also `.commitOutcomeUnknown`, and
    /// `25P02` (in failed transaction) answering a `COMMIT` is
    /// `.commitAnsweredWithRollback`. A server's I/O
    /// errors are its own: none is `.ioError` or
    /// `.corrupt`.
    ///
    /// - parameters:
    ///   - sqlState: the five-character SQLSTATE, such as `"23505"`.
    ///   - message: the server's message.
    ///   - sql: the SQL that failed, if any.
    ///   - arguments: its arguments, if they may be shown.
    ///   - constraintName: the constraint the error is about, if any.
    ///   - tableName: the table the error is about, if any.
    ///   - columnName: the column the error is about, if any.
    ///   - detail: the server's detail line, if it may be shown.
    public init(
        sqlState: String, message: String, sql: String? = nil, arguments: StatementArguments? = nil,
        constraintName: String? = nil, tableName: String? = nil, columnName: String? = nil, detail: String? = nil
    ) {
        self.init(
            sqlState: sqlState, resultCode: Self.resultCode(forSQLState: sqlState),
            categories: Self.categories(forSQLState: sqlState), backendName: "PostgreSQL", message: message,
            sql: sql, arguments: arguments,
            constraintName: constraintName, tableName: tableName, columnName: columnName, detail: detail)
    }

    /// The SQLite result code closest to a PostgreSQL SQLSTATE code (the
    /// table is in the documentation of the initializer above).
    static func resultCode(forSQLState sqlState: String) -> ResultCode {
        switch sqlState {
        case "23505": return .SQLITE_CONSTRAINT_UNIQUE
        case "23503": return .SQLITE_CONSTRAINT_FOREIGNKEY
        case "23502": return .SQLITE_CONSTRAINT_NOTNULL
        case "23514": return .SQLITE_CONSTRAINT_CHECK
        case "40001", "40P01", "55P03": return .SQLITE_BUSY
        case "25006": return .SQLITE_READONLY
        case "53100": return .SQLITE_FULL
        case "57014": return .SQLITE_INTERRUPT
        case "22P02", "42804": return .SQLITE_MISMATCH
        case "3D000", "08001", "08004": return .SQLITE_CANTOPEN
        case "08P01": return .SQLITE_MISUSE
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return .SQLITE_CONSTRAINT
        case "28": return .SQLITE_CANTOPEN
        case "08": return .SQLITE_IOERR
        default: return .SQLITE_ERROR
        }
    }

    /// What a PostgreSQL SQLSTATE code means (the list is in the
    /// documentation of the initializer above).
    static func categories(forSQLState sqlState: String) -> Set<Category> {
        var categories: Set<Category> = []
        switch sqlState {
        case "23505": categories.insert(.uniqueConstraintViolation)
        case "23503": categories.insert(.foreignKeyViolation)
        case "23502": categories.insert(.notNullConstraintViolation)
        case "23514": categories.insert(.checkConstraintViolation)
        case "40001", "40P01", "55P03": categories.insert(.busy)
        case "25006": categories.insert(.readOnly)
        case "53100": categories.insert(.diskFull)
        case "57014": categories.insert(.interrupted)
        case "22P02", "42804": categories.insert(.typeMismatch)
        case "3D000", "08001", "08004": categories.insert(.cannotOpen)
        case "08P01": categories.insert(.misuse)
        case "08003": categories.insert(.notSent)
        case "08007": categories.insert(.commitOutcomeUnknown)
        case "25P02": categories.insert(.commitAnsweredWithRollback)
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": categories.insert(.constraintViolation)
        case "28": categories.insert(.cannotOpen)
        case "08": categories.insert(.connectionLost)
        default: break
        }
        if ["57P01", "57P02", "57P03"].contains(sqlState) { categories.insert(.connectionLost) }
        return categories
    }

    /// PostgreSQL's error for a failure that Quarry's server connection
    /// detected (`DatabaseServerConnection.error(_:message:sql:)`).
    package static func postgresError(_ category: Category, message: String, sql: String?) -> DatabaseError {
        switch category {
        case .commitAnsweredWithRollback: return DatabaseError(sqlState: "25P02", message: message, sql: sql)
        case .commitOutcomeUnknown: return DatabaseError(sqlState: "08007", message: message, sql: sql)
        case .connectionLost: return DatabaseError(sqlState: "08006", message: message, sql: sql)
        default:
            // Another category: its SQLite code, named by the category.
            return DatabaseError(
                sqlState: nil, resultCode: .SQLITE_ERROR, categories: [category], backendName: "PostgreSQL",
                message: message, sql: sql)
        }
    }
}
