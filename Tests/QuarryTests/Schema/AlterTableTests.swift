// Tests of db.alter(table:), renaming and dropping tables, indexes, and views
// and triggers written in SQL.

import Quarry
import Testing

@Suite struct AlterTableTests {
    private func makePlayers(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer)
            t.column("nickname", .text)
        }
        try db.execute(sql: "INSERT INTO player (name, score, nickname) VALUES ('Arthur', 10, 'Art')")
    }

    @Test func addRenameDrop() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makePlayers(db)
            try db.alter(table: "player") { t in
                t.add(column: "email", .text).indexed()
                t.add(column: "level", .integer).notNull().defaults(to: 1).check(sql: "level > 0")
                t.rename(column: "score", to: "points")
                t.drop(column: "nickname")
            }
            #expect(try schemaSQL(db, "player") == #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "points" INTEGER, "email" TEXT, "level" INTEGER NOT NULL CHECK (level > 0) DEFAULT 1)"#)
            #expect(try schemaSQL(db, "index_player_on_email") == #"CREATE INDEX "index_player_on_email" ON "player"("email")"#)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM player"))
            #expect(row.columnNames == ["id", "name", "points", "email", "level"])
            #expect(try row["points"] as Int == 10)
            #expect(try row["level"] as Int == 1)
        }
    }

    @Test func failingChangeRollsBackTheWholeAlteration() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makePlayers(db)
            let error = #expect(throws: DatabaseError.self) {
                try db.alter(table: "player") { t in
                    t.add(column: "email", .text)
                    t.drop(column: "missing")
                }
            }
            #expect(error?.sql == #"ALTER TABLE "player" DROP COLUMN "missing""#)
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "score", "nickname"])
            // SQLite's own restriction: NOT NULL without a default.
            #expect(throws: DatabaseError.self) {
                try db.alter(table: "player") { t in t.add(column: "x", .text).notNull() }
            }
        }
    }

    @Test func renameAndDropTable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makePlayers(db)
            try db.rename(table: "player", to: "athlete")
            #expect(try !db.tableExists("player"))
            #expect(try db.tableExists("ATHLETE"))  // identifiers are case-insensitive
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM athlete") == 1)
            try db.drop(table: "athlete")
            #expect(try !db.tableExists("athlete"))
            let error = #expect(throws: DatabaseError.self) { try db.drop(table: "athlete") }
            #expect(error?.message.contains("no such table") == true)
            #expect(throws: DatabaseError.self) { try db.rename(table: "nothing", to: "x") }
        }
    }

    @Test func indexes() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makePlayers(db)
            try db.create(index: "player_on_name", on: "player", columns: ["name"], unique: true, condition: "score > 0")
            try db.create(index: "player_on_score_name", on: "player", columns: ["score", "name"])
            #expect(try schemaSQL(db, "player_on_name") == #"CREATE UNIQUE INDEX "player_on_name" ON "player"("name") WHERE score > 0"#)
            let indexes = try db.indexes(on: "player")
            #expect(indexes == [
                IndexInfo(name: "player_on_name", columns: ["name"], isUnique: true, origin: .createIndex, isPartial: true),
                IndexInfo(name: "player_on_score_name", columns: ["score", "name"], isUnique: false, origin: .createIndex, isPartial: false),
            ])
            #expect(try db.indexExists("player_on_name"))
            // IF NOT EXISTS
            try db.create(index: "player_on_name", on: "player", columns: ["score"], options: .ifNotExists)
            #expect(try db.indexes(on: "player").first?.columns == ["name"])
            #expect(throws: DatabaseError.self) {
                try db.create(index: "player_on_name", on: "player", columns: ["score"])
            }
            #expect(throws: DatabaseError.self) {
                try db.create(index: "none", on: "player", columns: [])
            }
            // The unique partial index holds.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 5)")
            }
            try db.drop(index: "player_on_name")
            #expect(try !db.indexExists("player_on_name"))
            #expect(try db.indexes(on: "player").map(\.name) == ["player_on_score_name"])
            #expect(throws: DatabaseError.self) { try db.drop(index: "player_on_name") }
        }
    }

    @Test func viewsAndTriggersThroughSQL() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makePlayers(db)
            try db.execute(sql: """
                CREATE VIEW "top player" AS SELECT name FROM player WHERE score >= 10;
                CREATE TRIGGER player_name_upper AFTER INSERT ON player
                BEGIN UPDATE player SET name = upper(name) WHERE id = new.id; END;
                """)
            #expect(try db.viewExists("top player"))
            #expect(try !db.tableExists("top player"))
            #expect(try db.triggerExists("player_name_upper"))
            #expect(try db.columns(in: "top player").map(\.name) == ["name"])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ('zoe', 20)")
            #expect(try String.fetchAll(db, sql: #"SELECT name FROM "top player" ORDER BY name"#) == ["Arthur", "ZOE"])
        }
    }
}
