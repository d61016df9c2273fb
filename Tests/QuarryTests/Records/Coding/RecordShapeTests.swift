// Key paths on every ordinary Codable record: enums without CaseIterable
// (string, integer, with associated values, many cases), validated types,
// invariants checked in init(from:), URLs, Decimal money, property wrappers,
// nested and array values, renamed keys, snake_case, classes, 40 properties,
// and records that refuse every probe value. For each shape, every stored,
// coded property's key path is proven to name the right column by a query
// that returns the expected row (two rows differ in every property).

import Foundation
import Quarry
import Testing

// MARK: - Property types

enum ShapeStatus: String, Codable { case active, banned, suspended }
enum ShapeLevel: Int, Codable { case low = 10, high = 20, top = 30 }
enum ShapeKind: String, Codable { case home, work }
enum ShapeOnly: String, Codable { case only }
enum ShapeFigure: Codable, Equatable { case circle(radius: Double), square(side: Double), none }

/// Refuses a string without "@".
struct Email: Codable, Equatable {
    var value: String
    init(_ value: String) throws {
        guard value.contains("@") else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an email")) }
        self.value = value
    }
    init(from decoder: any Decoder) throws { try self.init(decoder.singleValueContainer().decode(String.self)) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Refuses zero and negative numbers.
struct PositiveInt: Codable, Equatable {
    var value: Int
    init(_ value: Int) throws {
        guard value > 0 else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not positive")) }
        self.value = value
    }
    init(from decoder: any Decoder) throws { try self.init(decoder.singleValueContainer().decode(Int.self)) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Refuses a string that is not an https URL.
struct Website: Codable, Equatable {
    var value: String
    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
        guard value.hasPrefix("https://") else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not https")) }
    }
    init(_ value: String) { self.value = value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Refuses a string that is not a `yyyy-MM-dd` day.
struct Day: Codable, Equatable {
    var value: String
    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
        let parts = value.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts.allSatisfy({ Int($0) != nil }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not a day"))
        }
    }
    init(_ value: String) { self.value = value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Refuses anything but 13 digits: no probe candidate passes.
struct ISBN: Codable, Equatable {
    var value: String
    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
        guard value.count == 13, value.allSatisfy(\.isNumber) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an ISBN-13"))
        }
    }
    init(_ value: String) { self.value = value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A property wrapper that trims its text, coded as its text.
@propertyWrapper struct Trimmed: Codable, Equatable {
    var wrappedValue: String {
        didSet { wrappedValue = wrappedValue.trimmingCharacters(in: .whitespaces) }
    }
    init(wrappedValue: String) { self.wrappedValue = wrappedValue.trimmingCharacters(in: .whitespaces) }
    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard !text.isEmpty else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "empty")) }
        self.init(wrappedValue: text)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

struct ShapeAddress: Codable, Equatable {
    var city: String
    var kind: ShapeKind
}

// MARK: - Records

struct EnumPlayer: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var name: String
    var status: ShapeStatus
}

struct ManyEnums: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var status: ShapeStatus
    var level: ShapeLevel
    var kind: ShapeKind
    var optionalStatus: ShapeStatus?
    var optionalLevel: ShapeLevel?
    var only: ShapeOnly
    var figure: ShapeFigure
    var kinds: [ShapeKind]
    var address: ShapeAddress
    var byName: [String: ShapeKind]
}

struct Validated: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var email: Email
    var count: PositiveInt
    var website: Website
    var day: Day
    var backup: Email?
    var url: URL
    var price: Decimal
    @Trimmed var label: String
}

/// Checks an invariant in init(from:).
struct Checked: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var score: Int
    var start: Int
    var end: Int
    enum CodingKeys: String, CodingKey { case id, score, start, end }
    init(id: Int64?, score: Int, start: Int, end: Int) {
        (self.id, self.score, self.start, self.end) = (id, score, start, end)
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        score = try container.decode(Int.self, forKey: .score)
        start = try container.decode(Int.self, forKey: .start)
        end = try container.decode(Int.self, forKey: .end)
        guard score > 0, start <= end else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "invalid score or range"))
        }
    }
}

struct RenamedEnum: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var status: ShapeStatus
    var level: ShapeLevel
    enum CodingKeys: String, CodingKey { case id, status = "state", level = "tier" }
}

struct SnakeEnum: Codable, FetchableRecord, PersistableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnNamingStrategy { .convertToSnakeCase }
    static var databaseColumnEncodingStrategy: DatabaseColumnNamingStrategy { .convertToSnakeCase }
    var id: Int64?
    var accountStatus: ShapeStatus
    var homeKind: ShapeKind?
}

final class ClassWithEnum: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var status: ShapeStatus
    var title: String
    init(id: Int64?, status: ShapeStatus, title: String) { (self.id, self.status, self.title) = (id, status, title) }
}

/// No probe value is an ISBN: resolved from the stored properties.
struct Book: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var isbn: ISBN
    var title: String
    var status: ShapeStatus
    var cache: Int = 0  // not coded
    enum CodingKeys: String, CodingKey { case id, isbn = "isbn_13", title, status }
}

/// A class that refuses every probe value: its key paths have no offset, so
/// the stored-property fallback cannot apply, and the error says so.
final class ClassBook: Codable, FetchableRecord, TableRecord {
    var id: Int64?
    var isbn: ISBN
}

/// Chinook's Invoice table, money as Decimal.
struct ChinookInvoice: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "Invoice"
    var InvoiceId: Int64
    var CustomerId: Int64
    var InvoiceDate: Date
    var BillingCountry: String?
    var Total: Decimal
}

struct Forty: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var p1: Int; var p2: String; var p3: Double; var p4: Bool; var p5: ShapeStatus
    var p6: Int?; var p7: String?; var p8: Date; var p9: UUID; var p10: Decimal
    var p11: ShapeLevel; var p12: [Int]; var p13: ShapeAddress; var p14: Int64; var p15: Int32
    var p16: UInt8; var p17: Float; var p18: Data; var p19: URL; var p20: ShapeKind?
    var p21: Int; var p22: String; var p23: Double; var p24: Bool; var p25: ShapeStatus
    var p26: Int?; var p27: String?; var p28: Date; var p29: UUID; var p30: Decimal
    var p31: ShapeLevel; var p32: [String]; var p33: Email; var p34: Int16; var p35: UInt32
    var p36: PositiveInt; var p37: Website; var p38: Day; var p39: ShapeFigure
}

/// 30 coded properties of 15 types, for the probe's one-time cost.
struct Thirty: Codable, FetchableRecord, TableRecord {
    var q1: Int
    var q2: String
    var q3: Double
    var q4: Bool
    var q5: ShapeStatus
    var q6: Int?
    var q7: String?
    var q8: Date
    var q9: UUID
    var q10: Decimal
    var q11: ShapeLevel
    var q12: [Int]
    var q13: ShapeAddress
    var q14: Int64
    var q15: Email
    var q16: Int
    var q17: String
    var q18: Double
    var q19: Bool
    var q20: ShapeStatus
    var q21: Int?
    var q22: String?
    var q23: Date
    var q24: UUID
    var q25: Decimal
    var q26: ShapeLevel
    var q27: [Int]
    var q28: ShapeAddress
    var q29: Int64
    var q30: Email
}

// MARK: - Tests

@Suite struct RecordShapeTests {
    /// The ids of the rows a request returns.
    private func ids<R: TableRecord & Decodable>(_ request: QueryRequest<R, R>, _ db: Database) throws -> [Int64] {
        try request.select(QueryExpression<R, Int64>("id")).order(QueryExpression<R, Int64>("id")).fetchAll(db)
    }
    @Test(arguments: Backend.all)
    func enumWithoutCaseIterable(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "enumPlayer") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text).notNull()
                    t.column("status", .text).notNull()
                }
                var a = EnumPlayer(id: nil, name: "a", status: .active)
                var b = EnumPlayer(id: nil, name: "b", status: .banned)
                try a.insert(db)
                try b.insert(db)
                // The issue's example: one enum without CaseIterable used to break every key path.
                #expect(try EnumPlayer.filter(\.name == "a").fetchCount(db) == 1)
                #expect(try ids(EnumPlayer.filter(\.status == .banned), db) == [2])
                #expect(try ids(EnumPlayer.filter(\.id == 1), db) == [1])
                try expectSQL(EnumPlayer.filter(\.status == .banned), db, "SELECT * FROM \"enumPlayer\" WHERE \"status\" = ?", ["banned"])
            }
        }
    }
    @Test(arguments: Backend.all) func manyEnumShapes(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "manyEnums") { t in
                    t.primaryKey("id", .integer)
                    for column in ["level", "optionalLevel"] { t.column(column, .integer) }
                    for column in ["status", "kind", "optionalStatus", "only", "figure", "kinds", "address", "byName"] {
                        t.column(column, .text)
                    }
                }
                var a = ManyEnums(
                    id: nil, status: .active, level: .low, kind: .home, optionalStatus: nil, optionalLevel: .top, only: .only,
                    figure: .circle(radius: 1), kinds: [.home], address: ShapeAddress(city: "Oslo", kind: .home), byName: ["x": .home])
                var b = ManyEnums(
                    id: nil, status: .suspended, level: .high, kind: .work, optionalStatus: .banned, optionalLevel: nil, only: .only,
                    figure: .square(side: 2), kinds: [.work, .home], address: ShapeAddress(city: "Rome", kind: .work),
                    byName: ["y": .work])
                try a.insert(db)
                try b.insert(db)
                #expect(try ids(ManyEnums.filter(\.status == .suspended), db) == [2])
                #expect(try ids(ManyEnums.filter(\.level == .high), db) == [2])
                #expect(try ids(ManyEnums.filter(\.kind == .work), db) == [2])
                #expect(try ids(ManyEnums.filter(\.optionalStatus == .banned), db) == [2])
                #expect(try ids(ManyEnums.filter(\.optionalLevel == nil), db) == [2])
                #expect(try ids(ManyEnums.filter(\.only == .only), db) == [1, 2])
                #expect(try ids(ManyEnums.filter(\.figure == .square(side: 2)), db) == [2])
                #expect(try ids(ManyEnums.filter(\.kinds == [.work, .home]), db) == [2])
                #expect(try ids(ManyEnums.filter(\.address == b.address), db) == [2])
                #expect(try ids(ManyEnums.filter(\.byName == ["y": .work]), db) == [2])
                // A path into a nested JSON value reads the JSON member.
                #expect(try ids(ManyEnums.filter(\.address.kind == .work), db) == [2])
                #expect(try ids(ManyEnums.filter(\.address.city == "Oslo"), db) == [1])
            }
        }
    }
    @Test(arguments: Backend.all) func validatedTypesURLsDecimalsAndPropertyWrappers(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "validated") { t in
                    t.primaryKey("id", .integer)
                    t.column("count", .integer)
                    for column in ["email", "website", "day", "backup", "url", "price", "label"] { t.column(column, .text) }
                }
                var a = try Validated(
                    id: nil, email: Email("a@x.org"), count: PositiveInt(3), website: Website("https://a.org"), day: Day("2024-01-02"),
                    backup: nil, url: URL(string: "https://a.org/1")!, price: Decimal(string: "9.99")!, label: "first")
                var b = try Validated(
                    id: nil, email: Email("b@x.org"), count: PositiveInt(5), website: Website("https://b.org"), day: Day("2025-03-04"),
                    backup: Email("c@x.org"), url: URL(string: "https://b.org/2")!, price: Decimal(string: "19.99")!, label: "second")
                try a.insert(db)
                try b.insert(db)
                #expect(try ids(Validated.filter(\.email == b.email), db) == [2])
                #expect(try ids(Validated.filter(\.count == b.count), db) == [2])
                #expect(try ids(Validated.filter(\.website == b.website), db) == [2])
                #expect(try ids(Validated.filter(\.day == b.day), db) == [2])
                #expect(try ids(Validated.filter(\.backup == b.backup), db) == [2])
                #expect(try ids(Validated.filter(\.url == b.url), db) == [2])
                #expect(try ids(Validated.filter(\.price == b.price), db) == [2])
                #expect(try ids(Validated.filter(\.label == "second"), db) == [2])
                #expect(try Validated.fetchAll(db).map(\.label) == ["first", "second"])
            }
        }
    }
    @Test(arguments: Backend.all) func invariantsCheckedInInitFromDecoder(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "checked") { t in
                    t.primaryKey("id", .integer)
                    for column in ["score", "start", "end"] { t.column(column, .integer) }
                }
                var a = Checked(id: nil, score: 1, start: 1, end: 5)
                var b = Checked(id: nil, score: 7, start: 2, end: 9)
                try a.insert(db)
                try b.insert(db)
                #expect(try ids(Checked.filter(\.score == 7), db) == [2])
                #expect(try ids(Checked.filter(\.start == 2), db) == [2])
                #expect(try ids(Checked.filter(\.end == 9), db) == [2])
            }
        }
    }
    @Test(arguments: Backend.all) func renamedKeysAndSnakeCaseOnEnums(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "renamedEnum") { t in
                    t.primaryKey("id", .integer)
                    t.column("state", .text)
                    t.column("tier", .integer)
                }
                try db.create(table: "snakeEnum") { t in
                    t.primaryKey("id", .integer)
                    t.column("account_status", .text)
                    t.column("home_kind", .text)
                }
                var a = RenamedEnum(id: nil, status: .active, level: .low)
                var b = RenamedEnum(id: nil, status: .banned, level: .top)
                try a.insert(db)
                try b.insert(db)
                try expectSQL(RenamedEnum.filter(\.status == .banned), db, "SELECT * FROM \"renamedEnum\" WHERE \"state\" = ?", ["banned"])
                #expect(try ids(RenamedEnum.filter(\.status == .banned), db) == [2])
                #expect(try ids(RenamedEnum.filter(\.level == .top), db) == [2])
                var c = SnakeEnum(id: nil, accountStatus: .active, homeKind: nil)
                var d = SnakeEnum(id: nil, accountStatus: .suspended, homeKind: .work)
                try c.insert(db)
                try d.insert(db)
                try expectSQL(
                    SnakeEnum.filter(\.accountStatus == .suspended), db,
                    "SELECT * FROM \"snakeEnum\" WHERE \"account_status\" = ?", ["suspended"])
                #expect(try ids(SnakeEnum.filter(\.accountStatus == .suspended), db) == [2])
                #expect(try ids(SnakeEnum.filter(\.homeKind == .work), db) == [2])
            }
        }
    }
    @Test(arguments: Backend.all) func classRecordWithEnum(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "classWithEnum") { t in
                    t.primaryKey("id", .integer)
                    t.column("status", .text)
                    t.column("title", .text)
                }
                var a = ClassWithEnum(id: nil, status: .active, title: "a")
                var b = ClassWithEnum(id: nil, status: .banned, title: "b")
                try a.insert(db)
                try b.insert(db)
                #expect(try ids(ClassWithEnum.filter(\.status == .banned), db) == [2])
                #expect(try ids(ClassWithEnum.filter(\.title == "b"), db) == [2])
            }
        }
    }

    /// No probe value passes ISBN's rule: the key paths come from the stored
    /// properties and CodingKeys, and only the uncoded property is refused.
    @Test(arguments: Backend.all)
    func recordThatRefusesEveryProbeValue(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.create(table: "book") { t in
                    t.primaryKey("id", .integer)
                    for column in ["isbn_13", "title", "status"] { t.column(column, .text) }
                }
                var a = Book(id: nil, isbn: ISBN("9780000000001"), title: "A", status: .active)
                var b = Book(id: nil, isbn: ISBN("9780000000002"), title: "B", status: .banned)
                try a.insert(db)
                try b.insert(db)
                #expect(a.id == 1 && b.id == 2)
                try expectSQL(
                    Book.filter(\.isbn == b.isbn), db, "SELECT * FROM \"book\" WHERE \"isbn_13\" = ?", ["9780000000002"])
                #expect(try ids(Book.filter(\.isbn == b.isbn), db) == [2])
                #expect(try ids(Book.filter(\.title == "B"), db) == [2])
                #expect(try ids(Book.filter(\.status == .banned), db) == [2])
                #expect(try ids(Book.filter(\.id == 2), db) == [2])
                let error = try #require(throws: KeyPathColumnError.self) { _ = try Book.filter(\.cache == 0).fetchAll(db) }
                #expect(error.description.contains("\\Book.cache does not name a column of Book"))
                #expect(error.description.contains("at the coding key \"isbn_13\""))
            }
        }
    }

    @Test(arguments: Backend.all) func classThatRefusesEveryProbeValueExplainsWhy(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.read { db in
                let error = try #require(throws: KeyPathColumnError.self) { _ = try ClassBook.filter(\.id == 1).fetchAll(db) }
                #expect(error.description.contains("at the coding key \"isbn\""))
                #expect(error.description.contains("not an ISBN-13"))
                #expect(error.description.contains("key paths of a class cannot be resolved from its stored properties"))
                #expect(error.description.contains("Column(\"name\")"))
            }
        }
    }

    @Test func chinookInvoicesWithDecimalMoney() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: try chinookCopy(in: directory))
        try dbQueue.read { db in
            let big = try ChinookInvoice.filter(\.Total >= Decimal(string: "23.86")!).order(\.InvoiceId).fetchAll(db)
            let expected = try Int64.fetchAll(db, sql: "SELECT InvoiceId FROM Invoice WHERE Total >= 23.86 ORDER BY InvoiceId")
            #expect(!expected.isEmpty)
            #expect(big.map(\.InvoiceId) == expected)
            let german = try ChinookInvoice.filter(\.BillingCountry == "Germany").filter(\.CustomerId == 37).fetchCount(db)
            #expect(german == (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Invoice WHERE BillingCountry = 'Germany' AND CustomerId = 37")))
        }
    }

    /// Each of forty properties filters on its own column. The table is typed
    /// through the schema DSL, the same on SQLite and PostgreSQL: JSON values,
    /// enums of strings, decimals and URLs are text, UUIDs and data blobs.
    @Test(arguments: Backend.all) func fortyPropertyRecord(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let integers: Set = [1, 6, 11, 14, 15, 16, 21, 26, 31, 34, 35, 36]
            let doubles: Set = [3, 17, 23]
            let booleans: Set = [4, 24]
            let dates: Set = [8, 28]
            let blobs: Set = [9, 18, 29]
            func type(_ n: Int) -> DatabaseColumnType {
                if integers.contains(n) { return .integer }
                if doubles.contains(n) { return .double }
                if booleans.contains(n) { return .boolean }
                if dates.contains(n) { return .datetime }
                if blobs.contains(n) { return .blob }
                return .text
            }
            func make(_ n: Int) throws -> Forty {
                try Forty(
                    id: nil, p1: n, p2: "s\(n)", p3: Double(n) + 0.5, p4: n == 2, p5: n == 2 ? .banned : .active,
                    p6: n == 2 ? nil : n, p7: "o\(n)", p8: Date(timeIntervalSince1970: Double(n * 1000)),
                    p9: UUID(uuid: (UInt8(n), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), p10: Decimal(n * 10),
                    p11: n == 2 ? .high : .low, p12: [n], p13: ShapeAddress(city: "c\(n)", kind: n == 2 ? .work : .home), p14: Int64(n),
                    p15: Int32(n), p16: UInt8(n), p17: Float(n), p18: Data([UInt8(n)]), p19: URL(string: "https://x.org/\(n)")!,
                    p20: n == 2 ? .work : nil, p21: n * 2, p22: "t\(n)", p23: Double(n) * 3, p24: n != 2, p25: n == 2 ? .suspended : .active,
                    p26: n * 4, p27: n == 2 ? "z" : nil, p28: Date(timeIntervalSince1970: Double(n * 2000)),
                    p29: UUID(uuid: (0, UInt8(n), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), p30: Decimal(n * 100),
                    p31: n == 2 ? .top : .low, p32: ["\(n)"], p33: Email("\(n)@x.org"), p34: Int16(n), p35: UInt32(n),
                    p36: PositiveInt(n), p37: Website("https://\(n).org"), p38: Day("200\(n)-01-01"),
                    p39: n == 2 ? .square(side: 2) : .none)
            }
            try writer.write { db in
                try db.create(table: "forty") { t in
                    t.primaryKey("id", .integer)
                    for n in 1...39 { t.column("p\(n)", type(n)) }
                }
                var a = try make(1)
                var b = try make(2)
                try a.insert(db)
                try b.insert(db)
                let checks: [QueryRequest<Forty, Forty>] = [
                    Forty.filter(\.p1 == b.p1), Forty.filter(\.p2 == b.p2), Forty.filter(\.p3 == b.p3), Forty.filter(\.p4 == b.p4),
                    Forty.filter(\.p5 == b.p5), Forty.filter(\.p6 == b.p6), Forty.filter(\.p7 == b.p7), Forty.filter(\.p8 == b.p8),
                    Forty.filter(\.p9 == b.p9), Forty.filter(\.p10 == b.p10), Forty.filter(\.p11 == b.p11), Forty.filter(\.p12 == b.p12),
                    Forty.filter(\.p13 == b.p13), Forty.filter(\.p14 == b.p14), Forty.filter(\.p15 == b.p15), Forty.filter(\.p16 == b.p16),
                    Forty.filter(\.p17 == b.p17), Forty.filter(\.p18 == b.p18), Forty.filter(\.p19 == b.p19), Forty.filter(\.p20 == b.p20),
                    Forty.filter(\.p21 == b.p21), Forty.filter(\.p22 == b.p22), Forty.filter(\.p23 == b.p23), Forty.filter(\.p24 == b.p24),
                    Forty.filter(\.p25 == b.p25), Forty.filter(\.p26 == b.p26), Forty.filter(\.p27 == b.p27), Forty.filter(\.p28 == b.p28),
                    Forty.filter(\.p29 == b.p29), Forty.filter(\.p30 == b.p30), Forty.filter(\.p31 == b.p31), Forty.filter(\.p32 == b.p32),
                    Forty.filter(\.p33 == b.p33), Forty.filter(\.p34 == b.p34), Forty.filter(\.p35 == b.p35), Forty.filter(\.p36 == b.p36),
                    Forty.filter(\.p37 == b.p37), Forty.filter(\.p38 == b.p38), Forty.filter(\.p39 == b.p39),
                ]
                for (index, request) in checks.enumerated() {
                    #expect(try ids(request, db) == [2], "p\(index + 1)")
                }
            }
        }
    }

    /// The one-time cost of resolving the key paths of a 30-property record
    /// (the figure the Records article gives); printed, not asserted.
    @Test func probeCostOfAThirtyPropertyRecord() throws {
        let start = ContinuousClock.now
        let request = Thirty.filter(\.q16 == 1)  // the first key path of the type runs the probe
        let elapsed = ContinuousClock.now - start
        let again = ContinuousClock.now
        _ = Thirty.filter(\.q15 == (try Email("a@b.c")))
        let cached = ContinuousClock.now - again
        let sql = try DatabaseQueue().read { db in try request.sql(db).sql }
        #expect(sql == "SELECT * FROM \"thirty\" WHERE \"q16\" = ?")
        print("RecordShapeTests: key paths of a 30-property record: first \(elapsed), next \(cached)")
    }
}
