// Decoding errors of records: each names the record type, the column and what
// was found, and none crashes.

import Foundation
import Quarry
import Testing

struct ErrPlayer: Codable, FetchableRecord, TableRecord {
    var id: Int64
    var name: String
    var score: Int
    var address: Address?
    var mood: Mood?
    var level: Level?
    static let databaseTableName = "player"
}

@Suite("Record decoding errors")
struct RecordDecodingErrorTests {
    /// The message of the error thrown by `body`.
    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// SQLite's `score` column is untyped; PostgreSQL's becomes text for
    /// the value that does not convert.
    @Test(arguments: Backend.allWithMemory)
    func errorsNameRecordColumnAndValue(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score \(storage.isPostgreSQL ? "BIGINT" : ""), \
                address TEXT, mood TEXT, level INTEGER);
                INSERT INTO player VALUES (1, 'ok', 10, '{"street":"s"}', 'happy', 1);
                """)
            #expect(try ErrPlayer.fetchOne(db, key: 1)?.address == Address(street: "s", zip: nil))

            // Missing column.
            #expect(message { _ = try ErrPlayer.fetchAll(db, sql: "SELECT id, score FROM player") }
                == #"cannot decode String for ErrPlayer from column "name": no such column (the row has "id", "score") — in `SELECT id, score FROM player`"#)
            // NULL into a non-optional property.
            try db.execute(sql: "UPDATE player SET name = NULL")
            #expect(message { _ = try ErrPlayer.fetchAll(db) }
                == #"cannot decode String for ErrPlayer from column "name": found NULL — in `SELECT * FROM "player"`"#)
            // A value that does not convert.
            if storage.isPostgreSQL { try db.execute(sql: "ALTER TABLE player ALTER COLUMN score TYPE TEXT") }
            try db.execute(sql: "UPDATE player SET name = 'n', score = 'abc'")
            #expect(message { _ = try ErrPlayer.fetchOne(db, key: 1) }
                == #"cannot decode Int for ErrPlayer from column "score": found text 'abc' — in `SELECT * FROM "player" WHERE "id" = \#(storage.isPostgreSQL ? "$1" : "?")`"#)
            // Bad JSON.
            if storage.isPostgreSQL { try db.execute(sql: "ALTER TABLE player ALTER COLUMN score TYPE BIGINT USING 1") }
            try db.execute(sql: "UPDATE player SET score = 1, address = '{oops'")
            let json = message { _ = try ErrPlayer.fetchAll(db) }
            #expect(json?.hasPrefix(#"cannot decode Address for ErrPlayer from column "address": invalid JSON: '{oops' ("#) == true)
            #expect(json?.hasSuffix(" — in `SELECT * FROM \"player\"`") == true)
            // JSON of the wrong shape.
            try db.execute(sql: #"UPDATE player SET address = '{"zip":1}'"#)
            let shape = message { _ = try ErrPlayer.fetchAll(db) }
            #expect(shape?.hasPrefix(#"cannot decode Address for ErrPlayer from column "address": invalid JSON: '{"zip":1}' ("#) == true)
            #expect(shape?.contains("street") == true)
            // A raw value that matches no case (DatabaseValueConvertible enum).
            try db.execute(sql: "UPDATE player SET address = NULL, mood = 'sad'")
            #expect(message { _ = try ErrPlayer.fetchAll(db) }
                == #"cannot decode Mood for ErrPlayer from column "mood": found text 'sad' — in `SELECT * FROM "player"`"#)
            // A raw value that matches no case (Codable-only enum).
            try db.execute(sql: "UPDATE player SET mood = NULL, level = 7")
            #expect(message { _ = try ErrPlayer.fetchAll(db) }
                == #"cannot decode Level for ErrPlayer from column "level": found integer 7 (Cannot initialize Level from invalid Int value 7) — in `SELECT * FROM "player"`"#)
            // The Row path (init(row:)) reports the same, without SQL.
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM player"))
            #expect(message { _ = try ErrPlayer(row: row) }
                == #"cannot decode Level for ErrPlayer from column "level": found integer 7 (Cannot initialize Level from invalid Int value 7)"#)
            let error = try #require(throws: RowDecodingError.self) { _ = try ErrPlayer(row: row) }
            #expect(error.recordType == "ErrPlayer")
            #expect(error.column == "level")
            // Optional properties whose columns are missing are nil.
            let partial = try #require(try ErrPlayer.fetchOne(db, sql: "SELECT id, name, score FROM player"))
            #expect(partial.address == nil && partial.mood == nil && partial.level == nil)
        }
    }

    @Test(arguments: Backend.all)
    func unsupportedShapesThrow(_ backend: Backend) throws {
        struct Unkeyed: Codable, FetchableRecord {
            var value: Int
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                value = try container.decode(Int.self)
            }
        }
        try backend.withWriter { writer in
            try writer.read { db in
                #expect(message { _ = try Unkeyed.fetchAll(db, sql: "SELECT 1 AS value") }?
                    .contains("records decode with a keyed container; Unkeyed asked for an unkeyed container") == true)
            }
        }
    }
}
