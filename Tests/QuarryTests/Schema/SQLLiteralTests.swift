// Tests of the single SQL literal renderer used for DEFAULT clauses.

import Foundation
@testable import Quarry
import Testing

@Suite struct SQLLiteralTests {
    @Test func rendersEachStorageClass() {
        #expect(DatabaseValue.null.sqlLiteral == "NULL")
        #expect(DatabaseValue.integer(42).sqlLiteral == "42")
        #expect(DatabaseValue.integer(-7).sqlLiteral == "-7")
        #expect(DatabaseValue.real(1.5).sqlLiteral == "1.5")
        #expect(DatabaseValue.real(1.0).sqlLiteral == "1.0")
        #expect(DatabaseValue.real(.infinity).sqlLiteral == "9e999")
        #expect(DatabaseValue.real(-.infinity).sqlLiteral == "-9e999")
        #expect(DatabaseValue.real(.nan).sqlLiteral == "NULL")
        #expect(DatabaseValue.text("it's").sqlLiteral == "'it''s'")
        #expect(DatabaseValue.text("a\u{0}b").sqlLiteral == "(CAST(X'610062' AS TEXT))")
        #expect(DatabaseValue.blob(Data([0x01, 0xAB, 0x00])).sqlLiteral == "X'01AB00'")
        #expect(DatabaseValue.blob(Data()).sqlLiteral == "X''")
    }

    /// Every tricky value, used as a DEFAULT, reads back identical.
    @Test func defaultsRoundTripThroughSQLite() throws {
        let values: [DatabaseValue] = [
            .null, .integer(0), .integer(-1), .integer(Int64.min), .integer(Int64.max),
            .real(-1.5), .real(1e-5), .real(1.5e300), .real(0.1), .real(.infinity), .real(-.infinity),
            .text(""), .text("it's \"quoted\""), .text("'); DROP TABLE t; --"), .text("a\u{0}b"), .text("é🦊\n"),
            .blob(Data()), .blob(Data([0, 1, 254, 255])),
        ]
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "t") { t in
                t.column("id", .integer).primaryKey()
                for (index, value) in values.enumerated() {
                    t.column("c\(index)").defaults(to: value)
                }
            }
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM t"))
            for (index, value) in values.enumerated() {
                #expect(try row["c\(index)"] as DatabaseValue == value, "column c\(index)")
            }
            #expect(try db.tableExists("t"))
        }
    }

    @Test func defaultsOfSwiftTypes() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.create(table: "t") { t in
                t.column("id", .integer).primaryKey()
                t.column("flag", .boolean).defaults(to: true)
                t.column("day", .datetime).defaults(to: date)
                t.column("name", .text).defaults(to: "O'Brien")
                t.column("ratio", .real).defaults(to: 0.25)
            }
            #expect(try db.columns(in: "t").map(\.defaultValueSQL) == [
                nil, "1", "'2023-11-14 22:13:20.250'", "'O''Brien'", "0.25",
            ])
            try db.execute(sql: "INSERT INTO t DEFAULT VALUES")
            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM t"))
            #expect(try row["flag"] as Bool == true)
            #expect(try row["day"] as Date == date)
            #expect(try row["name"] as String == "O'Brien")
        }
    }
}
