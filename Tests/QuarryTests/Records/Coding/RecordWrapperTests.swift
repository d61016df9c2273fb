// Regression tests: records whose init(from:) asks for
// `decoder.singleValueContainer()` (a wrapper around another record or a
// value) decode from the row, as in GRDB, and their key paths resolve
// through the wrapped type. Before, they threw "records decode with a keyed
// container".

import Foundation
import Quarry
import Testing

/// A wrapper around another record, with its own table.
struct RankedPlayer: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "player"
    var player: QPlayer
    init(from decoder: any Decoder) throws {
        player = try decoder.singleValueContainer().decode(QPlayer.self)
    }
}

/// A wrapper around a plain Decodable struct (not a record).
struct Scoreline: Decodable, Equatable {
    var name: String
    var score: Int
}

struct ScorelineRecord: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "player"
    var line: Scoreline
    init(from decoder: any Decoder) throws {
        line = try decoder.singleValueContainer().decode(Scoreline.self)
    }
}

/// A wrapper around a single value: the row's first column.
struct PlayerName: Decodable, FetchableRecord, Equatable {
    var name: String
    init(from decoder: any Decoder) throws {
        name = try decoder.singleValueContainer().decode(String.self)
    }
}

/// A wrapper whose wrapped record has its own date strategy.
struct Stamp: Codable, FetchableRecord, PersistableRecord {
    static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .millisecondsSince1970 }
    var id: Int64?
    var at: Date
}

struct StampWrapper: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "stamp"
    var stamp: Stamp
    init(from decoder: any Decoder) throws {
        stamp = try decoder.singleValueContainer().decode(Stamp.self)
    }
}

@Suite struct RecordWrapperTests {
    @Test(arguments: Backend.all)
    func wrappersAroundRecordsFetchAndResolveKeyPaths(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let ranked = try RankedPlayer.order(\.player.score.self).fetchAll(db)
                #expect(ranked.map(\.player.name) == ["Eve_%", "Dora", "Arthur", "Cheng", "Barbara"])
                // Key paths through the wrapped record name its columns.
                let top = RankedPlayer.filter(\.player.score > 150).order(\.player.score)
                try expectSQL(top, db, "SELECT * FROM \"player\" WHERE \"score\" > ? ORDER BY \"score\"", [150])
                #expect(try top.fetchAll(db).map(\.player.name) == ["Cheng", "Barbara"])
                #expect(try RankedPlayer.filter(\.player.teamID == nil).fetchCount(db) == 2)
                // Raw SQL and init(row:) too.
                let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM player WHERE id = 1"))
                #expect(try RankedPlayer(row: row).player.name == "Arthur")
                #expect(try RankedPlayer.fetchOne(db, sql: "SELECT * FROM player WHERE id = ?", arguments: [2])?.player.name == "Barbara")

                let lines = try ScorelineRecord.filter(\.line.score >= 175).order(\.line.name).fetchAll(db)
                #expect(lines.map(\.line) == [Scoreline(name: "Barbara", score: 250), Scoreline(name: "Cheng", score: 175)])

                let names = try PlayerName.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id")
                #expect(names.map(\.name) == ["Arthur", "Barbara", "Cheng", "Dora", "Eve_%"])
            }
        }
    }

    /// Milliseconds need a 64-bit column: the schema DSL's `.integer` is BIGINT on PostgreSQL.
    @Test(arguments: Backend.all) func wrappedRecordKeepsItsOwnStrategies(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "stamp") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("at", .integer).notNull()
                }
                var stamp = Stamp(id: nil, at: Date(timeIntervalSince1970: 1_700_000_000.5))
                try stamp.insert(db)
                let wrapped = try #require(try StampWrapper.fetchOne(db))
                #expect(wrapped.stamp.at == stamp.at)
                #expect(try StampWrapper.filter(\.stamp.at == stamp.at).fetchCount(db) == 1)
            }
        }
    }

    @Test(arguments: Backend.all) func wrapperErrorsNameTheColumn(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.read { db in
                // NULL in the first column of a single-value wrapper.
                let error = try #require(throws: RowDecodingError.self) { _ = try PlayerName.fetchAll(db, sql: "SELECT NULL AS name") }
                #expect(error.column == "name")
                #expect(error.recordType == "PlayerName")
                // A wrapped record whose columns are missing.
                let missing = try #require(throws: RowDecodingError.self) { _ = try RankedPlayer.fetchAll(db, sql: "SELECT 1 AS id") }
                #expect(missing.column == "name")
                // No column at all.
                #expect(throws: RowDecodingError.self) { _ = try PlayerName(row: Row(columnNames: [], databaseValues: [])) }
            }
        }
    }
}
