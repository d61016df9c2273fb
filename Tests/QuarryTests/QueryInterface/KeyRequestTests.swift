// Requests by key and id, none(), orderByPrimaryKey(), isEmpty(_:), and raw
// SQL fragments with positional and named arguments; the exact SQL pinned.

import Foundation
import Quarry
import Testing

private struct KPlayer: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var score: Int
}

private struct KEvent: Codable, Identifiable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "event"
    static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { .uppercaseString }
    var id: UUID
    var title: String
}

private struct KTrack: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "playlistTrack"
    var playlistID: Int64
    var trackID: Int64
}

private func makeDatabase(_ writer: any DatabaseWriter) throws {
    try writer.write { db throws in
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("score", .integer).notNull()
        }
        try db.create(table: "event") { t in
            t.primaryKey("id", .text)
            t.column("title", .text)
        }
        try db.create(table: "playlistTrack") { t in
            t.column("playlistID", .integer)
            t.column("trackID", .integer)
            t.primaryKey(["playlistID", "trackID"])
        }
        for (id, name, score) in [(1, "Arthur", 100), (2, "Barbara", 50), (3, "Craig", 10)] as [(Int64, String, Int)] {
            try KPlayer(id: id, name: name, score: score).insert(db)
        }
        try KTrack(playlistID: 1, trackID: 7).insert(db)
        try KTrack(playlistID: 1, trackID: 8).insert(db)
    }
}

@Suite struct KeyRequestTests {
    @Test(arguments: Backend.all)
    func filtersByKeyAndID(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeDatabase(writer)
            try writer.write { db throws in
                try expectSQL(KPlayer.filter(key: 1), db, #"SELECT * FROM "player" WHERE "id" = ?"#, [1])
                try expectSQL(KPlayer.filter(keys: [1, 3]), db, #"SELECT * FROM "player" WHERE "id" IN (?, ?)"#, [1, 3])
                try expectSQL(KPlayer.filter(keys: [Int64]()), db, #"SELECT * FROM "player" WHERE FALSE"#)
                try expectSQL(KPlayer.filter(id: 2), db, #"SELECT * FROM "player" WHERE "id" = ?"#, [2])
                try expectSQL(KPlayer.filter(ids: [2, 3]), db, #"SELECT * FROM "player" WHERE "id" IN (?, ?)"#, [2, 3])
                try expectSQL(
                    KTrack.filter(key: ["playlistID": 1, "trackID": 8]), db,
                    #"SELECT * FROM "playlistTrack" WHERE ("playlistID" = ?) AND ("trackID" = ?)"#, [1, 8])
                try expectSQL(KPlayer.selectID(), db, #"SELECT "id" FROM "player""#)

                #expect(try KPlayer.filter(key: 2).fetchOne(db)?.name == "Barbara")
                #expect(try KPlayer.filter(id: 3).fetchOne(db)?.name == "Craig")
                #expect(try KPlayer.filter(ids: [1, 3, 42]).fetchCount(db) == 2)
                #expect(try KPlayer.filter(key: Int64?.none).fetchCount(db) == 0)
                #expect(try KPlayer.all().filter(\.score > 20).selectID().fetchAll(db).sorted() == [1, 2])
                #expect(try KTrack.filter(keys: [["playlistID": 1, "trackID": 7], ["playlistID": 1, "trackID": 8]]).fetchCount(db) == 2)
                #expect(try KTrack.filter(key: ["playlistID": 1, "trackID": nil]).fetchCount(db) == 0)
                #expect(try KPlayer.filter(ids: [1, 2]).deleteAll(db) == 2)
                #expect(try KPlayer.fetchCount(db) == 1)

                // Keys are bound in the record's format: here, uppercase UUID text.
                let id = UUID()
                try KEvent(id: id, title: "Launch").insert(db)
                try expectSQL(KEvent.filter(id: id), db, #"SELECT * FROM "event" WHERE "id" = ?"#, [id.uuidString])
                #expect(try KEvent.filter(id: id).fetchOne(db)?.title == "Launch")
                #expect(try KEvent.filter(ids: [id, UUID()]).fetchCount(db) == 1)
            }
        }
    }

    @Test(arguments: Backend.all) func keyFilterOnACompositePrimaryKeyThrows(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeDatabase(writer)
            try writer.read { db throws in
                let error = try #require(throws: DatabaseError.self) { try KTrack.filter(key: 1).fetchAll(db) }
                #expect(error.message.contains(#"the primary key of table "playlistTrack" has 2 columns"#) == true)
            }
        }
    }

    @Test(arguments: Backend.all) func noneOrderByPrimaryKeyAndIsEmpty(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeDatabase(writer)
            try writer.read { db throws in
                try expectSQL(KPlayer.none(), db, #"SELECT * FROM "player" WHERE FALSE"#)
                #expect(try KPlayer.none().fetchAll(db).isEmpty)
                #expect(try KPlayer.all().none().isEmpty(db))
                #expect(try !KPlayer.all().isEmpty(db))
                #expect(try KPlayer.filter(\.score > 1000).isEmpty(db))

                try expectSQL(KPlayer.orderByPrimaryKey(), db, #"SELECT * FROM "player" ORDER BY "id""#)
                try expectSQL(KTrack.orderByPrimaryKey(), db, #"SELECT * FROM "playlistTrack" ORDER BY "playlistID", "trackID""#)
                try expectSQL(KPlayer.orderByPrimaryKey().reversed(), db, #"SELECT * FROM "player" ORDER BY "id" DESC"#)
                try expectSQL(KPlayer.order(\.name).orderByPrimaryKey(), db, #"SELECT * FROM "player" ORDER BY "id""#)
                try expectSQL(KPlayer.orderByPrimaryKey().order(\.name), db, #"SELECT * FROM "player" ORDER BY "name""#)
                #expect(try KPlayer.orderByPrimaryKey().fetchAll(db).map(\.id) == [1, 2, 3])
            }
        }
    }

    @Test(arguments: Backend.all) func rawSQLFragmentsWithPositionalAndNamedArguments(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeDatabase(writer)
            try writer.read { db throws in
                try expectSQL(
                    KPlayer.filter(sql: "score > :minimum AND name <> :name", arguments: ["minimum": 20, "name": "Arthur"]), db,
                    #"SELECT * FROM "player" WHERE score > ? AND name <> ?"#, [20, "Arthur"])
                #expect(try KPlayer.filter(sql: "score > :minimum", arguments: ["minimum": 20]).fetchCount(db) == 2)
                #expect(try KPlayer.filter(sql: "score > ?", arguments: [20]).filter(\.name != "Arthur").fetchCount(db) == 1)
                // Placeholders inside literals and quoted identifiers are left alone.
                try expectSQL(
                    KPlayer.filter(sql: "name <> ':x' AND \"score\" > @x", arguments: ["x": 1]), db,
                    #"SELECT * FROM "player" WHERE name <> ':x' AND "score" > ?"#, [1])
                try expectSQL(KPlayer.filter(sql: "score BETWEEN ?2 AND ?1", arguments: [100, 10]), db,
                    #"SELECT * FROM "player" WHERE score BETWEEN ? AND ?"#, [10, 100])
                try expectSQL(KPlayer.order(sql: "score DESC"), db, #"SELECT * FROM "player" ORDER BY score DESC"#)
                #expect(try KPlayer.order(sql: "score DESC").fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Craig"])
                try expectSQL(KPlayer.select(sql: "id, upper(name) AS name, score"), db, #"SELECT id, upper(name) AS name, score FROM "player""#)
                #expect(try KPlayer.select(sql: "id, upper(name) AS name, score").order(\.id).fetchAll(db).first?.name == "ARTHUR")
                #expect(try KPlayer.select(sql: "SUM(score) + :bonus", arguments: ["bonus": 1], as: Int.self).fetchOne(db) == 161)
            }
        }
    }

    @Test(arguments: Backend.all) func rawSQLArgumentMismatchesThrow(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try makeDatabase(writer)
            try writer.read { db throws in
                let missing = try #require(throws: DatabaseError.self) {
                    try KPlayer.filter(sql: "score > :minimum", arguments: ["maximum": 1]).fetchAll(db)
                }
                #expect(missing.message.contains("missing argument for parameter :minimum") == true)
                let extra = try #require(throws: DatabaseError.self) {
                    try KPlayer.filter(sql: "score > ?", arguments: [1, 2]).fetchAll(db)
                }
                #expect(extra.message.contains("2 positional argument(s) for 1 parameter(s)") == true)
                #expect(throws: DatabaseError.self) { try KPlayer.filter(sql: "score > ?").fetchAll(db) }
            }
        }
    }
}
