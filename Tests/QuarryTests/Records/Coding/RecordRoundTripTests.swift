// Round trips of records through the database: every supported property type,
// NULLs, nested JSON, custom CodingKeys, naming and storage strategies, and the
// equivalence of the Codable and hand-written paths.

import Foundation
import Quarry
import Testing

enum Mood: String, Codable, DatabaseValueConvertible, Equatable {
    case happy, grumpy
}

/// Only Codable: stored through its raw value.
enum Level: Int, Codable, Equatable {
    case low = 1, high = 2
}

struct Address: Codable, Equatable {
    var street: String
    var zip: Int?
}

struct AllTypes: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var uint8: UInt8
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var mood: Mood
    var level: Level
    var address: Address
    var tags: [String]
    var scores: [String: Int]
    var optionalString: String?
    var optionalInt: Int?
    var optionalDate: Date?
    var optionalAddress: Address?
    var optionalMood: Mood?

    static let databaseTableName = "allTypes"

    static let createTable = """
        CREATE TABLE allTypes (
            id INTEGER PRIMARY KEY, bool, int, int8, int16, int32, uint8, uint32, uint64, double, float,
            string, data, date, uuid, url, decimal, mood, level, address, tags, scores,
            optionalString, optionalInt, optionalDate, optionalAddress, optionalMood)
        """

    /// The same table with typed columns, through the schema DSL: valid on
    /// SQLite and PostgreSQL (where `.integer` is BIGINT, `.blob` BYTEA,
    /// `.datetime` TIMESTAMPTZ). JSON values, URLs and decimals are text.
    static func createTypedTable(_ db: Database) throws {
        try db.create(table: "allTypes") { t in
            t.primaryKey("id", .integer)
            t.column("bool", .boolean)
            for column in ["int", "int8", "int16", "int32", "uint8", "uint32", "uint64", "level", "optionalInt"] {
                t.column(column, .integer)
            }
            t.column("double", .double)
            t.column("float", .double)
            t.column("data", .blob)
            t.column("uuid", .blob)
            t.column("date", .datetime)
            t.column("optionalDate", .datetime)
            for column in ["string", "url", "decimal", "mood", "address", "tags", "scores", "optionalString", "optionalAddress", "optionalMood"] {
                t.column(column, .text)
            }
        }
    }

    static func sample(nils: Bool) -> AllTypes {
        AllTypes(
            id: nil, bool: true, int: -42, int8: -8, int16: 1600, int32: -32000, uint8: 255, uint32: 4_000_000_000,
            uint64: 9_000_000_000_000_000_000, double: 3.25, float: 1.5, string: "héllo \"world\" 🌍",
            data: Data([0, 1, 2, 255]), date: Date(timeIntervalSince1970: 1_700_000_000.123),
            uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(), url: URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"),
            decimal: Decimal(string: "12345.6789") ?? 0, mood: .grumpy, level: .high,
            address: Address(street: "1 Main St", zip: nil), tags: ["a", "b"], scores: ["x": 1, "y": 2],
            optionalString: nils ? nil : "present", optionalInt: nils ? nil : 7,
            optionalDate: nils ? nil : Date(timeIntervalSince1970: 0),
            optionalAddress: nils ? nil : Address(street: "2 Side St", zip: 75001), optionalMood: nils ? nil : .happy)
    }
}

@Suite("Record round trips")
struct RecordRoundTripTests {
    // SQLite only: untyped columns, which store each Swift type as SQLite does.
    @Test(arguments: Backend.sqliteWithMemory)
    func everyPropertyTypeRoundTrips(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: AllTypes.createTable)
            for nils in [false, true] {
                var record = AllTypes.sample(nils: nils)
                try record.insert(db)
                let id = try #require(record.id)
                let fetched = try #require(try AllTypes.fetchOne(db, key: id))
                #expect(fetched == record)
                let all = try AllTypes.fetchAll(db, sql: "SELECT * FROM allTypes WHERE id = ?", arguments: [id])
                #expect(all == [record])
            }
            // What the database stores (storage formats are documented).
            let row = try #require(try Row.fetchOne(db, sql: """
                SELECT typeof(bool), date, hex(uuid), address, tags, scores, mood, level, typeof(decimal), decimal,
                       optionalString, optionalAddress, typeof(data) FROM allTypes WHERE id = 1
                """))
            #expect(try row[0] as String == "integer")
            #expect(try row[1] as String == "2023-11-14 22:13:20.123")
            #expect(try row[2] as String == "E621E1F8C36C495A93FC0C247A3E6E5F")
            #expect(try row[3] as String == #"{"street":"1 Main St"}"#)
            #expect(try row[4] as String == #"["a","b"]"#)
            #expect(try row[5] as String == #"{"x":1,"y":2}"#)
            #expect(try row[6] as String == "grumpy")
            #expect(try row[7] as Int == 2)
            #expect(try row[8] as String == "text")
            #expect(try row[9] as String == "12345.6789")
            #expect(try row[10] as String == "present")
            #expect(try row[11] as String == #"{"street":"2 Side St","zip":75001}"#)
            #expect(try row[12] as String == "blob")
            let nullRow = try #require(try Row.fetchOne(db, sql: "SELECT optionalString, optionalInt, optionalDate, optionalAddress, optionalMood FROM allTypes WHERE id = 2"))
            #expect(nullRow.databaseValues == [.null, .null, .null, .null, .null])
        }
    }

    /// Every property type through typed columns (`AllTypes.createTypedTable`),
    /// the same table on SQLite and PostgreSQL.
    @Test(arguments: Backend.allWithMemory)
    func everyPropertyTypeRoundTripsInTypedColumns(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try AllTypes.createTypedTable(db)
            for nils in [false, true] {
                var record = AllTypes.sample(nils: nils)
                try record.insert(db)
                let id = try #require(record.id)
                #expect(try AllTypes.fetchOne(db, key: id) == record)
                #expect(try AllTypes.filter(key: id).fetchAll(db) == [record])
                #expect(try AllTypes.fetchAll(db, sql: #"SELECT * FROM "allTypes" WHERE id = ?"#, arguments: [id]) == [record])
            }
            // Filters bind values as the record stores them.
            let sample = AllTypes.sample(nils: false)
            #expect(try AllTypes.filter(\.date == sample.date).filter(\.uuid == sample.uuid).filter(\.mood == .grumpy).fetchCount(db) == 2)
            #expect(try AllTypes.filter(\.uint64 == sample.uint64).filter(\.bool == true).fetchCount(db) == 2)
            #expect(try AllTypes.filter(\.optionalDate == nil).fetchCount(db) == 1)
        }
    }

    @Test(arguments: Backend.allWithMemory)
    func cursorForms(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try AllTypes.createTypedTable(db)
            for _ in 0..<3 {
                var record = AllTypes.sample(nils: false)
                try record.insert(db)
            }
            let cursor = try AllTypes.order(\.id).fetchCursor(db)
            var ids: [Int64?] = []
            while let record = try cursor.next() { ids.append(record.id) }
            #expect(ids == [1, 2, 3])
            #expect(try AllTypes.fetchOne(db, sql: #"SELECT * FROM "allTypes" ORDER BY id"#)?.id == 1)
            let descending = try AllTypes.fetchCursor(db, sql: #"SELECT * FROM "allTypes" ORDER BY id DESC"#)
            #expect(try Array(descending).map(\.id) == [3, 2, 1])
        }
    }

    /// Records fetched from a prepared statement, and from SQL text. Prepared
    /// statements are SQLite's: a PostgreSQL connection refuses them, and
    /// names the fetch methods that take SQL text, which run on both.
    @Test(arguments: Backend.allWithMemory)
    func statementForms(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try AllTypes.createTypedTable(db)
            for _ in 0..<3 {
                var record = AllTypes.sample(nils: false)
                try record.insert(db)
            }
            let sql = #"SELECT * FROM "allTypes" WHERE id > ?"#
            if storage.isPostgreSQL {
                for error in [
                    try #require(throws: DatabaseError.self) { _ = try db.makeStatement(sql: sql) },
                    try #require(throws: DatabaseError.self) { _ = try db.cachedStatement(sql: sql) },
                ] {
                    #expect(error.message.hasPrefix("prepared statements (Statement) is SQLite-only; this connection is to "))
                    #expect(error.message.hasSuffix(": use the fetch methods that take SQL text"))
                }
            } else {
                let statement = try db.makeStatement(sql: sql)
                #expect(try AllTypes.fetchAll(statement, arguments: [1]).map(\.id) == [2, 3])
                #expect(try AllTypes.fetchOne(statement, arguments: [2])?.id == 3)
                #expect(try AllTypes.fetchOne(statement, arguments: [3]) == nil)
            }
            #expect(try AllTypes.fetchAll(db, sql: sql + " ORDER BY id", arguments: [1]).map(\.id) == [2, 3])
            #expect(try AllTypes.fetchOne(db, sql: sql, arguments: [2])?.id == 3)
            #expect(try AllTypes.fetchOne(db, sql: sql, arguments: [3]) == nil)
            #expect(try AllTypes.fetchOne(db)?.id == 1)
            #expect(try Array(AllTypes.fetchCursor(db, sql: #"SELECT * FROM "allTypes" ORDER BY id DESC"#)).map(\.id) == [3, 2, 1])
        }
    }
}

// MARK: - Custom CodingKeys and strategies

struct RenamedPlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var teamID: Int64?
    static let databaseTableName = "player"
    enum CodingKeys: String, CodingKey {
        case id = "player_id", name = "player_name", teamID = "team_id"
    }
}

struct SnakePlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var playerName: String
    var teamID: Int64?
    var createdAt: Date
    var externalID: UUID
    static let databaseTableName = "snake"
    static let databaseColumnDecodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.millisecondsSince1970
    static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.millisecondsSince1970
    static let databaseUUIDEncodingStrategy = DatabaseUUIDEncodingStrategy.lowercaseString
}

struct IsoEvent: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var at: Date
    var uid: UUID
    static let databaseTableName = "event"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.iso8601
    static let databaseUUIDEncodingStrategy = DatabaseUUIDEncodingStrategy.uppercaseString
}

struct SecondsEvent: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var at: Date
    var uid: UUID
    static let databaseTableName = "event"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.secondsSince1970
}

@Suite("Record coding keys and strategies")
struct RecordStrategyTests {
    @Test(arguments: Backend.allWithMemory)
    func customCodingKeys(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("player_id", .integer)
                t.column("player_name", .text).notNull()
                t.column("team_id", .integer)
            }
            var player = RenamedPlayer(id: nil, name: "Arthur", teamID: 3)
            let recorder = SQLRecorder()
            try recorder.record(db) { try player.insert(db) }
            // PostgreSQL: the identity fills the NULL id, which comes back through RETURNING.
            #expect(recorder.writes == [storage.isPostgreSQL
                ? #"INSERT INTO "player" ("player_name", "team_id") VALUES (?, ?) RETURNING "player_id""#
                : #"INSERT INTO "player" ("player_id", "player_name", "team_id") VALUES (?, ?, ?)"#])
            #expect(player.id == 1)
            #expect(try String.fetchOne(db, sql: "SELECT player_name FROM player WHERE team_id = 3") == "Arthur")
            #expect(try RenamedPlayer.fetchOne(db, key: 1) == player)
        }
    }
    @Test(arguments: Backend.allWithMemory)
    func snakeCaseAndMillisecondsAndLowercaseUUID(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "snake") { t in
                t.primaryKey("id", .integer)
                t.column("player_name", .text)
                t.column("team_id", .integer)
                t.column("created_at", .integer)
                t.column("external_id", .text)
            }
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            var player = SnakePlayer(id: nil, playerName: "Barbara", teamID: nil, createdAt: Date(timeIntervalSince1970: 1.5), externalID: uuid)
            try player.insert(db)
            #expect(player.id == 1)
            let row = try #require(try Row.fetchOne(db, sql: "SELECT player_name, created_at, external_id FROM snake"))
            #expect(try row[0] as String == "Barbara")
            #expect(row.databaseValues[1] == .integer(1500))
            #expect(try row[2] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
            #expect(try SnakePlayer.fetchAll(db) == [player])
        }
    }

    @Test func snakeCaseRule() {
        let strategy = DatabaseColumnNamingStrategy.convertToSnakeCase
        #expect(strategy.columnName(for: "teamID") == "team_id")
        #expect(strategy.columnName(for: "playerName") == "player_name")
        #expect(strategy.columnName(for: "myURLValue") == "my_url_value")
        #expect(strategy.columnName(for: "id") == "id")
        #expect(strategy.columnName(for: "address2Line") == "address2_line")
        #expect(DatabaseColumnNamingStrategy.custom { $0.uppercased() }.columnName(for: "name") == "NAME")
    }

    /// On PostgreSQL, where columns are typed, each format gets its own
    /// table: ISO 8601 dates and uppercase UUIDs in text columns, seconds in
    /// a DOUBLE PRECISION column and blob UUIDs in BYTEA.
    @Test(arguments: Backend.allWithMemory)
    func iso8601AndSecondsDatesInTypedColumns(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            try db.execute(sql: "CREATE TABLE event (id INTEGER PRIMARY KEY, at TEXT NOT NULL, uid TEXT NOT NULL)")
            var iso = IsoEvent(id: 1, at: Date(timeIntervalSince1970: 86_400.25), uid: uuid)
            try iso.insert(db)
            let isoRow = try #require(try Row.fetchOne(db, sql: "SELECT at, uid FROM event"))
            #expect(try isoRow[0] as String == "1970-01-02T00:00:00.250Z")
            #expect(try isoRow[1] as String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(try IsoEvent.fetchOne(db, key: 1) == iso)
            #expect(try IsoEvent.filter(\.at == iso.at).filter(\.uid == uuid).fetchCount(db) == 1)

            try db.execute(sql: "DROP TABLE event")
            try db.execute(sql: storage.isPostgreSQL
                ? "CREATE TABLE event (id INTEGER PRIMARY KEY, at DOUBLE PRECISION NOT NULL, uid BYTEA NOT NULL)"
                : "CREATE TABLE event (id INTEGER PRIMARY KEY, at REAL NOT NULL, uid BLOB NOT NULL)")
            var seconds = SecondsEvent(id: 2, at: Date(timeIntervalSince1970: 86_400.25), uid: uuid)
            try seconds.insert(db)
            let secondsRow = try #require(try Row.fetchOne(db, sql: "SELECT at, uid FROM event"))
            #expect(try secondsRow[0] as Double == 86_400.25)
            #expect(try secondsRow[1] as Data == withUnsafeBytes(of: uuid.uuid) { Data($0) })
            #expect(try SecondsEvent.fetchOne(db, key: 2) == seconds)
            #expect(try SecondsEvent.filter(\.at == seconds.at).filter(\.uid == uuid).fetchCount(db) == 1)
        }
    }

    // SQLite only: untyped columns, each value stored with the type its format gives.
    @Test(arguments: Backend.sqliteWithMemory)
    func iso8601AndSecondsDates(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE event (id INTEGER PRIMARY KEY, at, uid)")
            let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            var iso = IsoEvent(id: nil, at: Date(timeIntervalSince1970: 86_400.25), uid: uuid)
            try iso.insert(db)
            var seconds = SecondsEvent(id: nil, at: Date(timeIntervalSince1970: 86_400.25), uid: uuid)
            try seconds.insert(db)
            let rows = try Row.fetchAll(db, sql: "SELECT at, typeof(at), typeof(uid), CASE typeof(uid) WHEN 'text' THEN uid ELSE hex(uid) END FROM event ORDER BY id")
            #expect(try rows[0][0] as String == "1970-01-02T00:00:00.250Z")
            #expect(try rows[0][3] as String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(try rows[1][0] as Double == 86_400.25)
            #expect(try rows[1][1] as String == "real")
            #expect(try rows[1][2] as String == "blob")
            #expect(try IsoEvent.fetchOne(db, key: 1) == iso)
            #expect(try SecondsEvent.fetchOne(db, key: 2) == seconds)
        }
    }
}

// MARK: - Hand-written and Codable paths agree

struct CodablePlayer: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double?
    var joined: Date
    var address: Address?
    static let databaseTableName = "player"
}

struct HandPlayer: FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Double?
    var joined: Date
    var address: Address?
    static let databaseTableName = "player"

    init(id: Int64?, name: String, score: Int, bonus: Double?, joined: Date, address: Address?) {
        self.id = id; self.name = name; self.score = score; self.bonus = bonus; self.joined = joined; self.address = address
    }

    init(row: Row) throws {
        id = try row["id"]
        name = try row["name"]
        score = try row["score"]
        bonus = try row["bonus"]
        joined = try row["joined"]
        let json: String? = try row["address"]
        address = try json.map { try JSONDecoder().decode(Address.self, from: Data($0.utf8)) }
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["score"] = score
        container["bonus"] = bonus
        container["joined"] = joined
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        container["address"] = try address.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// Decodable, but with its own init(row:): Quarry must call it.
struct CustomInitPlayer: Codable, FetchableRecord, TableRecord {
    var name: String
    static let databaseTableName = "player"
    init(row: Row) throws {
        let name: String = try row["name"]
        self.name = "custom:" + name
    }
}

@Suite("Hand-written and Codable records")
struct HandWrittenRecordTests {
    @Test(arguments: Backend.allWithMemory)
    func bothPathsGiveIdenticalResults(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("score", .integer).notNull()
                t.column("bonus", .double)
                t.column("joined", .text)
                t.column("address", .text)
            }
            let joined = Date(timeIntervalSince1970: 1_000_000.5)
            var codable = CodablePlayer(id: nil, name: "Arthur", score: 10, bonus: nil, joined: joined, address: Address(street: "x", zip: 1))
            var hand = HandPlayer(id: nil, name: "Arthur", score: 10, bonus: nil, joined: joined, address: Address(street: "x", zip: 1))
            #expect(try PersistenceContainer(codable).databaseValues == PersistenceContainer(hand).databaseValues)
            #expect(try PersistenceContainer(codable).columns == PersistenceContainer(hand).columns)
            try codable.insert(db)
            try hand.insert(db)
            #expect(codable.id == 1 && hand.id == 2)
            let rows = try Row.fetchAll(db, sql: "SELECT name, score, bonus, joined, address FROM player ORDER BY id")
            #expect(rows[0] == rows[1])
            let codables = try CodablePlayer.fetchAll(db)
            let hands = try HandPlayer.fetchAll(db)
            #expect(codables.map(\.name) == hands.map(\.name))
            #expect(codables.map(\.joined) == hands.map(\.joined))
            #expect(codables.map(\.address) == hands.map(\.address))
            #expect(codables.map(\.bonus) == hands.map(\.bonus))
            // The Row path of Decodable records gives the same as the statement path.
            let fullRows = try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")
            #expect(try fullRows.map(CodablePlayer.init(row:)) == codables)
        }
    }
    @Test(arguments: Backend.allWithMemory)
    func handWrittenInitRowOfDecodableRecordIsUsed(storage: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer = try storage.make(in: directory)
        try writer.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
            }
            try db.execute(sql: "INSERT INTO player (name) VALUES ('a'), ('b')")
            #expect(try CustomInitPlayer.fetchAll(db).map(\.name) == ["custom:a", "custom:b"])
            #expect(try CustomInitPlayer.fetchAll(db).map(\.name) == ["custom:a", "custom:b"])
            #expect(try CustomInitPlayer.fetchOne(db, key: 2)?.name == "custom:b")
        }
    }
}
