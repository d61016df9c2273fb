// checkForeignKeys(in:): throws a DatabaseError (SQLITE_CONSTRAINT_FOREIGNKEY)
// describing the first row that breaks a foreign key, as GRDB does, and the
// failureDescription(_:) and databaseError(_:) of a ForeignKeyViolation.
// SQLite-only: PostgreSQL refuses it with a message.

@testable import Quarry
import QuarryPostgres
import Testing

@Suite struct CheckForeignKeysTests {
    /// An author, and a book of a missing author, inserted with foreign keys off.
    private func makeViolation(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db throws in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER REFERENCES author(id));
                CREATE TABLE prize (name TEXT PRIMARY KEY, author_id INTEGER REFERENCES author(id)) WITHOUT ROWID;
                INSERT INTO author (id, name) VALUES (1, 'Ursula');
                INSERT INTO book (id, title, author_id) VALUES (1, 'Earthsea', 1);
                """)
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (2, 'Lost', 9)")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    @Test(arguments: Backend.sqlite)
    func throwsTheFirstViolation(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try makeViolation(writer)
            let recorder = SQLRecorder()
            let error = try #require(throws: DatabaseError.self) {
                try writer.read { db throws in try recorder.record(db) { try db.checkForeignKeys() } }
            }
            #expect(recorder.statements.first == #"SELECT "table", rowid, parent, fkid FROM pragma_foreign_key_check()"#)
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
            #expect(error.isForeignKeyViolation)
            #expect(error.message == #"FOREIGN KEY constraint violation - from book(author_id) to author(id), in [id: 2, title: 'Lost', author_id: 9]"#)
            // In one table.
            #expect(throws: DatabaseError.self) { try writer.read { db throws in try db.checkForeignKeys(in: "book") } }
            try writer.read { db throws in
                try db.checkForeignKeys(in: "author")
                try db.checkForeignKeys(in: "prize")
            }
        }
    }

    @Test(arguments: Backend.sqlite)
    func passesWithoutViolations(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.write { db throws in
                try db.execute(sql: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id));
                    INSERT INTO author (id) VALUES (1);
                    INSERT INTO book (author_id) VALUES (1), (NULL);
                    """)
                try db.checkForeignKeys()
                try db.checkForeignKeys(in: "book")
                // A missing table is an error.
                let error = try #require(throws: DatabaseError.self) { try db.checkForeignKeys(in: "missing") }
                #expect(error.message == "no such table: missing")
            }
        }
    }

    /// A WITHOUT ROWID table has no rowid to show the row by.
    @Test func violationOfAWithoutRowIDTable() throws {
        let dbQueue = try DatabaseQueue()
        try makeViolation(dbQueue)
        try dbQueue.writeWithoutTransaction { db throws in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM book WHERE id = 2")
            try db.execute(sql: "INSERT INTO prize (name, author_id) VALUES ('Hugo', 7)")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        try dbQueue.read { db throws in
            let violations = try db.foreignKeyViolations()
            #expect(violations.count == 1)
            let violation = try #require(violations.first)
            #expect(try violation.failureDescription(db) == "FOREIGN KEY constraint violation - from prize(author_id) to author(id)")
            let error = violation.databaseError(db)
            #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
            #expect(error.message == "FOREIGN KEY constraint violation - from prize(author_id) to author(id)")
            #expect(throws: DatabaseError.self) { try db.checkForeignKeys(in: "prize") }
        }
    }

    /// PostgreSQL checks foreign keys at each statement: the check is
    /// refused with a message (on a stand-in PostgreSQL connection, so that
    /// it runs without a server).
    @Test func refusedOnPostgreSQL() throws {
        let db = try Database(server: StandInServer(dialect: PostgreSQLDialect()), configuration: Configuration())
        let error = try #require(throws: DatabaseError.self) { try db.checkForeignKeys() }
        #expect(error.message.hasPrefix("checkForeignKeys(in:) is SQLite-only; this connection is to "))
        #expect(error.message.hasSuffix(
            ": use the foreign key constraints themselves, which PostgreSQL checks at each statement"))
        #expect(throws: DatabaseError.self) { try db.checkForeignKeys(in: "book") }
    }
}
