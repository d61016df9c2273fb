// Tests of schema introspection: tables, columns, primary keys, foreign keys,
// indexes and foreign key violations, on success and on missing tables.

import Quarry
import Testing

@Suite struct IntrospectionTests {
    @Test func primaryKeys() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE hidden (a);
                CREATE TABLE alias (id INTEGER PRIMARY KEY, a);
                CREATE TABLE notAlias (id INT PRIMARY KEY, a);
                CREATE TABLE textKey (code TEXT PRIMARY KEY);
                CREATE TABLE composite (b, a, PRIMARY KEY (a, b));
                CREATE TABLE noRowID (id INTEGER PRIMARY KEY) WITHOUT ROWID;
                """)
            #expect(try db.primaryKey("hidden") == PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: "rowid", isHiddenRowID: true))
            #expect(try db.primaryKey("alias") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: "id", isHiddenRowID: false))
            #expect(try db.primaryKey("notAlias") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: nil, isHiddenRowID: false))
            #expect(try db.primaryKey("textKey").rowIDColumn == nil)
            #expect(try db.primaryKey("composite").columns == ["a", "b"])
            #expect(try db.primaryKey("noRowID") == PrimaryKeyInfo(columns: ["id"], rowIDColumn: nil, isHiddenRowID: false))
            let error = #expect(throws: DatabaseError.self) { try db.primaryKey("missing") }
            #expect(error?.message == "no such table: missing")
        }
    }

    @Test func missingTablesThrow() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db throws in
            #expect(try !db.tableExists("missing"))
            #expect(try !db.viewExists("missing"))
            #expect(try !db.triggerExists("missing"))
            #expect(try !db.indexExists("missing"))
            #expect(throws: DatabaseError.self) { try db.columns(in: "missing") }
            #expect(throws: DatabaseError.self) { try db.foreignKeys(on: "missing") }
            #expect(throws: DatabaseError.self) { try db.indexes(on: "missing") }
            #expect(throws: DatabaseError.self) { try db.foreignKeyViolations(in: "missing") }
        }
    }

    @Test func foreignKeysAndViolations() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY);
                CREATE TABLE book (id INTEGER PRIMARY KEY,
                  authorId REFERENCES author ON DELETE CASCADE,
                  editorId REFERENCES author(id) ON UPDATE SET DEFAULT,
                  ghostId REFERENCES ghost);
                INSERT INTO author VALUES (1);
                INSERT INTO book VALUES (1, 1, 1, NULL), (2, 9, 1, NULL), (3, 1, 1, 5);
                """)
            let keys = try db.foreignKeys(on: "book")
            #expect(keys.map(\.destinationTable) == ["ghost", "author", "author"])
            #expect(keys.map(\.originColumns) == [["ghostId"], ["editorId"], ["authorId"]])
            #expect(keys.map(\.destinationColumns) == [[], ["id"], ["id"]])
            #expect(keys.map(\.onDelete) == [.noAction, .noAction, .cascade])
            #expect(keys.map(\.onUpdate) == [.noAction, .setDefault, .noAction])
            #expect(try db.foreignKeys(on: "author").isEmpty)

            let violations = try db.foreignKeyViolations()
            #expect(violations.count == 2)
            #expect(violations.contains(ForeignKeyViolation(originTable: "book", originRowID: 2, destinationTable: "author", foreignKeyID: 2)))
            #expect(violations.contains(ForeignKeyViolation(originTable: "book", originRowID: 3, destinationTable: "ghost", foreignKeyID: 0)))
            #expect(violations.first { $0.originRowID == 2 }?.description == #"row 2 of "book" refers to a missing row of "author""#)
            #expect(try db.foreignKeyViolations(in: "book").count == 2)
            #expect(try db.foreignKeyViolations(in: "author").isEmpty)
        }
    }

    @Test func triggersOnATable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE log (message TEXT);
                CREATE TRIGGER item_insert AFTER INSERT ON "ITEM" BEGIN INSERT INTO log VALUES (new.name); END;
                CREATE TEMP TRIGGER log_insert AFTER INSERT ON log BEGIN SELECT 1; END;
                """)
            #expect(try db.hasTriggers(on: "item"))
            #expect(try db.hasTriggers(on: "log"))
            #expect(try !db.hasTriggers(on: "other"))
        }
    }
}
