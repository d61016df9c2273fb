// DirectEncodingPlan: which records are written straight from their stored
// properties, and a property test that this path fills exactly the
// container Codable fills (columns, order, values, bit-exact doubles) over
// generated record shapes and generated values, then writes the same rows.
//
// The shapes are DirectDecodingPlanTests' `PlanShape<A, B, C>` and its twin
// `CodableShape<A, B, C>`, made encodable here; the twin opts out of the plan
// (`databaseEncodesStoredPropertiesDirectly = false`) and encodes every
// record through `encode(to:)`.

import Foundation
@testable import Quarry
import QuarryTestSupport
import Testing

extension PlanShape: EncodableRecord, DirectlyEncoded {}
extension CodableShape: EncodableRecord {
    static var databaseEncodesStoredPropertiesDirectly: Bool { false }
}

/// A random value of a generated property type.
protocol EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Self
}
extension Int: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Int { Int(random.int64()) }
}
extension Int64: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Int64 { random.int64() }
}
extension Double: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Double {
        // Mostly finite (edges included); infinities, NaN and -0.0 too.
        switch Int.random(in: 0..<10, using: &random) {
        case 0: [Double.infinity, -.infinity, .nan, -0.0][Int.random(in: 0..<4, using: &random)]
        default: random.finiteDouble()
        }
    }
}
extension Bool: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Bool { Bool.random(using: &random) }
}
extension String: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> String { random.nastyString() }
}
extension Date: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Date { random.date() }
}
extension UUID: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> UUID { random.uuid() }
}
extension ShapeStatus: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> ShapeStatus { [.active, .banned, .suspended][Int.random(in: 0..<3, using: &random)] }
}
extension ShapeAddress: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> ShapeAddress {
        ShapeAddress(city: random.nastyString(allowNUL: false), kind: Bool.random(using: &random) ? .home : .work)
    }
}
extension Optional: EncodeSample where Wrapped: EncodeSample {
    static func sample(_ random: inout HostileRandom) -> Wrapped? {
        Int.random(in: 0..<3, using: &random) == 0 ? nil : Wrapped.sample(&random)
    }
}

@Suite struct DirectEncodingPlanTests {
    // MARK: Which records get a plan

    struct Transforming: Codable, EncodableRecord, DirectlyEncoded {
        var name: String
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name.lowercased(), forKey: .name)
        }
    }

    struct Clamping: Codable, EncodableRecord, DirectlyEncoded {
        var score: Int
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(Swift.max(score, 0), forKey: .score)
        }
    }

    struct NilAsDefault: Codable, EncodableRecord, DirectlyEncoded {
        var score: Int?
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(score ?? 0, forKey: .score)
        }
    }

    struct ExtraColumn: Codable, EncodableRecord, DirectlyEncoded {
        var id: Int64
        enum CodingKeys: String, CodingKey { case id, version }
        init(id: Int64) { self.id = id }
        init(from decoder: any Decoder) throws { id = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .id) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(1, forKey: .version)
        }
    }

    struct Swapping: Codable, EncodableRecord, DirectlyEncoded {
        var first: Int
        var second: Bool
        var third: Bool
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(third, forKey: .second)
            try container.encode(first, forKey: .first)
            try container.encode(second, forKey: .third)
        }
    }

    struct SwappingTwin: Codable, EncodableRecord {
        static var databaseEncodesStoredPropertiesDirectly: Bool { false }
        var first: Int
        var second: Bool
        var third: Bool
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(third, forKey: .second)
            try container.encode(first, forKey: .first)
            try container.encode(second, forKey: .third)
        }
    }


    @Test func plainStructsGetAPlanThatFollowsTheirKeys() throws {
        let plan = try #require(DirectEncodingPlan.of(DirectPlanFixtures.Plain.self))
        #expect(plan.keys == ["id", "name", "score", "active", "count"])
        #expect(plan.columns == ["id", "name", "score", "active", "count"])
        #expect(plan.steps.map(\.kind) == [.int64, .string, .optionalDouble, .bool, .optionalInt])
        #expect(plan.steps.map(\.offset) == [
            MemoryLayout<DirectPlanFixtures.Plain>.offset(of: \.id), MemoryLayout<DirectPlanFixtures.Plain>.offset(of: \.name), MemoryLayout<DirectPlanFixtures.Plain>.offset(of: \.score),
            MemoryLayout<DirectPlanFixtures.Plain>.offset(of: \.active), MemoryLayout<DirectPlanFixtures.Plain>.offset(of: \.count),
        ].compactMap { $0 })
        // Keys swapped by hand are followed, Bools included.
        let swapped = try #require(DirectEncodingPlan.of(Swapping.self))
        #expect(swapped.keys == ["second", "first", "third"])
        #expect(swapped.steps.map(\.offset) == [
            MemoryLayout<Swapping>.offset(of: \.third), MemoryLayout<Swapping>.offset(of: \.first),
            MemoryLayout<Swapping>.offset(of: \.second),
        ].compactMap { $0 })
    }

    @Test func recordsWhoseEncodeToDiffersKeepCodable() {
        #expect(DirectEncodingPlan.of(Transforming.self) == nil, "a transformed value")
        #expect(DirectEncodingPlan.of(Clamping.self) == nil, "a value transformed at the extremes only")
        #expect(DirectEncodingPlan.of(NilAsDefault.self) == nil, "nil written as a value")
        #expect(DirectEncodingPlan.of(ExtraColumn.self) == nil, "a column of no property")
        #expect(DirectEncodingPlan.of(DirectPlanFixtures.Skipping.self) == nil, "a property encode(to:) skips")
        #expect(DirectEncodingPlan.of(DirectPlanFixtures.WithDate.self) == nil)
        #expect(DirectEncodingPlan.of(DirectPlanFixtures.OptedOut.self) == nil)
        #expect(DirectEncodingPlan.of(DirectPlanFixtures.ClassRecord.self) == nil)
    }

    @Test func refusedRecordsStillEncodeThroughCodable() throws {
        let container = try PersistenceContainer(Transforming(name: "MiXeD"))
        #expect(container.columns == ["name"] && container.databaseValues == [.text("mixed")])
        let clamped = try PersistenceContainer(Clamping(score: -5))
        #expect(clamped.databaseValues == [.integer(0)])
    }

    // MARK: Equal to Codable

    /// Renamed and reordered coding keys, and snake-cased columns.
    struct Renamed: Codable, EncodableRecord, DirectlyEncoded {
        static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
        var teamID: Int64?
        var name: String
        var isActive: Bool
        var score: Double
        enum CodingKeys: String, CodingKey {
            case score, isActive
            case name = "playerName"
            case teamID
        }
        static func sample(_ random: inout HostileRandom) -> Renamed {
            Renamed(teamID: .sample(&random), name: .sample(&random), isActive: .sample(&random), score: .sample(&random))
        }
        var twin: RenamedTwin { RenamedTwin(teamID: teamID, name: name, isActive: isActive, score: score) }
    }

    struct RenamedTwin: Codable, EncodableRecord {
        static let databaseColumnEncodingStrategy = DatabaseColumnNamingStrategy.convertToSnakeCase
        static var databaseEncodesStoredPropertiesDirectly: Bool { false }
        var teamID: Int64?
        var name: String
        var isActive: Bool
        var score: Double
        enum CodingKeys: String, CodingKey {
            case score, isActive
            case name = "playerName"
            case teamID
        }
    }

    @Test func concreteRecordsEncodeAsCodableDoes() throws {
        #expect(DirectEncodingPlan.of(DirectPlanFixtures.AllKinds.self)?.steps.count == 10)
        #expect(DirectEncodingPlan.of(Renamed.self)?.columns.sorted() == ["is_active", "player_name", "score", "team_id"])
        var random = HostileRandom.forProperty("DirectEncodingPlanTests.concrete")
        for _ in 0..<HostileTestSettings.iterations(200) {
            let record = DirectPlanFixtures.AllKinds.sample(&random)
            try Self.expectSame(record, record.twin, "\(record), \(HostileTestSettings.replay)")
            let renamed = Renamed.sample(&random)
            try Self.expectSame(renamed, renamed.twin, "\(renamed), \(HostileTestSettings.replay)")
            let swapped = Swapping(first: .sample(&random), second: .sample(&random), third: .sample(&random))
            try Self.expectSame(
                swapped, SwappingTwin(first: swapped.first, second: swapped.second, third: swapped.third),
                "\(swapped), \(HostileTestSettings.replay)")
        }
    }

    static var pool: [any PlanSample.Type] { DirectDecodingPlanTests.pool }

    @Test func generatedShapesEncodeAsCodableDoes() throws {
        var random = HostileRandom.forProperty("DirectEncodingPlanTests.shapes")
        for _ in 0..<HostileTestSettings.iterations(60) {
            // Four draws out of five from the plan's types (the first five of
            // the pool), so that most shapes have a plan to check.
            func draw() -> any PlanSample.Type {
                Self.pool[Int.random(in: 0..<(Int.random(in: 0..<5, using: &random) == 0 ? Self.pool.count : 5), using: &random)]
            }
            let (a, b, c) = (draw(), draw(), draw())
            try Self.check(a, b, c, random: &random)
        }
    }

    static func check<A: PlanSample, B: PlanSample, C: PlanSample>(
        _: A.Type, _: B.Type, _: C.Type, random: inout HostileRandom
    ) throws {
        let shape = "PlanShape<\(A.self), \(B.self), \(C.self)>"
        let types: [Any.Type] = [A.self, B.self, C.self]
        // As for decoding: a generic property is encoded by the generic
        // `encode`, which the probe refuses for an optional.
        let expectsPlan = types.allSatisfy { DirectDecodingPlanTests.planTypes.contains(ObjectIdentifier($0)) }
        #expect((DirectEncodingPlan.of(PlanShape<A, B, C>.self) != nil) == expectsPlan, "\(shape) plan")
        for _ in 0..<8 {
            let (id, a, b, c) = try (Int64?.sample(&random), sample(A.self, &random), sample(B.self, &random), sample(C.self, &random))
            try expectSame(
                PlanShape(id: id, a: a, b: b, c: c), CodableShape(id: id, a: a, b: b, c: c), "\(shape), \(HostileTestSettings.replay)")
        }
    }

    static func sample<T>(_ type: T.Type, _ random: inout HostileRandom) throws -> T {
        let sampler = try #require(T.self as? any EncodeSample.Type)
        return try #require(sampler.sample(&random) as? T)
    }

    /// The containers of `record` (through its plan, when it has one) and of
    /// `twin` (through Codable) hold the same columns and values; so do
    /// containers that already held values.
    static func expectSame<Record: EncodableRecord, Twin: EncodableRecord>(
        _ record: Record, _ twin: Twin, _ context: String
    ) throws {
        let direct = try PersistenceContainer(record)
        let codable = try PersistenceContainer(twin)
        #expect(direct.columns == codable.columns, "\(context)")
        #expect(direct.databaseValues.map(BitExact.init) == codable.databaseValues.map(BitExact.init), "\(context)")
        var prefilledDirect = PersistenceContainer()
        var prefilledCodable = PersistenceContainer()
        prefilledDirect["extra"] = 1
        prefilledCodable["extra"] = 1
        try record.encode(to: &prefilledDirect)
        try twin.encode(to: &prefilledCodable)
        #expect(prefilledDirect.columns == prefilledCodable.columns, "prefilled: \(context)")
        #expect(prefilledDirect.databaseValues.map(BitExact.init) == prefilledCodable.databaseValues.map(BitExact.init), "prefilled: \(context)")
    }

    /// A database value compared bit for bit (NaN equals NaN, -0.0 differs from 0.0).
    struct BitExact: Equatable {
        let value: DatabaseValue
        static func == (lhs: BitExact, rhs: BitExact) -> Bool {
            switch (lhs.value, rhs.value) {
            case (.real(let left), .real(let right)): left.bitPattern == right.bitPattern
            case (.real, _), (_, .real): false
            default: lhs.value == rhs.value
            }
        }
    }

    // MARK: End to end

    @Test func insertUpdateUpsertAndInsertAllWriteWhatCodableWrites() throws {
        let dbQueue = try DatabaseQueue()
        var random = HostileRandom.forProperty("DirectEncodingPlanTests.endToEnd")
        try dbQueue.write { db in
            for table in ["allKinds", "allKindsTwin"] {
                try db.execute(sql: """
                    CREATE TABLE \(table) (int INTEGER PRIMARY KEY, int64, double, bool, string, optionalInt, optionalInt64,
                    optionalDouble, optionalBool, optionalString)
                    """)
            }
            func finite(_ record: DirectPlanFixtures.AllKinds, id: Int) -> DirectPlanFixtures.AllKinds {
                var record = record
                record.int = id
                if !record.double.isFinite { record.double = 0.5 }
                if let double = record.optionalDouble, !double.isFinite { record.optionalDouble = nil }
                return record
            }
            var records = (0..<40).map { finite(DirectPlanFixtures.AllKinds.sample(&random), id: $0) }
            for record in records.prefix(20) {
                try record.insert(db)
                try record.twin.insert(db)
            }
            try DirectPlanFixtures.AllKinds.insertAll(db, records.dropFirst(20))
            try DirectPlanFixtures.AllKindsTwin.insertAll(db, records.dropFirst(20).map(\.twin))
            for index in records.indices where index.isMultiple(of: 3) {
                records[index] = finite(DirectPlanFixtures.AllKinds.sample(&random), id: index)
                try records[index].update(db)
                try records[index].twin.update(db)
            }
            for index in records.indices where index.isMultiple(of: 5) {
                records[index] = finite(DirectPlanFixtures.AllKinds.sample(&random), id: index)
                try records[index].upsert(db)
                try records[index].twin.upsert(db)
            }
            let direct = try Row.fetchAll(db, sql: "SELECT * FROM allKinds ORDER BY int")
            let codable = try Row.fetchAll(db, sql: "SELECT * FROM allKindsTwin ORDER BY int")
            #expect(direct.count == 40 && direct == codable)
            let fetched = try DirectPlanFixtures.AllKinds.fetchAll(db, sql: "SELECT * FROM allKinds ORDER BY int")
            #expect(fetched.count == records.count)
            for (fetched, record) in zip(fetched, records) {
                #expect(fetched.int == record.int && fetched.string == record.string && fetched.optionalString == record.optionalString)
                #expect(fetched.double.bitPattern == record.double.bitPattern || (fetched.double == 0 && record.double == 0))
            }
        }
    }
}

extension DirectPlanFixtures.AllKinds {
        static func sample(_ random: inout HostileRandom) -> DirectPlanFixtures.AllKinds {
            DirectPlanFixtures.AllKinds(
                int: .sample(&random), int64: .sample(&random), double: .sample(&random), bool: .sample(&random),
                string: .sample(&random), optionalInt: .sample(&random), optionalInt64: .sample(&random),
                optionalDouble: .sample(&random), optionalBool: .sample(&random), optionalString: .sample(&random))
        }
}
