// Regression tests: every place where a Swift value of a record's property
// becomes an SQL argument encodes it exactly as the record's persistence
// does. Before, a record that stores dates as milliseconds (or UUIDs as text)
// was queried with the default formats, and filters, keys, IN lists, BETWEEN,
// assignments and association filters silently matched nothing.
//
// Table-driven: every date strategy and every UUID strategy, through every
// entry point, on a queue and a pool.

import Foundation
@testable import Quarry
import Testing

/// The strategies of one record type.
protocol EventFormat: Sendable {
    static var date: DatabaseDateEncodingStrategy { get }
    static var uuid: DatabaseUUIDEncodingStrategy { get }
}

extension EventFormat {
    /// The PostgreSQL column type of a date in this format (SQLite's columns are untyped).
    static var postgresDateType: String {
        switch date {
        case .default: "TIMESTAMPTZ"
        case .secondsSince1970: "DOUBLE PRECISION"
        case .millisecondsSince1970: "BIGINT"
        default: "TEXT"
        }
    }

    /// The PostgreSQL column type of a UUID in this format.
    static var postgresUUIDType: String {
        if case .blob = uuid { return "BYTEA" }
        return "TEXT"
    }
}

enum DefaultFormat: EventFormat {
    static var date: DatabaseDateEncodingStrategy { .default }
    static var uuid: DatabaseUUIDEncodingStrategy { .blob }
}
enum ISOUppercaseFormat: EventFormat {
    static var date: DatabaseDateEncodingStrategy { .iso8601 }
    static var uuid: DatabaseUUIDEncodingStrategy { .uppercaseString }
}
enum SecondsLowercaseFormat: EventFormat {
    static var date: DatabaseDateEncodingStrategy { .secondsSince1970 }
    static var uuid: DatabaseUUIDEncodingStrategy { .lowercaseString }
}
enum MillisecondsUppercaseFormat: EventFormat {
    static var date: DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    static var uuid: DatabaseUUIDEncodingStrategy { .uppercaseString }
}
enum MillisecondsBlobFormat: EventFormat {
    static var date: DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    static var uuid: DatabaseUUIDEncodingStrategy { .blob }
}

struct FormatEvent<Format: EventFormat>: Codable, FetchableRecord, PersistableRecord, Equatable {
    static var databaseTableName: String { "event" }
    static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { Format.date }
    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy {
        Format.date == .millisecondsSince1970 ? .millisecondsSince1970 : .default
    }
    static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { Format.uuid }
    static var attendees: Association<FormatEvent, FormatAttendee<Format>> {
        hasMany(FormatAttendee<Format>.self, using: \.eventID)
    }

    var id: UUID
    var name: String
    var startsAt: Date
    var endsAt: Date?
}

struct FormatAttendee<Format: EventFormat>: Codable, FetchableRecord, PersistableRecord, Equatable {
    static var databaseTableName: String { "attendee" }
    static var databaseDateEncodingStrategy: DatabaseDateEncodingStrategy { Format.date }
    static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy {
        Format.date == .millisecondsSince1970 ? .millisecondsSince1970 : .default
    }
    static var databaseUUIDEncodingStrategy: DatabaseUUIDEncodingStrategy { Format.uuid }
    static var event: Association<FormatAttendee, FormatEvent<Format>> {
        belongsTo(FormatEvent<Format>.self, using: \.eventID)
    }

    var id: Int64?
    var eventID: UUID
    var joinedAt: Date
}

struct FormatEventWithAttendees<Format: EventFormat>: Decodable, FetchableRecord {
    var event: FormatEvent<Format>
    var attendees: [FormatAttendee<Format>]
}

/// One strategy combination, for test arguments.
struct FormatCase: CustomTestStringConvertible, Sendable {
    let name: String
    let run: @Sendable (any DatabaseWriter) throws -> Void
    var testDescription: String { name }

    static func of<F: EventFormat>(_ format: F.Type) -> FormatCase {
        FormatCase(name: "\(F.self)") { writer in try QueryValueFormatTests.checkEveryEntryPoint(F.self, writer) }
    }

    static let all: [FormatCase] = [
        .of(DefaultFormat.self), .of(ISOUppercaseFormat.self), .of(SecondsLowercaseFormat.self),
        .of(MillisecondsUppercaseFormat.self), .of(MillisecondsBlobFormat.self),
    ]
}

@Suite struct QueryValueFormatTests {
    static let eventID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let otherID = UUID(uuidString: "0F0E0D0C-0B0A-0908-0706-050403020100")!
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let end = Date(timeIntervalSince1970: 1_700_003_600.5)
    static let later = Date(timeIntervalSince1970: 1_800_000_000.75)

    @Test(arguments: FormatCase.all, Backend.all)
    func everyEntryPointBindsTheRecordsFormat(_ format: FormatCase, _ backend: Backend) throws {
        try backend.withWriter { writer in try format.run(writer) }
    }

    /// Every entry point, each expected to find the stored row (or to change it).
    static func checkEveryEntryPoint<F: EventFormat>(_ format: F.Type, _ writer: any DatabaseWriter) throws {
        typealias Event = FormatEvent<F>
        typealias Attendee = FormatAttendee<F>
        let id = eventID, start = start, end = end, later = later, otherID = otherID
        try writer.write { db in
            if db.isPostgreSQL {
                let date = F.postgresDateType, uuid = F.postgresUUIDType
                try db.execute(sql: """
                    CREATE TABLE event (id \(uuid) PRIMARY KEY, name TEXT NOT NULL, "startsAt" \(date) NOT NULL, "endsAt" \(date));
                    CREATE TABLE attendee (
                        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                        "eventID" \(uuid) NOT NULL REFERENCES event(id), "joinedAt" \(date) NOT NULL);
                    """)
            } else {
                try db.execute(sql: """
                    CREATE TABLE event (id PRIMARY KEY, name TEXT NOT NULL, startsAt NOT NULL, endsAt);
                    CREATE TABLE attendee (id INTEGER PRIMARY KEY, eventID NOT NULL REFERENCES event(id), joinedAt NOT NULL);
                    """)
            }
            var launch = Event(id: id, name: "launch", startsAt: start, endsAt: end)
            try launch.insert(db)
            var other = Event(id: otherID, name: "other", startsAt: later, endsAt: nil)
            try other.insert(db)
            var attendee = Attendee(id: nil, eventID: id, joinedAt: start)
            try attendee.insert(db)
        }
        try writer.read { db in
            // Comparisons on dates and UUIDs, on key paths and on expressions.
            #expect(try Event.filter(\.startsAt == start).fetchCount(db) == 1, "== Date")
            #expect(try Event.filter(\.endsAt == end).fetchCount(db) == 1, "== Date?")
            #expect(try Event.filter(\.id == id).fetchCount(db) == 1, "== UUID")
            #expect(try Event.filter(\.id != id).fetchCount(db) == 1, "!= UUID")
            #expect(try Event.filter(\.startsAt != start).fetchCount(db) == 1, "!= Date")
            #expect(try Event.filter(QueryExpression(\.startsAt) == start).fetchCount(db) == 1, "expression == Date")
            #expect(try Event.filter { $0.startsAt == start }.fetchCount(db) == 1, "closure == Date")
            #expect(try Event.filter(\.startsAt <= start).fetchCount(db) == 1, "<= Date")
            #expect(try Event.filter(\.startsAt < later).fetchCount(db) == 1, "< Date")
            #expect(try Event.filter(\.startsAt >= later).fetchCount(db) == 1, ">= Date")
            #expect(try Event.filter(\.startsAt > start).fetchCount(db) == 1, "> Date")
            #expect(try Event.filter(\.endsAt ?? later == later).fetchCount(db) == 1, "IFNULL(Date?, Date)")
            // IN, NOT IN, BETWEEN and half-open ranges.
            #expect(try Event.filter([start].contains(\.startsAt)).fetchCount(db) == 1, "IN Date")
            #expect(try Event.filter([end].contains(\.endsAt)).fetchCount(db) == 1, "IN Date?")
            #expect(try Event.filter([id].contains(\.id)).fetchCount(db) == 1, "IN UUID")
            #expect(try Event.filter(QueryExpression(\.id).in([id, otherID])).fetchCount(db) == 2, "in(_:) UUID")
            #expect(try Event.filter(QueryExpression(\.id).notIn([id])).fetchCount(db) == 1, "notIn(_:) UUID")
            #expect(try Event.filter((start...start).contains(\.startsAt)).fetchCount(db) == 1, "BETWEEN Date")
            #expect(try Event.filter(QueryExpression(\.startsAt).between(start, and: end)).fetchCount(db) == 1, "between(_:and:)")
            #expect(try Event.filter((start..<later).contains(\.startsAt)).fetchCount(db) == 1, "Range Date")
            // Keys: the primary key is a UUID.
            #expect(try Event.fetchOne(db, key: id)?.name == "launch", "fetchOne(key:)")
            #expect(try Event.fetchOne(db, key: ["id": id])?.name == "launch", "fetchOne(key: [column: value])")
            #expect(try Event.find(db, key: id).name == "launch", "find(key:)")
            #expect(try Event.exists(db, key: id), "exists(key:)")
            #expect(try Event.exists(db, key: ["id": id]), "exists(key: [column: value])")
            #expect(try Event.fetchAll(db, keys: [id, otherID]).count == 2, "fetchAll(keys:)")
            // The read-back values are the stored ones.
            let event = try #require(try Event.fetchOne(db, key: id))
            #expect(event.id == id)
            #expect(abs(event.startsAt.timeIntervalSince(start)) < 0.001)
            // Selected values read in the record's format.
            let selected = try #require(try Event.filter(\.id == id).select(\.startsAt).fetchOne(db))
            #expect(abs(selected.timeIntervalSince(start)) < 0.001, "select(\\.startsAt) read \(selected)")
            let selectedEnd = try Event.filter(\.id == id).select(\.endsAt).fetchOne(db)
            #expect(selectedEnd.map { abs($0!.timeIntervalSince(end)) < 0.001 } == true, "select(\\.endsAt)")
            // Associations: filters on the associated record, and eager loading.
            let joined = Event.joining(required: Event.attendees.filter(\.joinedAt == start))
            #expect(try joined.fetchCount(db) == 1, "association filter on a Date")
            let byEvent = Attendee.joining(required: Attendee.event.filter { $0.id == id })
            #expect(try byEvent.fetchCount(db) == 1, "association filter on a UUID key")
            #expect(try Attendee.filter(\.eventID == id).fetchCount(db) == 1, "foreign key == UUID")
            let loaded = try Event.including(all: Event.attendees).filter(\.id == id)
                .asRequest(of: FormatEventWithAttendees<F>.self).fetchAll(db)
            #expect(loaded.map(\.attendees.count) == [1], "including(all:)")
        }
        try writer.write { db in
            // Batch updates: the assigned value is stored as insert stores it.
            let updated = try Event.filter(\.id == id).updateAll(db, \.endsAt <- later)
            #expect(updated == 1, "updateAll filter")
            #expect(try Event.filter(\.endsAt == later).fetchCount(db) == 1, "updateAll assignment")
            let stored = try Event.fetchOne(db, key: id)?.endsAt
            #expect(stored.map { abs($0.timeIntervalSince(later)) < 0.001 } == true, "updateAll round trip")
            // Batch deletes and deletes by key.
            #expect(try Event.filter(\.startsAt == later).deleteAll(db) == 1, "deleteAll filter")
            try Attendee.deleteAll(db)
            #expect(try Event.deleteOne(db, key: id), "deleteOne(key:)")
            var again = Event(id: id, name: "launch", startsAt: start, endsAt: end)
            try again.insert(db)
            #expect(try Event.deleteOne(db, key: ["id": id]), "deleteOne(key: [column: value])")
            try again.insert(db)
            #expect(try Event.deleteAll(db, keys: [id]) == 1, "deleteAll(keys:)")
            #expect(try Event.fetchCount(db) == 0)
        }
    }

    /// A FetchableRecord that only reads binds dates the way it reads them.
    @Test(arguments: Backend.all)
    func readOnlyRecordBindsDatesAsItReadsThem(_ backend: Backend) throws {
        struct Reading: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "reading"
            static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .millisecondsSince1970 }
            var takenAt: Date
        }
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: #"CREATE TABLE reading ("takenAt" BIGINT NOT NULL); INSERT INTO reading VALUES (1700000000250)"#)
                let date = Date(timeIntervalSince1970: 1_700_000_000.25)
                try expectSQL(Reading.filter(\.takenAt == date), db, "SELECT * FROM \"reading\" WHERE \"takenAt\" = ?", [1_700_000_000_250])
                #expect(try Reading.filter(\.takenAt == date).fetchCount(db) == 1)
            }
        }
    }

    /// The exact arguments bound for each strategy.
    /// The arguments do not depend on the column types: on PostgreSQL the
    /// table has text columns (SQLite's are untyped).
    @Test(arguments: Backend.all) func boundArgumentsFollowTheStrategies(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: backend.isPostgreSQL
                    ? #"CREATE TABLE event (id TEXT PRIMARY KEY, name TEXT NOT NULL, "startsAt" TEXT NOT NULL, "endsAt" TEXT)"#
                    : "CREATE TABLE event (id PRIMARY KEY, name TEXT NOT NULL, startsAt NOT NULL, endsAt)")
                let date = Date(timeIntervalSince1970: 1_700_000_000.25)
                try expectSQL(
                    FormatEvent<MillisecondsUppercaseFormat>.filter(\.startsAt == date), db,
                    "SELECT * FROM \"event\" WHERE \"startsAt\" = ?", [1_700_000_000_250])
                try expectSQL(
                    FormatEvent<SecondsLowercaseFormat>.filter(\.startsAt == date), db,
                    "SELECT * FROM \"event\" WHERE \"startsAt\" = ?", [1_700_000_000.25])
                try expectSQL(
                    FormatEvent<ISOUppercaseFormat>.filter(\.startsAt == date), db,
                    "SELECT * FROM \"event\" WHERE \"startsAt\" = ?", ["2023-11-14T22:13:20.250Z"])
                try expectSQL(
                    FormatEvent<DefaultFormat>.filter(\.startsAt == date), db,
                    "SELECT * FROM \"event\" WHERE \"startsAt\" = ?", ["2023-11-14 22:13:20.250"])
                try expectSQL(
                    FormatEvent<ISOUppercaseFormat>.filter(\.id == Self.eventID), db,
                    "SELECT * FROM \"event\" WHERE \"id\" = ?", ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"])
                try expectSQL(
                    FormatEvent<SecondsLowercaseFormat>.filter(\.id == Self.eventID), db,
                    "SELECT * FROM \"event\" WHERE \"id\" = ?", ["e621e1f8-c36c-495a-93fc-0c247a3e6e5f"])
            }
        }
    }
}
