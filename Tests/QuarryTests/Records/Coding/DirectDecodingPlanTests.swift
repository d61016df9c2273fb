// DirectDecodingPlan: which records decode straight into their stored
// properties, and a property test that this path gives exactly what Codable
// gives (values and errors) over generated record shapes and generated rows.
//
// Swift cannot make a type at run time: the shapes are the specializations
// of a generic record, `PlanShape<A, B, C>`, whose properties take their
// types from a pool (the plan's types, optionals of them, dates, UUIDs,
// enums, a nested struct stored as JSON). Its twin `CodableShape<A, B, C>`
// keeps the default (`databaseDecodesStoredPropertiesDirectly` false)
// and decodes every row through `init(from:)`. Random rows (NULLs, integer
// and floating-point edges, nasty strings, numeric text, blobs, missing
// columns) are read through both; the records, or the errors, must be equal.

import Foundation
@testable import Quarry
import QuarryTestSupport
import Testing

/// A property type of the generated shapes, with the cells that decode as
/// one (most generated cells are those: a row of random cells would nearly
/// always fail at its first column, and leave the others untested).
protocol PlanSample: Codable, Equatable {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue?
}
extension PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { nil }
}
extension Int: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { .integer(random.int64()) }
}
extension Int64: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { .integer(random.int64()) }
}
extension Double: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { .real(random.finiteDouble()) }
}
extension Bool: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { .integer(Int64.random(in: -1...2, using: &random)) }
}
extension String: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? { .text(random.nastyString()) }
}
extension Date: PlanSample {}
extension UUID: PlanSample {}
extension ShapeStatus: PlanSample {}
extension ShapeAddress: PlanSample {}
extension Optional: PlanSample where Wrapped: PlanSample {
    static func validCell(_ random: inout HostileRandom) -> DatabaseValue? {
        Bool.random(using: &random) ? .null : Wrapped.validCell(&random)
    }
}

struct PlanShape<A: PlanSample, B: PlanSample, C: PlanSample>: Codable, FetchableRecord, Equatable, DirectlyDecoded {
    var id: Int64?
    var a: A
    var b: B
    var c: C
}

struct CodableShape<A: PlanSample, B: PlanSample, C: PlanSample>: Codable, FetchableRecord {
    static var databaseDecodesStoredPropertiesDirectly: Bool { false }
    var id: Int64?
    var a: A
    var b: B
    var c: C

    var asPlanShape: PlanShape<A, B, C> { PlanShape(id: id, a: a, b: b, c: c) }
}

/// Renamed and reordered coding keys: the key of `name` is "player_name",
/// and `init(from:)` asks for `score` before `name`.
struct RenamedKeysRecord: Codable, FetchableRecord, Equatable, DirectlyDecoded {
    var id: Int64
    var name: String
    var score: Int?
    enum CodingKeys: String, CodingKey {
        case score, id
        case name = "player_name"
    }
}

@Suite struct DirectDecodingPlanTests {
    // MARK: Which records get a plan

    struct Transforming: Codable, FetchableRecord, DirectlyDecoded {
        var name: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name).lowercased()
        }
    }

    struct Validating: Codable, FetchableRecord, DirectlyDecoded {
        var score: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            score = try container.decode(Int.self, forKey: .score)
            guard score >= 0 else { throw DecodingError.dataCorruptedError(forKey: .score, in: container, debugDescription: "negative") }
        }
    }

    struct Defaulting: Codable, FetchableRecord, DirectlyDecoded {
        var score: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            score = try container.decodeIfPresent(Int.self, forKey: .score) ?? 0
        }
    }

    struct Swapping: Codable, FetchableRecord, DirectlyDecoded {
        var first: Int
        var second: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            first = try container.decode(Int.self, forKey: .second)
            second = try container.decode(Int.self, forKey: .first)
        }
    }

    struct SwappingBools: Codable, FetchableRecord, DirectlyDecoded {
        var first: Bool
        var second: Bool
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            second = try container.decode(Bool.self, forKey: .first)
            first = try container.decode(Bool.self, forKey: .second)
        }
    }


    @Test func plainStructsGetAPlanThatFollowsTheirKeys() throws {
        let plan = try #require(DirectDecodingPlan.of(DirectPlanFixtures.Plain.self))
        #expect(plan.steps.map(\.key) == ["id", "name", "score", "active", "count"])
        #expect(plan.steps.map(\.kind) == [.int64, .string, .optionalDouble, .bool, .optionalInt])
        let renamed = try #require(DirectDecodingPlan.of(RenamedKeysRecord.self))
        // The synthesized init(from:) asks in the order of CodingKeys.
        #expect(renamed.steps.map(\.key) == ["score", "id", "player_name"])
        #expect(renamed.steps.map(\.offset) == [
            MemoryLayout<RenamedKeysRecord>.offset(of: \.score), MemoryLayout<RenamedKeysRecord>.offset(of: \.id),
            MemoryLayout<RenamedKeysRecord>.offset(of: \.name),
        ].compactMap { $0 })
        #expect(DirectDecodingPlan.of(DirectPlanFixtures.Skipping.self) == nil, "a property init(from:) does not decode")
    }

    @Test func recordsWhoseInitFromDiffersKeepCodable() {
        #expect(DirectDecodingPlan.of(Transforming.self) == nil)
        #expect(DirectDecodingPlan.of(Validating.self) == nil)
        #expect(DirectDecodingPlan.of(Defaulting.self) == nil)
        // Keys swapped by hand are followed: the key "second" fills `first`.
        let swapped = DirectDecodingPlan.of(Swapping.self)?.steps
        #expect(swapped?.map(\.key) == ["second", "first"])
        #expect(swapped?.map(\.offset) == [
            MemoryLayout<Swapping>.offset(of: \.first), MemoryLayout<Swapping>.offset(of: \.second),
        ].compactMap { $0 })
        let swappedBools = DirectDecodingPlan.of(SwappingBools.self)?.steps
        #expect(swappedBools?.map(\.key) == ["first", "second"])
        #expect(swappedBools?.map(\.offset) == [
            MemoryLayout<SwappingBools>.offset(of: \.second), MemoryLayout<SwappingBools>.offset(of: \.first),
        ].compactMap { $0 })
        #expect(DirectDecodingPlan.of(DirectPlanFixtures.WithDate.self) == nil)
        #expect(DirectDecodingPlan.of(DirectPlanFixtures.OptedOut.self) == nil)
        #expect(DirectDecodingPlan.of(DirectPlanFixtures.ClassRecord.self) == nil)
    }

    @Test func swappedKeysDecodeAsInitFromDoes() throws {
        let dbQueue = try DatabaseQueue()
        let (swapped, bools) = try dbQueue.read { db in
            (try Swapping.fetchOne(db, sql: "SELECT 1 AS first, 2 AS second"),
             try SwappingBools.fetchOne(db, sql: "SELECT 1 AS first, 0 AS second"))
        }
        #expect(swapped?.first == 2 && swapped?.second == 1)
        #expect(bools?.first == false && bools?.second == true)
    }

    @Test func aFailedRowThrowsCodablesErrorAndTheNextRowDecodes() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let sql = "SELECT 1 AS id, 'a longer name than fits inline' AS name, NULL AS score, NULL AS active, 2 AS count"
            let error = try #require(throws: RowDecodingError.self) { try DirectPlanFixtures.Plain.fetchAll(db, sql: sql) }
            #expect(error.reason == .unexpectedNull && error.column == "active" && error.expectedType == "Bool")
            #expect(error.recordType?.hasSuffix("Plain") == true && error.sql == sql)
            let record = try #require(try DirectPlanFixtures.Plain.fetchOne(db, sql: "SELECT 1 AS id, 'n' AS name, 1.5 AS score, 1 AS active, NULL AS count"))
            #expect(record.id == 1 && record.name == "n" && record.score == 1.5 && record.active && record.count == nil)
        }
    }

    // MARK: Equal to Codable

    static var pool: [any PlanSample.Type] { [
        Int.self, Int64.self, Double.self, Bool.self, String.self,
        Int?.self, Int64?.self, Double?.self, Bool?.self, String?.self,
        Date.self, UUID.self, ShapeStatus.self, ShapeAddress.self, UUID?.self,
    ] }

    /// The types a generic record's property may have for the record to get
    /// a plan: its synthesized `init(from:)` asks for a generic property with
    /// the generic `decode`, which reads an optional differently (NULL is an
    /// error), so optionals keep Codable there (concrete records below have them).
    static let planTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int.self), ObjectIdentifier(Int64.self), ObjectIdentifier(Double.self), ObjectIdentifier(Bool.self),
        ObjectIdentifier(String.self),
    ]

    @Test func generatedShapesDecodeGeneratedRowsAsCodableDoes() throws {
        var random = HostileRandom.forProperty("DirectDecodingPlanTests.shapes")
        let shapes = HostileTestSettings.iterations(60)
        for _ in 0..<shapes {
            // Four draws out of five from the plan's types (the first five of
            // the pool), so that most shapes have a plan to check.
            func draw() -> any PlanSample.Type {
                Self.pool[Int.random(in: 0..<(Int.random(in: 0..<5, using: &random) == 0 ? Self.pool.count : 5), using: &random)]
            }
            let (a, b, c) = (draw(), draw(), draw())
            try Self.check(a, b, c, random: &random)
        }
    }

    struct RenamedKeysTwin: Codable, FetchableRecord {
        static var databaseDecodesStoredPropertiesDirectly: Bool { false }
        var id: Int64
        var name: String
        var score: Int?
        enum CodingKeys: String, CodingKey {
            case score, id
            case name = "player_name"
        }
        var record: RenamedKeysRecord { RenamedKeysRecord(id: id, name: name, score: score) }
    }

    @Test func concreteRecordsDecodeGeneratedRowsAsCodableDoes() throws {
        #expect(DirectDecodingPlan.of(DirectPlanFixtures.AllKinds.self)?.steps.count == 10)
        #expect(DirectDecodingPlan.of(RenamedKeysRecord.self) != nil)
        var random = HostileRandom.forProperty("DirectDecodingPlanTests.concrete")
        try Self.compare(
            DirectPlanFixtures.AllKinds.self, DirectPlanFixtures.AllKindsTwin.self, \.record,
            columns: ["int", "int64", "double", "bool", "string", "optionalInt", "optionalInt64", "optionalDouble",
                      "optionalBool", "optionalString"],
            cells: [
                Int.validCell, Int64.validCell, Double.validCell, Bool.validCell, String.validCell, Int?.validCell,
                Int64?.validCell, Double?.validCell, Bool?.validCell, String?.validCell,
            ],
            random: &random)
        try Self.compare(
            RenamedKeysRecord.self, RenamedKeysTwin.self, \.record, columns: ["id", "player_name", "score"],
            cells: [Int64.validCell, String.validCell, Int?.validCell], random: &random)
    }

    /// Random rows, with all columns, shuffled, and some missing, read
    /// through the plan and through Codable, from statements and from rows.
    static func compare<Direct: FetchableRecord & Equatable, Twin: FetchableRecord>(
        _: Direct.Type, _: Twin.Type, _ convert: (Twin) -> Direct, columns: [String],
        cells: [(inout HostileRandom) -> DatabaseValue?], random: inout HostileRandom
    ) throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (\(columns.joined(separator: ", ")))")
            let insert = "INSERT INTO t VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
            for _ in 0..<HostileTestSettings.iterations(100) {
                try db.execute(sql: insert, arguments: StatementArguments(cells.map { random.cell(mostly: $0(&random)) }))
            }
            let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM t")
            for rowid in rowids {
                var selected = columns.shuffled(using: &random)
                if Int.random(in: 0..<4, using: &random) == 0 { selected.removeLast() }
                let sql = "SELECT \(selected.joined(separator: ", ")) FROM t WHERE rowid = \(rowid)"
                let context = "\(Direct.self): \(sql), \(HostileTestSettings.replay)"
                expectSame(Result { try Direct.fetchOne(db, sql: sql) }, Result { try Twin.fetchOne(db, sql: sql).map(convert) }, context)
                let row = try #require(try Row.fetchOne(db, sql: sql))
                expectSame(
                    Result { try copied(Direct.self, row) }, Result { try convert(copied(Twin.self, row)) }, "rows: " + context)
            }
        }
    }

    /// Random rows of one shape, read through the plan (when the shape has
    /// one) and through Codable, from statements and from copied rows.
    static func check<A: PlanSample, B: PlanSample, C: PlanSample>(
        _: A.Type, _: B.Type, _: C.Type, random: inout HostileRandom
    ) throws {
        typealias Direct = PlanShape<A, B, C>
        typealias Twin = CodableShape<A, B, C>
        let shape = "PlanShape<\(A.self), \(B.self), \(C.self)>"
        let types: [Any.Type] = [A.self, B.self, C.self]
        let expectsPlan = types.allSatisfy { planTypes.contains(ObjectIdentifier($0)) }
        #expect((DirectDecodingPlan.of(Direct.self) != nil) == expectsPlan, "\(shape) plan")
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id, a, b, c)")
            for _ in 0..<8 {
                try db.execute(
                    sql: "INSERT INTO t VALUES (?, ?, ?, ?)",
                    arguments: [
                        random.cell(mostly: Int64?.validCell(&random)), random.cell(mostly: A.validCell(&random)),
                        random.cell(mostly: B.validCell(&random)), random.cell(mostly: C.validCell(&random)),
                    ])
            }
            let selections = ["*", "c, b, a, id", "id, a, c"]
            let selection = selections[Int.random(in: 0..<selections.count, using: &random)]
            for rowid in try Int64.fetchAll(db, sql: "SELECT rowid FROM t") {
                let sql = "SELECT \(selection) FROM t WHERE rowid = \(rowid)"
                let context = "\(shape), \(sql), \(HostileTestSettings.replay)"
                expectSame(
                    Result { try Direct.fetchOne(db, sql: sql) }, Result { try Twin.fetchOne(db, sql: sql)?.asPlanShape }, context)
                let row = try #require(try Row.fetchOne(db, sql: sql))
                expectSame(
                    Result { try copied(Direct.self, row) }, Result { try copied(Twin.self, row).asPlanShape }, "rows: " + context)
            }
        }
    }

    /// `row` decoded as `T` from its copied values, as a server's rows are
    /// (a RowBuffer, Core/RowSource.swift).
    static func copied<T: FetchableRecord>(_ type: T.Type, _ row: Row) throws -> T {
        let buffer = RowBuffer(row)
        return try T.reader(for: buffer)(buffer)
    }

    static func expectSame<T: Equatable>(_ direct: Result<T, any Error>, _ codable: Result<T, any Error>, _ context: String) {
        switch (direct, codable) {
        case (.success(let lhs), .success(let rhs)):
            #expect(lhs == rhs, "\(context)")
        case (.failure(let lhs as RowDecodingError), .failure(let rhs as RowDecodingError)):
            #expect(lhs.reason == rhs.reason && lhs.column == rhs.column && lhs.expectedType == rhs.expectedType && lhs.sql == rhs.sql,
                    "\(context): \(lhs) / \(rhs)")
        default:
            Issue.record("\(context): plan \(direct), Codable \(codable)")
        }
    }
}

extension HostileRandom {
    /// `valid` nine times out of ten, else a random cell.
    mutating func cell(mostly valid: DatabaseValue?) -> DatabaseValue {
        guard let valid, Int.random(in: 0..<10, using: &self) > 0 else { return cell() }
        return valid
    }

    /// A random cell: NULL, integer edges, doubles, nasty or numeric text, a blob.
    mutating func cell() -> DatabaseValue {
        switch Int.random(in: 0..<9, using: &self) {
        case 0: return .null
        case 1: return .integer(int64())
        case 2: return .integer(Int64.random(in: -2...2, using: &self))
        case 3: return .real(finiteDouble())
        case 4: return .real(Double(Int.random(in: -3...3, using: &self)))
        case 5: return .text(nastyString())
        case 6: return .text(["12", "1.5", "-0", "1e3", " 7", "true", ""][Int.random(in: 0..<7, using: &self)])
        case 7: return .blob(blob(maxCount: 8))
        default: return .text(UUID().uuidString)
        }
    }
}
