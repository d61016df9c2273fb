// Tests of PostgreSQL's classification of its errors
// (Sources/QuarryPostgres/DatabaseError+PostgreSQL.swift): a SQLSTATE gives
// the closest SQLite result code and the categories the helpers read, and
// the errors Quarry's server connection detects get PostgreSQL's codes.
// No server needed.

import Foundation
import Quarry
@testable import QuarryPostgres
import Testing

@Suite struct DatabaseErrorPostgreSQLTests {    @Test(arguments: [
        // (SQLSTATE, unique, foreign key, not null, check, any constraint)
        ("23505", true, false, false, false, true),
        ("23503", false, true, false, false, true),
        ("23502", false, false, true, false, true),
        ("23514", false, false, false, true, true),
        ("23P01", false, false, false, false, true),
        ("23000", false, false, false, false, true),
        ("23001", false, false, false, false, true),
        ("42P01", false, false, false, false, false),
        ("40001", false, false, false, false, false),
        ("XX000", false, false, false, false, false),
    ])
    func postgresHelpersAnswerFromTheSQLState(
        sqlState: String, unique: Bool, foreignKey: Bool, notNull: Bool, check: Bool, constraint: Bool
    ) {
        let error = DatabaseError(sqlState: sqlState, message: "m", sql: "SELECT 1")
        #expect(error.sqlState == sqlState)
        #expect(error.message == "m")
        #expect(error.sql == "SELECT 1")
        #expect(error.isUniqueConstraintViolation == unique)
        #expect(error.isForeignKeyViolation == foreignKey)
        #expect(error.isNotNullConstraintViolation == notNull)
        #expect(error.isCheckConstraintViolation == check)
        #expect(error.isConstraintViolation == constraint)
        // The result code agrees with the helpers, so that `catch` clauses on
        // result codes work for both databases.
        #expect((error.resultCode == .SQLITE_CONSTRAINT) == constraint)
    }

    @Test(arguments: [
        ("23505", ResultCode.SQLITE_CONSTRAINT_UNIQUE),
        ("23503", .SQLITE_CONSTRAINT_FOREIGNKEY),
        ("23502", .SQLITE_CONSTRAINT_NOTNULL),
        ("23514", .SQLITE_CONSTRAINT_CHECK),
        ("23P01", .SQLITE_CONSTRAINT),
        ("40001", .SQLITE_BUSY),
        ("40P01", .SQLITE_BUSY),
        ("55P03", .SQLITE_BUSY),
        ("25006", .SQLITE_READONLY),
        ("53100", .SQLITE_FULL),
        ("57014", .SQLITE_INTERRUPT),
        ("22P02", .SQLITE_MISMATCH),
        ("42804", .SQLITE_MISMATCH),
        ("3D000", .SQLITE_CANTOPEN),
        ("08001", .SQLITE_CANTOPEN),
        ("08004", .SQLITE_CANTOPEN),
        ("08006", .SQLITE_IOERR),
        ("08P01", .SQLITE_MISUSE),
        ("28P01", .SQLITE_CANTOPEN),
        ("42601", .SQLITE_ERROR),
        ("22012", .SQLITE_ERROR),
        ("", .SQLITE_ERROR),
        ("x", .SQLITE_ERROR),
    ])
    func postgresResultCodeIsTheClosestSQLiteCode(sqlState: String, code: ResultCode) {
        let error = DatabaseError(sqlState: sqlState, message: "m")
        #expect(error.extendedResultCode == code)
        #expect(DatabaseError.resultCode(forSQLState: sqlState) == code)
    }

    @Test func postgresErrorsMatchCatchClausesAndDescribeThemselves() {
        let error: any Error = DatabaseError(sqlState: "23505", message: "duplicate key value violates unique constraint \"t_pkey\"", sql: "INSERT INTO t VALUES ($1)")
        switch error {
        case DatabaseError.SQLITE_CONSTRAINT_UNIQUE: break
        default: Issue.record("not matched by its extended code")
        }
        switch error {
        case ResultCode.SQLITE_CONSTRAINT: break
        default: Issue.record("not matched by its primary code")
        }
        let databaseError = error as? DatabaseError
        #expect(databaseError?.description == "PostgreSQL error 23505: duplicate key value violates unique constraint \"t_pkey\" — while executing `INSERT INTO t VALUES ($1)`")
        #expect(DatabaseError(sqlState: "40001", message: "m").isBusy)
        #expect(DatabaseError(sqlState: "25006", message: "m").isReadOnly)
        #expect(DatabaseError(sqlState: "53100", message: "m").isDiskFull)
        #expect(!DatabaseError(sqlState: "42601", message: "m").isMisuse)
    }

    static let sqlStateCategories: [(String, Set<DatabaseError.Category>)] = [
        ("08006", [.connectionLost]),
        ("08003", [.connectionLost, .notSent]),
        ("08007", [.connectionLost, .commitOutcomeUnknown]),
        ("08001", [.connectionLost, .cannotOpen]),
        ("08P01", [.connectionLost, .misuse]),
        ("57P01", [.connectionLost]),
        ("57P02", [.connectionLost]),
        ("57P03", [.connectionLost]),
        ("57014", [.interrupted]),
        ("25P02", [.commitAnsweredWithRollback]),
        ("28P01", [.cannotOpen]),
        ("40001", [.busy]),
        ("XX001", []),
        ("58030", []),
    ]

    @Test(arguments: sqlStateCategories)
    func sqlStatesGiveTheirCategories(sqlState: String, expected: Set<DatabaseError.Category>) {
        let error = DatabaseError(sqlState: sqlState, message: "m")
        #expect(error.categories == expected)
        #expect(error.isConnectionError == expected.contains(.connectionLost))
        #expect(error.isCommitOutcomeUnknown == expected.contains(.commitOutcomeUnknown))
        // A server's damage and I/O errors are its own.
        #expect(!error.isCorrupt && !error.isIOError)
    }

    @Test func failuresQuarryDetectsGetPostgreSQLsCodes() {
        let rolledBack = DatabaseError.postgresError(.commitAnsweredWithRollback, message: "m", sql: "COMMIT")
        #expect(rolledBack.sqlState == "25P02" && rolledBack.sql == "COMMIT")
        #expect(rolledBack.categories == [.commitAnsweredWithRollback])
        let unknown = DatabaseError.postgresError(.commitOutcomeUnknown, message: "m", sql: "COMMIT")
        #expect(unknown.sqlState == "08007" && unknown.isCommitOutcomeUnknown && unknown.isConnectionError)
        let other = DatabaseError.postgresError(.busy, message: "m", sql: nil)
        #expect(other.sqlState == nil && other.isBusy)
        #expect(other.description.hasPrefix("PostgreSQL error"))
    }
}
