// Regression tests: nested Codable values (stored as JSON) use GRDB's JSON
// formats by default (dates as milliseconds since 1970, data as base64, sorted
// keys), and a record can choose its own coders per column. Before, nested
// dates used Foundation's default (seconds since 2001), so a date written by a
// GRDB app read back as another date, with no error.

import Foundation
import Quarry
import Testing

struct JSONAddress: Codable, Equatable {
    var city: String
    var since: Date
}

struct JSONPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var address: JSONAddress
    var visits: [Date]
    var tags: [String: Data]
}

/// A record with its own JSON coders: ISO 8601 dates in "address" only.
struct ISOAddressPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    static func databaseJSONEncoder(for column: String) -> JSONEncoder {
        let encoder = JSONEncoder.databaseDefault()
        if column == "address" { encoder.dateEncodingStrategy = .iso8601 }
        return encoder
    }
    static func databaseJSONDecoder(for column: String) -> JSONDecoder {
        let decoder = JSONDecoder.databaseDefault()
        if column == "address" { decoder.dateDecodingStrategy = .iso8601 }
        return decoder
    }
    var id: Int64?
    var name: String
    var address: JSONAddress
    var visits: [Date]
    var tags: [String: Data]
}

@Suite struct JSONFormatTests {
    static let since = Date(timeIntervalSince1970: 1_700_000_000.123)
    /// The table, with the schema DSL: JSON is stored as text on both backends.
    static func createSchema(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            for column in ["name", "address", "visits", "tags"] { t.column(column, .text).notNull() }
        }
    }
    @Test(arguments: Backend.all)
    func nestedValuesAreWrittenInGRDBsFormat(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try Self.createSchema(db)
                var player = JSONPlayer(
                    id: nil, name: "Arthur", address: JSONAddress(city: "Oslo", since: Self.since),
                    visits: [Self.since, Self.since.addingTimeInterval(60)], tags: ["b": Data([0, 1, 2, 255])])
                try player.insert(db)
                let row = try #require(try Row.fetchOne(db, sql: "SELECT address, visits, tags FROM player"))
                #expect(try row["address"] == DatabaseValue.text(#"{"city":"Oslo","since":1700000000123}"#))
                #expect(try row["visits"] == DatabaseValue.text("[1700000000123,1700000060123]"))
                #expect(try row["tags"] == DatabaseValue.text(#"{"b":"AAEC\/w=="}"#))
                #expect(try JSONPlayer.fetchOne(db) == player)
            }
        }
    }

    /// JSON text exactly as GRDB writes it reads back as the same dates.
    @Test(arguments: Backend.all)
    func jsonWrittenByGRDBReadsBackUnchanged(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try Self.createSchema(db)
                try db.execute(sql: """
                    INSERT INTO player (id, name, address, visits, tags)
                    VALUES (1, 'Arthur', '{"city":"Oslo","since":1700000000123}', '[1700000000123,1700000060123]', '{"b":"AAEC\\/w=="}')
                    """)
            }
            let player = try writer.read { db in try #require(try JSONPlayer.fetchOne(db)) }
            #expect(abs(player.address.since.timeIntervalSince1970 - 1_700_000_000.123) < 0.000_5)
            #expect(player.visits.map { ($0.timeIntervalSince1970 * 1000).rounded() } == [1_700_000_000_123, 1_700_000_060_123])
            #expect(player.tags == ["b": Data([0, 1, 2, 255])])
            // Selected nested values read in the same format.
            let address = try writer.read { db in try JSONPlayer.select(\.address).fetchOne(db) }
            #expect(address?.city == "Oslo")
            #expect(address.map { abs($0.since.timeIntervalSince1970 - 1_700_000_000.123) < 0.000_5 } == true)
        }
    }

    /// The file a GRDB 7.10 app wrote (shared/data/grdb-written.sqlite).
    @Test func grdbWrittenFileReadsBackUnchanged() throws {
        struct Address: Codable { var city: String; var since: Date }
        struct Player: Codable, FetchableRecord, TableRecord {
            var id: Int64?; var uuid: UUID; var name: String; var joinedAt: Date
            var address: Address; var visits: [Date]; var avatar: Data?
        }
        struct Event: Codable, FetchableRecord, PersistableRecord {
            static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { .uppercaseString }
            static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { .millisecondsSince1970 }
            static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .millisecondsSince1970 }
            var id: UUID; var happenedAt: Date; var note: String
        }
        let directory = try TemporaryDirectory()
        let path = try grdbWrittenCopy(in: directory)
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.read { db in
            let players = try Player.order(\.id).fetchAll(db)
            #expect(players.map(\.name) == ["Arthur", "Barbara", "Chloé"])
            let first = try #require(players.first)
            #expect(first.address.city == "Oslo")
            #expect(abs(first.address.since.timeIntervalSince1970 - 1_700_000_000.123) < 0.000_5, "read \(first.address.since)")
            #expect(first.visits.map { ($0.timeIntervalSince1970 * 1000).rounded() } == [1_700_000_000_123, 1_700_000_060_123])
            #expect(first.avatar == Data([0, 1, 2, 255]))
            #expect(abs(first.joinedAt.timeIntervalSince1970 - 1_700_000_000.123) < 0.000_5)
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E00"))
            #expect(try Player.filter(\.uuid == uuid).fetchOne(db)?.name == "Arthur")

            let eventID = try #require(UUID(uuidString: "0A0B0C0D-0000-4000-8000-000000000001"))
            let happenedAt = Date(timeIntervalSince1970: 1_700_000_001.123)
            #expect(try Event.fetchOne(db, key: eventID)?.note == "event 1")
            #expect(try Event.filter(\.happenedAt == happenedAt).fetchOne(db)?.note == "event 1")
            #expect(try Event.filter(\.happenedAt > happenedAt).fetchCount(db) == 1)
        }
    }
    @Test(arguments: Backend.all)
    func recordsChooseTheirJSONCodersPerColumn(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try Self.createSchema(db)
                var player = ISOAddressPlayer(
                    id: nil, name: "Arthur", address: JSONAddress(city: "Oslo", since: Date(timeIntervalSince1970: 1_700_000_000)),
                    visits: [Date(timeIntervalSince1970: 1_700_000_000)], tags: [:])
                try player.insert(db)
                let row = try #require(try Row.fetchOne(db, sql: "SELECT address, visits FROM player"))
                #expect(try row["address"] == DatabaseValue.text(#"{"city":"Oslo","since":"2023-11-14T22:13:20Z"}"#))
                #expect(try row["visits"] == DatabaseValue.text("[1700000000000]"))
                #expect(try ISOAddressPlayer.fetchOne(db) == player)
                // A query value is encoded with the column's encoder, as insert does.
                try expectSQL(
                    ISOAddressPlayer.filter(\.address == player.address), db,
                    "SELECT * FROM \"player\" WHERE \"address\" = ?", [#"{"city":"Oslo","since":"2023-11-14T22:13:20Z"}"#])
                #expect(try ISOAddressPlayer.filter(\.address == player.address).fetchCount(db) == 1)
                #expect(try JSONPlayer.filter(\.address == player.address).fetchCount(db) == 0)
            }
        }
    }
    @Test(arguments: Backend.all) func jsonInAnotherFormatThrowsNamingTheColumn(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try Self.createSchema(db)
                // A nested date as text, where the decoder expects milliseconds:
                // refused, with the column named.
                try db.execute(sql: """
                    INSERT INTO player (name, address, visits, tags) VALUES ('x', '{"city":"Oslo","since":"yesterday"}', '[]', '{}')
                    """)
                #expect {
                    try JSONPlayer.fetchAll(db)
                } throws: { error in
                    guard let error = error as? RowDecodingError else { return false }
                    return error.column == "address" && "\(error)".contains("invalid JSON")
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func nonFiniteNumbersInJSONAreRefused(_ backend: Backend) throws {
        struct Measure: Codable { var value: Double }
        struct Sample: Codable, FetchableRecord, PersistableRecord {
            var id: Int64?
            var measure: Measure
        }
        try backend.withWriter { writer in try writer.write { db in
            try db.execute(sql: "CREATE TABLE sample (id INTEGER PRIMARY KEY, measure TEXT)")
            var sample = Sample(id: nil, measure: Measure(value: .infinity))
            #expect {
                try sample.insert(db)
            } throws: { error in
                "\(error)".contains("measure") && "\(error)".contains("Sample")
            }
            #expect(try Sample.fetchCount(db) == 0)
        } }
    }
}
