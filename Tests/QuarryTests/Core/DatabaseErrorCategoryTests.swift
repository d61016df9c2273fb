// Tests of DatabaseError.Category on SQLite: SQLite errors have no SQLSTATE,
// and their result code gives their categories, which the helpers read.
// PostgreSQL's classification is tested in
// QuarryPostgresTests/DatabaseError+PostgreSQLTests.swift.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseErrorCategoryTests {
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

    static let resultCodeCategories: [(ResultCode, Set<DatabaseError.Category>)] = [
        (.SQLITE_CONSTRAINT_UNIQUE, [.uniqueConstraintViolation, .constraintViolation]),
        (.SQLITE_CONSTRAINT_PRIMARYKEY, [.uniqueConstraintViolation, .constraintViolation]),
        (.SQLITE_CONSTRAINT_FOREIGNKEY, [.foreignKeyViolation, .constraintViolation]),
        (.SQLITE_CONSTRAINT_NOTNULL, [.notNullConstraintViolation, .constraintViolation]),
        (.SQLITE_CONSTRAINT_CHECK, [.checkConstraintViolation, .constraintViolation]),
        (.SQLITE_CONSTRAINT_TRIGGER, [.constraintViolation]),
        (.SQLITE_BUSY_SNAPSHOT, [.busy]),
        (.SQLITE_READONLY, [.readOnly]),
        (.SQLITE_FULL, [.diskFull]),
        (.SQLITE_CORRUPT, [.corrupt]),
        (.SQLITE_NOTADB, [.corrupt]),
        (ResultCode(rawValue: 1034), [.ioError]),
        (.SQLITE_MISUSE, [.misuse]),
        (.SQLITE_INTERRUPT, [.interrupted]),
        (.SQLITE_MISMATCH, [.typeMismatch]),
        (.SQLITE_CANTOPEN, [.cannotOpen]),
        (.SQLITE_ERROR, []),
        (.SQLITE_LOCKED, []),
    ]

    @Test(arguments: resultCodeCategories)
    func sqliteResultCodesGiveTheirCategories(code: ResultCode, expected: Set<DatabaseError.Category>) {
        let error = DatabaseError(resultCode: code, message: "m")
        #expect(error.categories == expected)
        #expect(error.isBusy == expected.contains(.busy))
        #expect(error.isIOError == expected.contains(.ioError))
        #expect(error.isCorrupt == expected.contains(.corrupt))
        #expect(!error.isConnectionError && !error.isCommitOutcomeUnknown)
    }

    @Test func anUnknownCommitOutcomeKeepsTheCodeAndAddsItsCategory() {
        let error = DatabaseError(resultCode: ResultCode(rawValue: 1034), message: "disk I/O error", sql: "COMMIT")  // SQLITE_IOERR_FSYNC
            .withUnknownCommitOutcome(message: "the commit may have reached the -wal file")
        #expect(error.categories == [DatabaseError.Category.ioError, .commitOutcomeUnknown])
        #expect(error.isCommitOutcomeUnknown && error.isIOError)
        #expect(error.extendedResultCode == ResultCode(rawValue: 1034) && error.sql == "COMMIT")
        #expect(error.description == "SQLite error 1034: the commit may have reached the -wal file — while executing `COMMIT`")
    }

    @Test func categoriesAreAnOpenSetNamedByTheirName() {
        let custom = DatabaseError.Category("replica lag")
        #expect(custom == DatabaseError.Category("replica lag"))
        #expect(custom != .busy)
        #expect("\(DatabaseError.Category.uniqueConstraintViolation)" == "unique constraint violation")
    }
}

