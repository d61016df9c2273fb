// Tests of property types that encode as a single value of another type
// (wrappers around Bool, numbers, dates, UUIDs): they are stored as that
// value, read back, and usable in query filters.

import Foundation
import Quarry
import Testing

/// A Codable wrapper that encodes its value in a single-value container.
struct Wrapped<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Value.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

struct WrapperRecord: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var flag: Wrapped<Bool>
    var real: Wrapped<Double>
    var float: Wrapped<Float>
    var int8: Wrapped<Int8>
    var int16: Wrapped<Int16>
    var int32: Wrapped<Int32>
    var int64: Wrapped<Int64>
    var uint: Wrapped<UInt>
    var uint8: Wrapped<UInt8>
    var uint16: Wrapped<UInt16>
    var uint32: Wrapped<UInt32>
    var uint64: Wrapped<UInt64>
    var date: Wrapped<Date>
    var uuid: Wrapped<UUID>
    var decimal: Wrapped<Decimal>
}

@Suite struct SingleValueWrapperTests {
    /// The table, with the schema DSL: the same on SQLite and PostgreSQL.
    static func createTable(_ db: Database) throws {
        try db.create(table: "wrapperRecord") { t in
            t.primaryKey("id", .integer)
            t.column("flag", .boolean)
            for column in ["real", "float"] { t.column(column, .double) }
            for column in ["int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"] { t.column(column, .integer) }
            for column in ["date", "decimal"] { t.column(column, .text) }
            t.column("uuid", .blob)
        }
    }

    static let sample = WrapperRecord(
        id: nil, flag: Wrapped(true), real: Wrapped(1.5), float: Wrapped(0.25), int8: Wrapped(-8), int16: Wrapped(-16),
        int32: Wrapped(-32), int64: Wrapped(-64), uint: Wrapped(1), uint8: Wrapped(8), uint16: Wrapped(16),
        uint32: Wrapped(32), uint64: Wrapped(64), date: Wrapped(Date(timeIntervalSince1970: 1_000_000)),
        uuid: Wrapped(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))), decimal: Wrapped(Decimal(string: "12.5") ?? 0))
    @Test(arguments: Backend.all) func wrappersAreStoredAsTheirValueAndReadBack(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try Self.createTable(db)
                var record = Self.sample
                try record.insert(db)
                #expect(record.id == 1)
                let stored = try #require(try Row.fetchOne(db, sql: #"SELECT * FROM "wrapperRecord""#))
                #expect(try stored["flag"] == DatabaseValue.integer(1))
                #expect(try stored["real"] == DatabaseValue.real(1.5))
                #expect(try stored["int8"] == DatabaseValue.integer(-8))
                #expect(try stored["uint64"] == DatabaseValue.integer(64))
                #expect(try stored["date"] == DatabaseValue.text("1970-01-12 13:46:40.000"))
                #expect(try stored["decimal"] == DatabaseValue.text("12.5"))
                #expect(try WrapperRecord.fetchOne(db) == record)
                // The same values bind in filters.
                #expect(try WrapperRecord.filter(\.int16 == Wrapped(-16)).fetchCount(db) == 1)
                #expect(try WrapperRecord.filter(\.uint32 == Wrapped(33)).fetchCount(db) == 0)
                #expect(try WrapperRecord.filter(\.date == Wrapped(Date(timeIntervalSince1970: 1_000_000))).fetchCount(db) == 1)
                #expect(try WrapperRecord.filter(\.uuid == Self.sample.uuid).fetchCount(db) == 1)
                #expect(try WrapperRecord.filter(\.flag == Wrapped(true) && \.float == Wrapped(0.25)).fetchCount(db) == 1)
                let uints: [Wrapped<UInt>] = try WrapperRecord.select(\.uint).fetchAll(db)
                #expect(uints == [Wrapped(1)])
            }
        }
    }
    @Test(arguments: Backend.all) func wrappedUInt64AboveInt64MaxThrows(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try Self.createTable(db)
                var record = Self.sample
                record.uint64 = Wrapped(UInt64.max)
                let error = #expect(throws: DatabaseError.self) { try record.insert(db) }
                #expect(error?.resultCode == .SQLITE_MISMATCH)
                #expect(error?.message.contains("does not fit in SQLite's 64-bit signed integer") == true, "\(String(describing: error))")
                #expect(try WrapperRecord.fetchCount(db) == 0)
            }
        }
    }
}
