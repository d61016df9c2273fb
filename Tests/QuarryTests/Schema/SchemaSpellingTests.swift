// GRDB's schema spellings: IndexOptions.unique, create(indexOn:) and
// drop(indexOn:), check closures, unique/notNull(onConflict:),
// constraint(sql:), column(literal:); the exact SQL pinned.

import Foundation
import Quarry
import Testing

@Suite struct SchemaSpellingTests {
    private func schemaSQL(_ db: Database, _ name: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name])
    }

    @Test func indexesNamedAfterTheirColumns() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, teamID INTEGER, email TEXT)")
            try db.create(indexOn: "player", columns: ["teamID", "email"], options: [.unique, .ifNotExists])
            #expect(try schemaSQL(db, "index_player_on_teamID_email")
                == #"CREATE UNIQUE INDEX "index_player_on_teamID_email" ON "player"("teamID", "email")"#)
            try db.create(indexOn: "player", columns: ["teamID", "email"], options: [.unique, .ifNotExists])  // no error
            try db.create(index: "by_email", on: "player", columns: ["email"], options: .unique)
            #expect(try db.indexes(on: "player").first { $0.name == "by_email" }?.isUnique == true)
            try db.drop(indexOn: "player", columns: ["teamID", "email"])
            #expect(try schemaSQL(db, "index_player_on_teamID_email") == nil)
            #expect(throws: DatabaseError.self) { try db.drop(indexOn: "player", columns: ["teamID", "email"]) }
            #expect(throws: DatabaseError.self) { try db.create(indexOn: "player", columns: []) }
        }
    }

    @Test func checksConflictClausesAndLiteralDefinitions() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "booking") { t in
                t.constraint(sql: "UNIQUE (room, start)")  // table constraints are written after the columns
                t.autoIncrementedPrimaryKey("id")
                t.column("room", .text).notNull(onConflict: .replace).check { $0 != "" }
                t.column("start", .integer).notNull().check { $0 >= 0 && $0 < 1_000 }
                t.column("end", .integer).unique(onConflict: .ignore)
                t.column(literal: "note TEXT COLLATE NOCASE")
                t.check(Column("start") <= Column("end"))
            }
            #expect(try schemaSQL(db, "booking") == """
                CREATE TABLE "booking" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, \
                "room" TEXT NOT NULL ON CONFLICT REPLACE CHECK ("room" <> ''), \
                "start" INTEGER NOT NULL CHECK (("start" >= 0) AND ("start" < 1000)), \
                "end" INTEGER UNIQUE ON CONFLICT IGNORE, note TEXT COLLATE NOCASE, \
                UNIQUE (room, start), CHECK ("start" <= "end"))
                """)
            try db.execute(sql: "INSERT INTO booking (room, start, \"end\") VALUES ('A', 1, 2)")
            let check = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO booking (room, start, \"end\") VALUES ('B', 5, 3)")
            }
            #expect(check.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO booking (room, start, \"end\") VALUES ('', 1, 9)") }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO booking (room, start, \"end\") VALUES ('C', 5000, 9000)") }
            // UNIQUE ON CONFLICT IGNORE skips the row silently.
            try db.execute(sql: "INSERT INTO booking (room, start, \"end\") VALUES ('D', 1, 2)")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM booking") == 1)
        }
    }

    @Test func aCheckThatCannotBeWrittenFailsTheCreation() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            let error = try #require(throws: DatabaseError.self) {
                try db.create(table: "thing") { t in
                    t.column("name", .text)
                    t.check(QueryExpression(SQLExpression(sql: "x = :missing", arguments: ["other": 1])))
                }
            }
            #expect(error.message.contains("missing argument for parameter :missing"))
            #expect(try !db.tableExists("thing"))
        }
    }
}
