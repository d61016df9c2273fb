// Tests of views in the schema DSL: create(view:) from query-interface
// requests, SQL requests and SQL literals, drop(view:), viewNames(), values
// written as SQL literals (SQLite allows no parameters in views), and records
// over views: fetched like tables, persistence refused unless an INSTEAD OF
// trigger handles it.

import Foundation
import Quarry
import Testing

private struct VPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
}

/// A record whose "table" is the view `topPlayer`.
private struct TopPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "topPlayer"
    var id: Int64?
    var name: String
    var score: Int
}

@Suite struct ViewTests {
    /// A `player` table with Arthur (100), Barbara (250) and Cheng (40).
    func withPlayers(_ kind: WriterKind, _ body: (Database) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("score", .integer).notNull()
            }
            for (name, score) in [("Arthur", 100), ("Barbara", 250), ("Cheng", 40)] {
                try VPlayer(id: nil, name: name, score: score).insert(db)
            }
            try body(db)
        }
    }

    /// The SQL that SQLite stored for a schema object, main or temp.
    static func storedSQL(_ db: Database, _ name: String) throws -> String? {
        try String.fetchOne(
            db,
            sql: """
                SELECT sql FROM sqlite_master WHERE name = ?
                UNION ALL SELECT sql FROM sqlite_temp_master WHERE name = ?
                """,
            arguments: [name, name])
    }

    // MARK: - Creating views

    @Test(arguments: WriterKind.allCases)
    func createViewFromRequest(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "topPlayer", as: VPlayer.filter(\.score >= 100).order(.desc(\.score)))
            #expect(try Self.storedSQL(db, "topPlayer")
                == #"CREATE VIEW "topPlayer" AS SELECT * FROM "player" WHERE "score" >= 100 ORDER BY "score" DESC"#)
            #expect(try db.viewExists("topPlayer"))
            #expect(try db.viewNames() == ["topPlayer"])
            #expect(try TopPlayer.fetchAll(db).map(\.name) == ["Barbara", "Arthur"])
            #expect(try TopPlayer.filter(\.name == "Arthur").fetchOne(db) == TopPlayer(id: 1, name: "Arthur", score: 100))
            #expect(try TopPlayer.fetchCount(db) == 2)
            // The view follows its table.
            try VPlayer(id: nil, name: "Dora", score: 300).insert(db)
            #expect(try TopPlayer.fetchAll(db).map(\.name) == ["Dora", "Barbara", "Arthur"])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func createViewWithColumnsAndOptions(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(
                view: "scores", options: [.ifNotExists, .temporary], columns: ["player", "points"],
                as: VPlayer.select(\.name, \.score).order(\.score).limit(2, offset: 1))
            // SQLite stores the statement without TEMPORARY and IF NOT EXISTS.
            #expect(try Self.storedSQL(db, "scores")
                == #"CREATE VIEW "scores"("player", "points") AS SELECT "name", "score" FROM "player" ORDER BY "score" LIMIT 2 OFFSET 1"#)
            let rows = try Row.fetchAll(db, sql: "SELECT player, points FROM temp.scores")
            #expect(try rows.map { try $0["player"] as String? } == ["Arthur", "Barbara"])
            // IF NOT EXISTS: a second creation does nothing.
            try db.create(view: "scores", options: [.ifNotExists, .temporary], asLiteral: "SELECT 1")
            #expect(try Row.fetchAll(db, sql: "SELECT * FROM scores").count == 2)
            #expect(try db.viewNames() == ["scores"])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func createViewFromSQLLiteralAndSQLRequest(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "rich", asLiteral: "SELECT * FROM \(VPlayer.self) WHERE \(\VPlayer.score) > \(150)")
            #expect(try Self.storedSQL(db, "rich") == #"CREATE VIEW "rich" AS SELECT * FROM "player" WHERE "score" > 150"#)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM rich") == ["Barbara"])

            try db.create(
                view: "poor", columns: ["name"],
                as: SQLRequest<String>(sql: "SELECT name FROM player WHERE score < :limit", arguments: ["limit": 50]))
            #expect(try Self.storedSQL(db, "poor") == #"CREATE VIEW "poor"("name") AS SELECT name FROM player WHERE score < 50"#)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM poor") == ["Cheng"])
            #expect(try db.viewNames() == ["poor", "rich"])
        }
    }

    /// Every kind of value is written as a literal that reads back identical,
    /// also where a sign could turn `-` into a comment.
    @Test(arguments: WriterKind.allCases)
    func valuesAreWrittenAsLiterals(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            let values: [DatabaseValue] = [
                .null, .integer(0), .integer(-1), .integer(Int64.min), .integer(Int64.max),
                .real(-1.5), .real(1e-5), .real(0.1), .real(.infinity), .real(-.infinity),
                .text(""), .text("it's \"quoted\" ?"), .text("a\u{0}b"), .text("é🦊\n"),
                .blob(Data()), .blob(Data([0, 1, 254, 255])),
            ]
            var literal: SQL = "SELECT "
            for (index, value) in values.enumerated() {
                if index > 0 { literal += ", " }
                literal += "\(value) AS \(identifier: "c\(index)")"
            }
            literal += ", -\(-3) AS negated"
            try db.create(view: "constants", asLiteral: literal)
            let stored = try #require(try Self.storedSQL(db, "constants"))
            #expect(stored.hasPrefix(
                #"CREATE VIEW "constants" AS SELECT NULL AS "c0", 0 AS "c1", (-1) AS "c2", (-9223372036854775808) AS "c3""#))
            #expect(stored.hasSuffix(#", -(-3) AS negated"#))
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM constants"))
            for (index, value) in values.enumerated() {
                #expect(try row["c\(index)"] as DatabaseValue == value, "column c\(index)")
            }
            #expect(try row["negated"] as Int == 3)

            // The values of LIKE … ESCAPE are literals too.
            try VPlayer(id: nil, name: "50% off", score: 1).insert(db)
            try db.create(view: "escaped", as: VPlayer.filter { $0.name.like("50!%%", escape: "!") }.select(\.name))
            #expect(try Self.storedSQL(db, "escaped")
                == #"CREATE VIEW "escaped" AS SELECT "name" FROM "player" WHERE "name" LIKE '50!%%' ESCAPE '!'"#)
            #expect(try String.fetchAll(db, sql: "SELECT * FROM escaped") == ["50% off"])
        }
    }

    /// A hostile string is stored and compared verbatim: it never becomes SQL.
    @Test(arguments: WriterKind.allCases)
    func hostileStringsStayValues(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            let hostile = "'); DROP TABLE player; --\u{0}\"x\" ? :name /* ?"
            try VPlayer(id: nil, name: hostile, score: 7).insert(db)
            // A `?` in a quoted alias, a raw fragment with arguments, and a filter value.
            let request = VPlayer
                .select(sql: #"id, name AS "what?", ? AS "tag?""#, arguments: [hostile])
                .filter(\.name == hostile)
            try db.create(view: "hostile", as: request)
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM hostile")
            #expect(rows.count == 1)
            #expect(try rows.first?["what?"] as String? == hostile)
            #expect(try rows.first?["tag?"] as String? == hostile)
            #expect(try db.tableExists("player"))
            #expect(try VPlayer.fetchCount(db) == 4)
            let stored = try #require(try Self.storedSQL(db, "hostile"))
            #expect(stored.contains(#"'''); DROP TABLE player; --'"#) == false)
            #expect(stored.contains("CAST(X'"))
        }
    }

    // MARK: - Failures

    @Test(arguments: WriterKind.allCases)
    func creatingAnExistingViewThrows(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "topPlayer", as: VPlayer.filter(\.score >= 100))
            #expect(throws: DatabaseError.self) {
                try db.create(view: "topPlayer", as: VPlayer.all())
            }
            #expect(throws: DatabaseError.self) {
                try db.create(view: "player", asLiteral: "SELECT 1")
            }
            // SQLite checks the tables of a view when it reads them.
            try db.create(view: "missing", asLiteral: "SELECT * FROM nowhere")
            #expect(throws: DatabaseError.self) { try Row.fetchAll(db, sql: "SELECT * FROM missing") }
            try db.drop(view: "missing")
            // A parameter written in the SQL text is refused by SQLite.
            #expect(throws: DatabaseError.self) {
                try db.create(view: "parameter", asLiteral: "SELECT ?")
            }
            // A value that fails to convert names its error.
            #expect(throws: DatabaseError.self) {
                try db.create(view: "mismatch", asLiteral: "SELECT \(sql: "?, ?", arguments: [1])")
            }
            #expect(try db.viewNames() == ["topPlayer"])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func dropView(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "topPlayer", as: VPlayer.filter(\.score >= 100))
            try db.drop(view: "topPlayer")
            #expect(try !db.viewExists("topPlayer"))
            #expect(try db.viewNames() == [])
            #expect(throws: DatabaseError.self) { try db.drop(view: "topPlayer") }
            #expect(throws: DatabaseError.self) { try db.drop(view: "player") }
        }
    }

    // MARK: - Records over views

    @Test(arguments: WriterKind.allCases)
    func persistenceOnAViewIsRefused(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "topPlayer", as: VPlayer.filter(\.score >= 100))
            var record = TopPlayer(id: nil, name: "Eve", score: 500)
            let refusal = { (statement: String) in
                RecordError.viewNotWritable(recordType: "TopPlayer", databaseViewName: "topPlayer", statement: statement)
            }
            #expect(throws: refusal("INSERT")) { try record.insert(db) }
            #expect(throws: refusal("INSERT")) { _ = try TopPlayer.insertAll(db, [record]) }
            #expect(throws: refusal("INSERT")) { try record.save(db) }
            #expect(throws: refusal("UPSERT")) { try record.upsert(db) }
            #expect(throws: refusal("UPSERT")) { _ = try record.insert(db, onConflictDoNothing: ["id"]) }
            var existing = TopPlayer(id: 1, name: "Arthur", score: 120)
            #expect(throws: refusal("UPDATE")) { try existing.update(db) }
            // A view has no primary key: save inserts.
            #expect(throws: refusal("INSERT")) { try existing.save(db) }
            #expect(throws: refusal("DELETE")) { try existing.delete(db) }
            #expect(try VPlayer.fetchCount(db) == 3)
            #expect(try VPlayer.filter(\.id == 1).fetchOne(db)?.score == 100)
            let message = refusal("INSERT").description
            #expect(message.contains("TopPlayer") && message.contains("\"topPlayer\"") && message.contains("INSTEAD OF INSERT"))
            // Fetching still works.
            existing = try #require(try TopPlayer.filter(\.id == 1).fetchOne(db))
            #expect(existing.name == "Arthur")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func persistenceOnAViewRunsItsInsteadOfTriggers(_ kind: WriterKind) throws {
        try withPlayers(kind) { db throws in
            try db.create(view: "topPlayer", as: VPlayer.filter(\.score >= 100))
            var record = TopPlayer(id: nil, name: "Eve", score: 500)
            #expect(throws: RecordError.self) { try record.insert(db) }
            // The trigger changes the schema: the cached refusal is forgotten.
            try db.create(trigger: "topPlayer_insert", on: "topPlayer", timing: .insteadOf, event: .insert) { t in
                t.insert(
                    into: VPlayer.self, \.name <- TriggerRow.new[\TopPlayer.name],
                    \.score <- TriggerRow.new[\TopPlayer.score])
            }
            try record.insert(db)
            _ = try TopPlayer.insertAll(db, [TopPlayer(id: nil, name: "Finn", score: 600)])
            #expect(try VPlayer.order(\.id).fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Cheng", "Eve", "Finn"])
            #expect(try TopPlayer.order(.desc(\.score)).fetchAll(db).map(\.name) == ["Finn", "Eve", "Barbara", "Arthur"])
            // UPDATE and DELETE have no trigger yet.
            let existing = TopPlayer(id: 1, name: "Arthur", score: 120)
            #expect(throws: RecordError.viewNotWritable(
                recordType: "TopPlayer", databaseViewName: "topPlayer", statement: "DELETE")) { try existing.delete(db) }
            // Batch writes on the view run its triggers too.
            try db.execute(sql: """
                CREATE TRIGGER topPlayer_delete INSTEAD OF DELETE ON topPlayer
                BEGIN DELETE FROM player WHERE id = OLD.id; END
                """)
            #expect(throws: RecordError.self) { try existing.delete(db) }   // a view has no primary key
            try TopPlayer.filter(\.name == "Eve").deleteAll(db)
            #expect(try VPlayer.filter(\.name == "Eve").fetchCount(db) == 0)
        }
    }
}
