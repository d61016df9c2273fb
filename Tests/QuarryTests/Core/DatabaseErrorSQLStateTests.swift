// Tests of DatabaseError.sqlState (issue 22): SQLite errors have none and keep
// their helpers; PostgreSQL errors (made through the package initializer that
// QuarryPostgres uses) answer the same helpers from their SQLSTATE, and carry
// the closest SQLite result code.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseErrorSQLStateTests {
    /// A real SQLite error from `sql`, run after a small schema.
    private func sqliteError(_ sql: String) throws -> DatabaseError {
        let dbQueue = try DatabaseQueue()
        return try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY);
                CREATE TABLE player (id INTEGER PRIMARY KEY, email TEXT UNIQUE, score INTEGER NOT NULL CHECK (score >= 0),
                    teamID INTEGER REFERENCES team(id));
                INSERT INTO player (email, score) VALUES ('a@x.org', 1);
                PRAGMA foreign_keys = ON;
                """)
            do {
                try db.execute(sql: sql)
            } catch let error as DatabaseError {
                return error
            }
            Issue.record("no error for \(sql)")
            return DatabaseError(resultCode: .SQLITE_OK, message: "none")
        }
    }

    @Test func sqliteErrorsHaveNoSQLStateAndKeepTheirHelpers() throws {
        let unique = try sqliteError("INSERT INTO player (email, score) VALUES ('a@x.org', 2)")
        #expect(unique.sqlState == nil)
        #expect(unique.isUniqueConstraintViolation && unique.isConstraintViolation)
        #expect(!unique.isForeignKeyViolation && !unique.isNotNullConstraintViolation && !unique.isCheckConstraintViolation)
        #expect(unique.description.hasPrefix("SQLite error 2067: "))

        let primaryKey = try sqliteError("INSERT INTO player (id, score) VALUES (1, 2)")
        #expect(primaryKey.sqlState == nil && primaryKey.isUniqueConstraintViolation)

        let notNull = try sqliteError("INSERT INTO player (email, score) VALUES ('b@x.org', NULL)")
        #expect(notNull.sqlState == nil && notNull.isNotNullConstraintViolation && notNull.isConstraintViolation)
        #expect(!notNull.isUniqueConstraintViolation)

        let check = try sqliteError("INSERT INTO player (email, score) VALUES ('b@x.org', -1)")
        #expect(check.sqlState == nil && check.isCheckConstraintViolation && check.isConstraintViolation)

        let foreignKey = try sqliteError("INSERT INTO player (email, score, teamID) VALUES ('b@x.org', 1, 9)")
        #expect(foreignKey.sqlState == nil && foreignKey.isForeignKeyViolation && foreignKey.isConstraintViolation)

        let syntax = try sqliteError("SELECT * FROM nowhere")
        #expect(syntax.sqlState == nil && !syntax.isConstraintViolation)

        #expect(DatabaseError(resultCode: .SQLITE_CONSTRAINT_UNIQUE, message: "x").sqlState == nil)
    }

    @Test(arguments: [
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
}
