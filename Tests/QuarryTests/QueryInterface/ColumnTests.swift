// Untyped columns, GRDB's spelling: Column("name"), Column(CodingKeys.x),
// Column.rowID, the `enum Columns` pattern; comparisons, IN, LIKE, ordering,
// selection, grouping and assignments, with the exact SQL pinned.

import Foundation
import Quarry
import QuarryTestSupport
import Testing

private struct CPlayer: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var teamID: Int64?
    var score: Int
    var joinedAt: Date

    enum Columns {
        static let name = Column(CodingKeys.name)
        static let teamID = Column(CodingKeys.teamID)
        static let score = Column(CodingKeys.score)
    }
}

private struct MillisecondsCPlayer: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .millisecondsSince1970 }
    var id: Int64
    var name: String
    var teamID: Int64?
    var score: Int
    var joinedAt: Date
}

private func makePlayers(_ writer: any DatabaseWriter) throws {
    try writer.write { db throws in
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("teamID", .integer)
            t.column("score", .integer).notNull()
            t.column("joinedAt", .text).notNull()
        }
        let date = Date(timeIntervalSince1970: 1_000_000)
        try CPlayer(id: 1, name: "Arthur", teamID: 1, score: 100, joinedAt: date).insert(db)
        try CPlayer(id: 2, name: "Barbara", teamID: nil, score: 50, joinedAt: date).insert(db)
        try CPlayer(id: 3, name: "Craig", teamID: 1, score: 10, joinedAt: date.addingTimeInterval(60)).insert(db)
    }
}

@Suite struct ColumnTests {
    @Test(arguments: Backend.all)
    func comparisonsNeedNoTypeAnnotation(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.read { db throws in
                try expectSQL(CPlayer.filter(Column("teamID") == nil), db, #"SELECT * FROM "player" WHERE "teamID" IS NULL"#)
                try expectSQL(CPlayer.filter(Column("teamID") != nil), db, #"SELECT * FROM "player" WHERE "teamID" IS NOT NULL"#)
                try expectSQL(CPlayer.filter(Column("score") > 10), db, #"SELECT * FROM "player" WHERE "score" > ?"#, [10])
                try expectSQL(
                    CPlayer.filter(Column("score") >= 10 && Column("score") < 100), db,
                    #"SELECT * FROM "player" WHERE ("score" >= ?) AND ("score" < ?)"#, [10, 100])
                try expectSQL(CPlayer.filter(CPlayer.Columns.name == "Arthur"), db, #"SELECT * FROM "player" WHERE "name" = ?"#, ["Arthur"])
                try expectSQL(CPlayer.filter(Column.rowID <= 2), db, #"SELECT * FROM "player" WHERE "rowid" <= ?"#, [2])
                try expectSQL(CPlayer.filter([1, 3].contains(Column("id"))), db, #"SELECT * FROM "player" WHERE "id" IN (?, ?)"#, [1, 3])
                try expectSQL(CPlayer.filter(Column("name").like("A%")), db, #"SELECT * FROM "player" WHERE "name" LIKE ?"#, ["A%"])
                try expectSQL(CPlayer.filter(Column("score") == Column("id")), db, #"SELECT * FROM "player" WHERE "score" = "id""#)

                #expect(try CPlayer.filter(Column("teamID") == nil).fetchAll(db).map(\.name) == ["Barbara"])
                #expect(try CPlayer.filter(CPlayer.Columns.teamID == 1).fetchCount(db) == 2)
                #expect(try CPlayer.filter(Column("score") > 10 && Column("score") <= 100).fetchCount(db) == 2)
                // SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's does not.
                #expect(try CPlayer.filter(Column("name").like("%a%")).fetchCount(db) == (backend.isPostgreSQL ? 2 : 3))
                // PostgreSQL tables have no rowid.
                if !backend.isPostgreSQL {
                    #expect(try CPlayer.filter(Column.rowID == 3).fetchOne(db)?.name == "Craig")
                }
                #expect(Column("a\"b").description == #""a""b""#)
            }
        }
    }

    @Test(arguments: Backend.all) func valuesAreBoundInTheRecordsFormat(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.create(table: "player") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text)
                    t.column("teamID", .integer)
                    t.column("score", .integer)
                    t.column("joinedAt", .integer)
                }
                let date = Date(timeIntervalSince1970: 1_000)
                try MillisecondsCPlayer(id: 1, name: "A", teamID: nil, score: 0, joinedAt: date).insert(db)
                try expectSQL(
                    MillisecondsCPlayer.filter(Column("joinedAt") == date), db,
                    #"SELECT * FROM "player" WHERE "joinedAt" = ?"#, [1_000_000])
                #expect(try MillisecondsCPlayer.filter(Column("joinedAt") == date).fetchCount(db) == 1)
            }
        }
    }

    @Test(arguments: Backend.all) func orderingSelectionAndGrouping(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.write { db throws in
                try expectSQL(CPlayer.order(Column("score").desc), db, #"SELECT * FROM "player" ORDER BY "score" DESC"#)
                try expectSQL(CPlayer.order(Column("teamID"), Column("name")), db, #"SELECT * FROM "player" ORDER BY "teamID", "name""#)
                try expectSQL(
                    CPlayer.all().order(Column("teamID").asc, Column("score").desc), db,
                    #"SELECT * FROM "player" ORDER BY "teamID", "score" DESC"#)
                #expect(try CPlayer.order(Column("score").desc).fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Craig"])
                #expect(try CPlayer.select(Column("name"), as: String.self).order(Column("name").desc).fetchAll(db)
                    == ["Craig", "Barbara", "Arthur"])
                let grouped = CPlayer.all().select(sql: #""teamID", COUNT(*)"#, as: Int.self).group(Column("teamID")).having(sql: "COUNT(*) > ?", arguments: [1])
                try expectSQL(grouped, db, #"SELECT "teamID", COUNT(*) FROM "player" GROUP BY "teamID" HAVING COUNT(*) > ?"#, [1])
                #expect(try grouped.fetchAll(db) == [1])

                #expect(try CPlayer.all().updateAll(db, Column("score").set(to: 0)) == 3)
                #expect(try CPlayer.filter(Column("score") == 0).fetchCount(db) == 3)
                #expect(try CPlayer.all().select(QueryExpression<CPlayer, Int>(Column("score"))).fetchAll(db) == [0, 0, 0])
            }
        }
    }

    @Test(arguments: Backend.all) func unknownColumnsFailWithTheDatabaseError(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makePlayers(writer)
            try writer.read { db throws in
                let error = try #require(throws: DatabaseError.self) { try db.failingInSavepoint { try CPlayer.filter(Column("nope") == 1).fetchAll(db) } }
                #expect(error.message.contains(backend.isPostgreSQL ? #"column "nope" does not exist"# : "no such column: nope"))
            }
        }
    }
}
