// Tests of value conversions: every standard conformance, both directions, and failures.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseValueConvertibleTests {
    let dbQueue: DatabaseQueue

    init() throws {
        dbQueue = try DatabaseQueue()
    }

    /// Stores `value` in a table column without type affinity and reads it back.
    func roundTrip<T: DatabaseValueConvertible>(_ value: T) throws -> (stored: DatabaseValue, read: T?) {
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS t (v)")
            try db.execute(sql: "DELETE FROM t")
            try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [value])
            let stored = try Row.fetchOne(db, sql: "SELECT v FROM t")?[0] ?? .null
            return (stored, try T.fetchOne(db, sql: "SELECT v FROM t"))
        }
    }

    @Test func integers() throws {
        #expect(try roundTrip(Int.min) == (.integer(Int64.min), Int.min))
        #expect(try roundTrip(Int64.max) == (.integer(Int64.max), Int64.max))
        #expect(try roundTrip(Int8(-5)) == (.integer(-5), Int8(-5)))
        #expect(try roundTrip(UInt16.max) == (.integer(65535), UInt16.max))
        #expect(try roundTrip(UInt32.max) == (.integer(4_294_967_295), UInt32.max))
        #expect(try roundTrip(UInt64(Int64.max)) == (.integer(Int64.max), UInt64(Int64.max)))
        #expect(try roundTrip(UInt(42)) == (.integer(42), UInt(42)))
    }

    @Test func uint64AboveInt64MaxThrows() throws {
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db throws in
                try db.execute(sql: "CREATE TABLE t (v)")
                try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [UInt64.max])
            }
        }
        #expect(error.resultCode == .SQLITE_MISMATCH)
        #expect(error.message.contains("18446744073709551615"))
        #expect(error.sql == "INSERT INTO t (v) VALUES (?)")
        #expect(throws: DatabaseError.self) { try UInt64.max.databaseValue }
    }

    @Test func integerOutOfRangeForSmallTypeIsAMismatch() throws {
        let error = try #require(throws: RowDecodingError.self) {
            try dbQueue.read { db in try Int8.fetchOne(db, sql: "SELECT 300 AS big") }
        }
        #expect(error.reason == .valueMismatch(.integer(300)))
        #expect(error.description == "cannot decode Int8 from column \"big\": found integer 300 — in `SELECT 300 AS big`")
    }

    @Test func integersFromIntegralReals() throws {
        try dbQueue.read { db throws in
            #expect(try Int.fetchOne(db, sql: "SELECT 3.0") == 3)
            #expect(throws: RowDecodingError.self) { try Int.fetchOne(db, sql: "SELECT 3.5") }
            #expect(throws: RowDecodingError.self) { try Int.fetchOne(db, sql: "SELECT '3'") }
        }
    }

    @Test func boolAndFloatingPoint() throws {
        #expect(try roundTrip(true) == (.integer(1), true))
        #expect(try roundTrip(false) == (.integer(0), false))
        #expect(try roundTrip(1.5) == (.real(1.5), 1.5))
        #expect(try roundTrip(Float(0.25)) == (.real(0.25), Float(0.25)))
        #expect(try roundTrip(Double.infinity) == (.real(.infinity), .infinity))
        // SQLite stores NaN as NULL (documented on Double.databaseValue).
        #expect(try roundTrip(Double.nan).stored == .null)
        try dbQueue.read { db throws in
            #expect(try Double.fetchOne(db, sql: "SELECT 2") == 2.0)
            #expect(try Bool.fetchOne(db, sql: "SELECT 7") == true)
            #expect(throws: RowDecodingError.self) { try Bool.fetchOne(db, sql: "SELECT 'yes'") }
            #expect(throws: RowDecodingError.self) { try Double.fetchOne(db, sql: "SELECT x'00'") }
        }
    }

    @Test func strings() throws {
        #expect(try roundTrip("") == (.text(""), ""))
        #expect(try roundTrip("it's \"quoted\"") == (.text("it's \"quoted\""), "it's \"quoted\""))
        let nul = "a\u{0}b"
        #expect(try roundTrip(nul).read == nul)
        let emoji = "👩‍👩‍👧 café e\u{301}"
        #expect(try roundTrip(emoji).read == emoji)
        try dbQueue.read { db throws in
            #expect(throws: RowDecodingError.self) { try String.fetchOne(db, sql: "SELECT 1") }
        }
    }

    @Test func data() throws {
        #expect(try roundTrip(Data()) == (.blob(Data()), Data()))
        #expect(try roundTrip(Data([0, 1, 255])) == (.blob(Data([0, 1, 255])), Data([0, 1, 255])))
        try dbQueue.read { db throws in
            #expect(try Data.fetchOne(db, sql: "SELECT 'ab'") == Data("ab".utf8))
            #expect(throws: RowDecodingError.self) { try Data.fetchOne(db, sql: "SELECT 1") }
        }
    }

    @Test func dates() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try roundTrip(date) == (.text("2023-11-14 22:13:20.123"), date))
        try dbQueue.read { db throws in
            #expect(try Date.fetchOne(db, sql: "SELECT 0") == Date(timeIntervalSince1970: 0))
            #expect(try Date.fetchOne(db, sql: "SELECT '2009-01-01 00:00:00'") == Date(timeIntervalSince1970: 1_230_768_000))
            #expect(throws: RowDecodingError.self) { try Date.fetchOne(db, sql: "SELECT 'yesterday'") }
        }
    }

    @Test func uuids() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let stored = try roundTrip(uuid)
        #expect(stored.read == uuid)
        guard case .blob(let bytes) = stored.stored else {
            Issue.record("UUID not stored as a blob: \(stored.stored)")
            return
        }
        #expect(bytes.count == 16)
        #expect(bytes.first == 0xE6)
        try dbQueue.read { db throws in
            #expect(try UUID.fetchOne(db, sql: "SELECT 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'") == uuid)
            #expect(throws: RowDecodingError.self) { try UUID.fetchOne(db, sql: "SELECT x'0102'") }
        }
    }

    @Test func urlsAndDecimals() throws {
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        #expect(try roundTrip(url) == (.text("https://example.com/a?b=c"), url))
        let decimal = try #require(Decimal(string: "12345678901234567890.123456789"))
        #expect(try roundTrip(decimal) == (.text("12345678901234567890.123456789"), decimal))
        try dbQueue.read { db throws in
            #expect(try Decimal.fetchOne(db, sql: "SELECT 0.99") == Decimal(string: "0.99"))
            #expect(try Decimal.fetchOne(db, sql: "SELECT 42") == Decimal(42))
            #expect(throws: RowDecodingError.self) { try Decimal.fetchOne(db, sql: "SELECT '12abc'") }
            #expect(throws: RowDecodingError.self) { try URL.fetchOne(db, sql: "SELECT 1") }
        }
    }

    enum Color: String, DatabaseValueConvertible { case red, green }
    enum Level: Int, DatabaseValueConvertible { case low = 1, high = 2 }

    @Test func rawRepresentableEnums() throws {
        #expect(try roundTrip(Color.green) == (.text("green"), .green))
        #expect(try roundTrip(Level.high) == (.integer(2), .high))
        let error = try #require(throws: RowDecodingError.self) {
            try dbQueue.read { db in try Color.fetchOne(db, sql: "SELECT 'blue' AS color") }
        }
        #expect(error.description.contains("cannot decode Color from column \"color\": found text 'blue'"))
    }

    @Test func databaseValueLiteralsAndDescription() {
        let values: [DatabaseValue] = [nil, 1, 2.5, "it's", true, .blob(Data([0xAB, 1]))]
        #expect(values.map(\.description) == ["NULL", "1", "2.5", "'it''s'", "1", "X'AB01'"])
        #expect(values.map(\.storageClassName) == ["null", "integer", "real", "text", "integer", "blob"])
        #expect(DatabaseValue.null.isNull)
        #expect(!DatabaseValue.integer(0).isNull)
    }
}
