// Tests of key path → column resolution: renamed keys, optionals, Booleans,
// enums, nested values, computed properties, classes, generics.

import Foundation
import Quarry
import Testing

struct KPEverything: Codable, TableRecord, FetchableRecord {
    enum Mood: String, Codable, CaseIterable { case happy, sad }
    enum Level: Int, Codable { case low = 1, high = 5 }
    enum Only: String, Codable, CaseIterable { case one }
    struct Address: Codable { var street: String; var city: String }

    var id: Int64
    var name: String
    var nickname: String?
    var active: Bool
    var verified: Bool
    var admin: Bool?
    var ratio: Double
    var small: Int8
    var big: UInt64
    var date: Date
    var uuid: UUID
    var url: URL
    var price: Decimal
    var data: Data
    var mood: Mood
    var level: Level
    var only: Only
    var address: Address
    var tags: [String]
    var scores: [String: Int]
    var teamID: Int64?
    var notStored: Int = 7

    var doubled: Int64 { id * 2 }
    var same: Int64 { id }

    enum CodingKeys: String, CodingKey {
        case id, name, nickname, active, verified, admin, ratio, small, big, date, uuid, url, price, data
        case mood, level, only, address, tags, scores
        case teamID = "team_id"
    }
}

struct KPGroup: Codable, ColumnGroup {
    struct Inner: Codable, ColumnGroup { var x: Int; var y: Int }
    var street: String
    var city: String
    var inner: Inner
    var shout: String { city.uppercased() }
}

struct KPGrouped: Codable, TableRecord, FetchableRecord {
    var id: Int64
    var home: KPGroup
    var work: KPGroup?
}

enum KPMedia: Codable, TableRecord, FetchableRecord {
    struct Book: Codable { var id: Int64; var title: String }
    case book(Book)
    case note(text: String)
    var text: String? { if case .note(let text) = self { return text } else { return nil } }
}

@Suite struct RecordColumnsTests {
    /// The column `keyPath` selects, as the backend of `writer` writes it.
    func column<Root: Decodable & TableRecord, Value>(
        _ writer: any DatabaseReader, _ keyPath: KeyPath<Root, Value>
    ) throws -> String {
        try writer.read { db throws in
            let sql = try Root.select(keyPath).sql(db).sql
            return String(sql.dropFirst("SELECT ".count).prefix { $0 != " " })
        }
    }

    @Test(arguments: Backend.all)
    func everyStoredPropertyMapsToItsCodingKey(backend: Backend) throws {
        try backend.withWriter { writer throws in
            #expect(try column(writer, \KPEverything.id) == "\"id\"")
            #expect(try column(writer, \KPEverything.name) == "\"name\"")
            #expect(try column(writer, \KPEverything.nickname) == "\"nickname\"")
            #expect(try column(writer, \KPEverything.active) == "\"active\"")
            #expect(try column(writer, \KPEverything.verified) == "\"verified\"")
            #expect(try column(writer, \KPEverything.admin) == "\"admin\"")
            #expect(try column(writer, \KPEverything.ratio) == "\"ratio\"")
            #expect(try column(writer, \KPEverything.small) == "\"small\"")
            #expect(try column(writer, \KPEverything.big) == "\"big\"")
            #expect(try column(writer, \KPEverything.date) == "\"date\"")
            #expect(try column(writer, \KPEverything.uuid) == "\"uuid\"")
            #expect(try column(writer, \KPEverything.url) == "\"url\"")
            #expect(try column(writer, \KPEverything.price) == "\"price\"")
            #expect(try column(writer, \KPEverything.data) == "\"data\"")
            #expect(try column(writer, \KPEverything.mood) == "\"mood\"")
            #expect(try column(writer, \KPEverything.level) == "\"level\"")
            #expect(try column(writer, \KPEverything.address) == "\"address\"")
            #expect(try column(writer, \KPEverything.tags) == "\"tags\"")
            #expect(try column(writer, \KPEverything.scores) == "\"scores\"")
            #expect(try column(writer, \KPEverything.teamID) == "\"team_id\"")
        }
    }

    @Test(arguments: Backend.all)
    func computedPropertiesAreRefused(backend: Backend) throws {
        try backend.withWriter { writer throws in
            let error = try #require(throws: KeyPathColumnError.self) { try column(writer, \KPEverything.doubled) }
            #expect(error.description == "\\KPEverything.<computed property of type Int64> does not name a column of KPEverything: it is a computed property")
            #expect(throws: KeyPathColumnError.self) { try column(writer, \KPEverything.same) }
        }
    }

    @Test(arguments: Backend.all)
    func pathsIntoNestedValuesReadJSONAndUncodedPropertiesAreRefused(backend: Backend) throws {
        try backend.withWriter { writer throws in
            // A path into a nested struct reads its JSON member (JSONKeyPathTests).
            let sql = try writer.read { db throws in try KPEverything.select(\.address.city).sql(db) }
            if backend.isPostgreSQL {
                #expect(sql.sql == #"SELECT CAST("address" AS JSONB) #>> ? FROM "kpEverything""#)
                #expect(sql.arguments == [#"{"city"}"#])
            } else {
                #expect(try column(writer, \KPEverything.address.city) == "\"address\"")
                #expect(sql.sql == #"SELECT "address" ->> ? FROM "kpEverything""#)
                #expect(sql.arguments == ["$.city"])
            }
            #expect(throws: KeyPathColumnError.self) { try column(writer, \KPEverything.notStored) }
        }
    }

    /// Column groups are flattened by the probe: each member is a key of
    /// the record, so twin groups of the same type still resolve apart.
    @Test(arguments: Backend.all)
    func columnGroupMembersResolveToTheirOwnColumns(backend: Backend) throws {
        try backend.withWriter { writer throws in
            #expect(try column(writer, \KPGrouped.home.city) == "\"home_city\"")
            #expect(try column(writer, \KPGrouped.work?.city) == "\"work_city\"")
            #expect(try column(writer, \KPGrouped.home.inner.y) == "\"home_inner_y\"")
            #expect(try column(writer, \KPGrouped.work?.inner.x) == "\"work_inner_x\"")
            let group = try #require(throws: KeyPathColumnError.self) { try column(writer, \KPGrouped.work) }
            #expect(group.reason.contains("it is a column group (KPGroup)"))
            let computed = try #require(throws: KeyPathColumnError.self) { try column(writer, \KPGrouped.work?.shout) }
            #expect(computed.reason == "it is a computed property")
        }
    }

    /// An enum record has no stored property: every key path is refused,
    /// with the way to filter it instead.
    @Test(arguments: Backend.all)
    func enumRecordKeyPathsAreRefused(backend: Backend) throws {
        try backend.withWriter { writer throws in
            let error = try #require(throws: KeyPathColumnError.self) { try column(writer, \KPMedia.text) }
            #expect(error.description.hasPrefix("\\KPMedia.<computed property of type Optional<String>> does not name a column of KPMedia: KPMedia is an enum record"))
            #expect(error.reason.contains("filter(case:_:)"))
        }
    }

    @Test(arguments: Backend.all)
    func singleCaseEnumsResolveByTypeButTwinsAreAmbiguous(backend: Backend) throws {
        try backend.withWriter { writer throws in
            // Only one property has this type, so its value need not vary.
            #expect(try column(writer, \KPEverything.only) == "\"only\"")
            let error = try #require(throws: KeyPathColumnError.self) { try column(writer, \Twins.first) }
            #expect(error.description == "\\Twins.first does not name a column of Twins: it matches several columns (\"first\", \"second\"): their values cannot be told apart")
        }
    }

    @Test(arguments: Backend.all)
    func classesGenericsAndCustomDecodingOrder(backend: Backend) throws {
        try backend.withWriter { writer throws in
            try writer.read { db throws in
                #expect(try ClassRecordTable.select(\.title).sql(db).sql == "SELECT \"title\" FROM \"classRecordTable\"")
                #expect(try BoxTable<[String]>.select(\.content).sql(db).sql == "SELECT \"content\" FROM \"boxTable\"")
                #expect(try ReorderedTable.select(\.a, \.b).sql(db).sql == "SELECT \"col_a\", \"col_b\" FROM \"reorderedTable\"")
                #expect(try SnakeTable.select(\.playerName, \.teamID).sql(db).sql == "SELECT \"player_name\", \"team_id\" FROM \"snakeTable\"")
            }
        }
    }

    /// Enumerations need no CaseIterable: the probe makes their cases from
    /// the type's metadata.
    @Test(arguments: Backend.all)
    func stringEnumsThatAreNotCaseIterableResolve(backend: Backend) throws {
        try backend.withWriter { writer throws in
            let sql = try writer.read { db in try StringEnumTable.select(\.id).filter(\.status == .closed).sql(db) }
            #expect(sql.sql == "SELECT \"id\" FROM \"stringEnumTable\" WHERE \"status\" = ?")
            #expect(sql.arguments == ["closed"])
        }
    }

    @Test(arguments: Backend.all)
    func concurrentFirstUseIsSafe(backend: Backend) async throws {
        try await backend.withWriter { writer async throws in
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<32 {
                    group.addTask { try self.column(writer, \ConcurrentRecord.third) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results == Array(repeating: "\"third_column\"", count: 32))
        }
    }
}

// Table-backed wrappers of the private record shapes above (TableRecord conformances).
final class ClassRecordTable: Codable, TableRecord {
    var id: Int64 = 0
    var title: String = ""
}
struct BoxTable<T: Codable>: Codable, TableRecord {
    var id: Int64
    var content: T
}
struct ReorderedTable: Codable, TableRecord {
    var a: Int
    var b: Int
    enum CodingKeys: String, CodingKey { case a = "col_a", b = "col_b" }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        b = try container.decode(Int.self, forKey: .b)
        a = try container.decode(Int.self, forKey: .a)
    }
}
struct SnakeTable: Codable, TableRecord, FetchableRecord {
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    var playerName: String
    var teamID: Int64
}
struct StringEnumTable: Codable, TableRecord {
    enum Status: String, Codable { case open, closed }
    var id: Int64
    var status: Status
}
struct ConcurrentRecord: Codable, TableRecord {
    var first: Int
    var second: String
    var third: Bool
    enum CodingKeys: String, CodingKey { case first, second, third = "third_column" }
}

struct Twins: Codable, TableRecord {
    enum Unit: String, Codable, CaseIterable { case only }
    var first: Unit
    var second: Unit
}

/// A tree node: a recursive type, which the probe must stop decoding.
struct ProbeNode: Codable, Equatable {
    var name: String
    var children: [ProbeNode]
    var attributes: [String: Int]
    var parent: ProbeParent?
}

final class ProbeParent: Codable, Equatable {
    var node: ProbeNode?
    static func == (lhs: ProbeParent, rhs: ProbeParent) -> Bool { lhs.node == rhs.node }
}

/// A record whose init(from:) reads nested containers and a super decoder.
struct HandDecoded: Codable, TableRecord {
    var id: Int64
    var x: Double
    var y: Double
    var list: [Int]
    var tree: ProbeNode

    enum CodingKeys: String, CodingKey { case id, point, list, tree }
    enum PointKeys: String, CodingKey { case x, y }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        let point = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        x = try point.decode(Double.self, forKey: .x)
        y = try point.decode(Double.self, forKey: .y)
        var items = try container.nestedUnkeyedContainer(forKey: .list)
        var list: [Int] = []
        while !items.isAtEnd { list.append(try items.decode(Int.self)) }
        self.list = list
        tree = try ProbeNode(from: try container.superDecoder(forKey: .tree))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(list, forKey: .list)
    }
}

@Suite struct RecordColumnsNestedTests {
    @Test(arguments: Backend.all)
    func recursiveTypesAndNestedContainersAreProbed(backend: Backend) throws {
        try backend.withWriter { writer throws in
            // A recursive type stored as one JSON column resolves: the probe stops at a fixed depth.
            struct Forest: Codable, TableRecord { var id: Int64; var root: ProbeNode }
            try writer.read { db throws in
                #expect(try Forest.select(\.root).sql(db).sql == "SELECT \"root\" FROM \"forest\"")
            }
            try writer.read { db throws in
                #expect(try HandDecoded.select(\.id).sql(db).sql == "SELECT \"id\" FROM \"handDecoded\"")
                // Values read through nested containers or a super decoder are
                // built by init(from:) itself: the probe cannot tie them to one
                // column, and refuses them rather than guess.
                #expect(throws: KeyPathColumnError.self) { try HandDecoded.select(\.x).sql(db) }
                #expect(throws: KeyPathColumnError.self) { try HandDecoded.select(\.list).sql(db) }
                #expect(throws: KeyPathColumnError.self) { try HandDecoded.select(\.tree).sql(db) }
            }
        }
    }
}
