// Tests of Database: executing SQL, statements and their cache, change counts, errors.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseTests {
    let dbQueue: DatabaseQueue

    init() throws {
        dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY,
                    email TEXT UNIQUE,
                    name TEXT NOT NULL,
                    score INTEGER CHECK (score >= 0),
                    team_id INTEGER REFERENCES team(id)
                );
                CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                """)
        }
    }

    @Test func lastInsertedRowIDAndChangeCounts() throws {
        try dbQueue.write { db throws in
            let before = db.totalChangesCount
            try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b'), ('c')")
            #expect(db.lastInsertedRowID == 3)
            #expect(db.changesCount == 3)
            try db.execute(sql: "UPDATE player SET score = 1 WHERE id > 1")
            #expect(db.changesCount == 2)
            #expect(db.totalChangesCount == before + 5)
        }
    }

    @Test func fetchValuesOfEveryShape() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO player (name, email) VALUES ('a', 'a@x'), ('b', NULL), ('a', 'c@x')")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM player") == 3)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["a", "b", "a"])
            #expect(try String.fetchSet(db, sql: "SELECT name FROM player") == ["a", "b"])
            #expect(try Optional<String>.fetchAll(db, sql: "SELECT email FROM player ORDER BY id") == ["a@x", nil, "c@x"])
            #expect(try String.fetchOne(db, sql: "SELECT email FROM player WHERE id = 2") == nil)
            #expect(try String.fetchOne(db, sql: "SELECT email FROM player WHERE id = 99") == nil)
            let error = try #require(throws: RowDecodingError.self) {
                try String.fetchAll(db, sql: "SELECT email FROM player ORDER BY id")
            }
            #expect(error.description == "cannot decode String from column \"email\": found NULL — in `SELECT email FROM player ORDER BY id`")
            let cursor = try Optional<String>.fetchCursor(db, sql: "SELECT email FROM player ORDER BY id")
            #expect(try Array(cursor) == ["a@x", nil, "c@x"])
        }
    }

    @Test func syntaxErrorsCarryTheSQL() throws {
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.read { db in try Row.fetchAll(db, sql: "SELEKT 1") }
        }
        #expect(error.resultCode == .SQLITE_ERROR)
        #expect(error.message.contains("syntax error"))
        #expect(error.sql == "SELEKT 1")
        #expect(error.description.contains("while executing `SELEKT 1`"))
    }

    @Test func constraintViolationsAreDistinguishable() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO player (id, name, email) VALUES (1, 'a', 'a@x')")
            let unique = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, email) VALUES ('b', 'a@x')")
            }
            #expect(unique.isUniqueConstraintViolation && unique.isConstraintViolation)
            #expect(unique.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            #expect(unique.message == "UNIQUE constraint failed: player.email")
            let primaryKey = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (id, name) VALUES (1, 'b')")
            }
            #expect(primaryKey.isUniqueConstraintViolation)
            let notNull = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name) VALUES (NULL)")
            }
            #expect(notNull.isNotNullConstraintViolation)
            let check = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, score) VALUES ('c', -1)")
            }
            #expect(check.isCheckConstraintViolation)
            let foreignKey = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, team_id) VALUES ('d', 42)")
            }
            #expect(foreignKey.isForeignKeyViolation)
            switch foreignKey.extendedResultCode {
            case .SQLITE_CONSTRAINT_UNIQUE: Issue.record("an extended code pattern must match exactly")
            case .SQLITE_CONSTRAINT: break  // a primary code pattern matches its extended codes
            default: Issue.record("unexpected code \(foreignKey.extendedResultCode)")
            }
        }
    }

    @Test func argumentsStayOutOfErrorsUnlessPublic() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO player (name, email) VALUES ('a', 'secret@x')")
            let error = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, email) VALUES (?, ?)", arguments: ["b", "secret@x"])
            }
            #expect(error.arguments == nil)
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func statementsAndTheirCache() throws {
        try dbQueue.write { db throws in
            let insert = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
            #expect(!insert.isReadOnly)
            for name in ["a", "b"] { try insert.execute(arguments: [name]) }
            let first = try db.cachedStatement(sql: "SELECT name FROM player ORDER BY id")
            let second = try db.cachedStatement(sql: "SELECT name FROM player ORDER BY id")
            #expect(first === second)
            #expect(first.isReadOnly)
            #expect(first.columnNames == ["name"])
            #expect(first.columnCount == 1)
            #expect(try Row.fetchAll(first).count == 2)
            #expect(try Row.fetchOne(first)?["name"] == "a" as String)
            // A cached statement still iterated by a cursor is not handed out again.
            let cursor = try Row.fetchCursor(db, sql: "SELECT name FROM player ORDER BY id")
            _ = try cursor.next()
            let nested = try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id")
            #expect(nested == ["a", "b"])
            #expect(try cursor.next()?["name"] == "b" as String)
            #expect(try cursor.next() == nil)
            db.clearStatementCache()
            #expect(try db.cachedStatement(sql: "SELECT name FROM player ORDER BY id") !== first)
        }
    }

    @Test func makeStatementRefusesSeveralStatementsAndEmptySQL() throws {
        try dbQueue.read { db throws in
            let several = try #require(throws: DatabaseError.self) { try db.makeStatement(sql: "SELECT 1; SELECT 2") }
            #expect(several.message.contains("single statement"))
            #expect(throws: DatabaseError.self) { try db.makeStatement(sql: "  -- nothing") }
            _ = try db.makeStatement(sql: "SELECT 1;  ")
        }
    }

    @Test func executeRunsSeveralStatementsAndSkipsComments() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO team (name) VALUES ('x'); -- a comment\n INSERT INTO team (name) VALUES ('y');")
            try db.execute(sql: "")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM team") == 2)
        }
    }

    @Test func cursorsStreamWithoutLoadingAllRows() throws {
        try dbQueue.read { db throws in
            // An endless recursive query: only a streaming cursor can return its first rows.
            let endless = try Int.fetchCursor(db, sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n")
            var firstValues: [Int] = []
            while firstValues.count < 5, let value = try endless.next() { firstValues.append(value) }
            #expect(firstValues == [1, 2, 3, 4, 5])
            // A million rows through one reused row buffer.
            let rows = try Row.fetchCursor(db, sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 1000000) SELECT x FROM n")
            let sum = try rows.reduce(0) { total, row in total + (try row[0] as Int) }
            #expect(sum == 500_000_500_000)
            #expect(try rows.next() == nil)
        }
    }

    @Test func cursorErrorsStopTheCursor() throws {
        try dbQueue.read { db throws in
            let cursor = try Int.fetchCursor(db, sql: "SELECT 1 UNION ALL SELECT NULL UNION ALL SELECT 3")
            #expect(try cursor.next() == 1)
            #expect(throws: RowDecodingError.self) { try cursor.next() }
            // A failed cursor keeps failing: it never reads as a complete one.
            #expect(throws: RowDecodingError.self) { try cursor.next() }
        }
    }

    @Test func traceReportsStatements() throws {
        try dbQueue.write { db throws in
            let events = UncheckedBox<[String]>([])
            db.trace { event in events.value.append(event.description) }
            try db.execute(sql: "INSERT INTO team (name) VALUES (?)", arguments: ["x"])
            db.trace(nil)
            try db.execute(sql: "DELETE FROM team")
            #expect(events.value == ["INSERT INTO team (name) VALUES (?)"])
            var durations: [Duration] = []
            db.trace(options: .profile) { event in
                if case .profile(_, let duration) = event { durations.append(duration) }
            }
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM team")
            db.trace(nil)
            #expect(durations.count == 1)
        }
    }
}

/// A mutable box for collecting values from callbacks in tests.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
