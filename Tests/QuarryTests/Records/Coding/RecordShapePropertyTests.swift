// Property-based tests of key-path resolution over generated record shapes.
//
// Swift cannot create a type at run time, so the shapes are the
// specializations of a generic record, `GeneratedRecord<A, B, C>`, whose
// three properties take their types from a pool of 16 (numbers, text,
// enums without CaseIterable, an enum with associated values, validated
// types, URL, Decimal, dates, UUIDs, optionals, arrays and nested structs):
// 4,096 shapes. Each generated shape is opened as a concrete type, two rows
// that differ in every property are inserted, and each property's key path
// must find the second row, and only it.

import Foundation
import PropertyBased
import Quarry
import Testing

/// A property type of the generated shapes, with two distinct values.
protocol ShapeSample: Codable, Equatable {
    static var samples: (Self, Self) { get }
}

extension Int: ShapeSample { static var samples: (Int, Int) { (3, 7) } }
extension String: ShapeSample { static var samples: (String, String) { ("x", "y") } }
extension Double: ShapeSample { static var samples: (Double, Double) { (1.5, -2.25) } }
extension Bool: ShapeSample { static var samples: (Bool, Bool) { (false, true) } }
extension Date: ShapeSample {
    static var samples: (Date, Date) { (Date(timeIntervalSince1970: 1_000), Date(timeIntervalSince1970: 2_000)) }
}
extension UUID: ShapeSample {
    static var samples: (UUID, UUID) {
        (UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), UUID(uuid: (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    }
}
extension Decimal: ShapeSample { static var samples: (Decimal, Decimal) { (Decimal(1999) / 100, Decimal(5)) } }
extension URL: ShapeSample {
    static var samples: (URL, URL) { (URL(fileURLWithPath: "/a"), URL(fileURLWithPath: "/b")) }
}
extension ShapeStatus: ShapeSample { static var samples: (ShapeStatus, ShapeStatus) { (.active, .suspended) } }
extension ShapeLevel: ShapeSample { static var samples: (ShapeLevel, ShapeLevel) { (.low, .top) } }
extension ShapeFigure: ShapeSample { static var samples: (ShapeFigure, ShapeFigure) { (.none, .circle(radius: 2)) } }
extension Email: ShapeSample {
    static var samples: (Email, Email) {
        (Email(unchecked: "a@x.org"), Email(unchecked: "b@x.org"))
    }
}
extension Day: ShapeSample { static var samples: (Day, Day) { (Day("2001-02-03"), Day("2004-05-06")) } }
extension ShapeAddress: ShapeSample {
    static var samples: (ShapeAddress, ShapeAddress) { (ShapeAddress(city: "a", kind: .home), ShapeAddress(city: "b", kind: .work)) }
}
extension Optional: ShapeSample where Wrapped: ShapeSample {
    static var samples: (Wrapped?, Wrapped?) { (nil, Wrapped.samples.1) }
}
extension Array: ShapeSample where Element: ShapeSample {
    static var samples: ([Element], [Element]) { ([Element.samples.0], [Element.samples.1, Element.samples.0]) }
}

extension Email {
    /// A value known to be valid, for samples.
    init(unchecked value: String) {
        do { try self.init(value) } catch { self = Email.fallback }
    }
    private static let fallback: Email = {
        guard let email = try? Email("fallback@x.org") else { preconditionFailure("the fallback email is valid") }
        return email
    }()
}

struct GeneratedRecord<A: ShapeSample, B: ShapeSample, C: ShapeSample>: Codable, FetchableRecord, PersistableRecord {
    static var databaseTableName: String { "generatedRecord" }
    var id: Int64?
    var a: A
    var b: B
    var c: C
}

@Suite struct RecordShapePropertyTests {
    static var pool: [any ShapeSample.Type] { [
        Int.self, String.self, Double.self, Bool.self, Date.self, UUID.self, Decimal.self, URL.self,
        ShapeStatus.self, ShapeLevel.self, ShapeFigure.self, Email.self, Day.self, ShapeAddress.self,
        ShapeStatus?.self, [ShapeLevel].self,
    ] }

    @Test func everyGeneratedShapeResolvesItsKeyPaths() async {
        let index = Gen.int(in: 0...(Self.pool.count - 1))
        await propertyCheck(count: 120, input: index, index, index) { a, b, c in
            try Self.check(Self.pool[a], Self.pool[b], Self.pool[c])
        }
    }

    /// Inserts two rows of the shape and finds the second by each key path.
    static func check<A: ShapeSample, B: ShapeSample, C: ShapeSample>(_: A.Type, _: B.Type, _: C.Type) throws {
        typealias Record = GeneratedRecord<A, B, C>
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE generatedRecord (id INTEGER PRIMARY KEY, a, b, c)")
            var first = Record(id: nil, a: A.samples.0, b: B.samples.0, c: C.samples.0)
            var second = Record(id: nil, a: A.samples.1, b: B.samples.1, c: C.samples.1)
            try first.insert(db)
            try second.insert(db)
            let shape = "GeneratedRecord<\(A.self), \(B.self), \(C.self)>"
            let id = QueryExpression<Record, Int64>("id")
            #expect(try Record.filter(\.a == A.samples.1).select(id).fetchAll(db) == [2], "\(shape).a")
            #expect(try Record.filter(\.b == B.samples.1).select(id).fetchAll(db) == [2], "\(shape).b")
            #expect(try Record.filter(\.c == C.samples.1).select(id).fetchAll(db) == [2], "\(shape).c")
            #expect(try Record.fetchAll(db).map(\.a) == [A.samples.0, A.samples.1], "\(shape) read back")
        }
    }
}
