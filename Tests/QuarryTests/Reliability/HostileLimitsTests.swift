// Hostile values at the limits: Int64 and UInt64 edges (values and primary
// keys, and the transaction SQLite rolls back when AUTOINCREMENT overflows),
// NaN and infinities, -0.0, and expressions nested deeper than SQLite accepts.
// The documented behaviors are asserted here; see HostileRoundTripTests for the
// generated round trips.

import Foundation
import Quarry
import Testing

@Suite("Hostile values at the limits")
struct HostileLimitsTests {
    @Test func int64EdgesCompareAndOrderExactly() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("int64")
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var values: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
            for _ in 0..<50 { values.append(generator.int64()) }
            for value in values {
                var item = HostileItem.random(using: &generator)
                item.integer = value
                try item.insert(db)
            }
            #expect(try HostileItem.select(\.integer).order(\.integer).fetchAll(db) == values.sorted())
            for _ in 0..<HostileTestSettings.iterations(100) {
                let a = generator.int64(), b = generator.int64()
                let (low, high) = (min(a, b), max(a, b))
                let context = "bounds \(low), \(high) — \(HostileTestSettings.replay)"
                #expect(try HostileItem.filter(\.integer < low).fetchCount(db) == values.filter { $0 < low }.count, "\(context)")
                #expect(try HostileItem.filter(\.integer >= high).fetchCount(db) == values.filter { $0 >= high }.count, "\(context)")
                #expect(try HostileItem.filter((low...high).contains(\.integer)).fetchCount(db)
                    == values.filter { (low...high).contains($0) }.count, "\(context)")
                #expect(try HostileItem.filter([low, high, .min].contains(\.integer)).fetchCount(db)
                    == values.filter { [low, high, .min].contains($0) }.count, "\(context)")
            }
            // Arithmetic that overflows is SQLite's business: it becomes REAL or
            // an error, never a wrapped integer.
            let sum = try DatabaseValue.fetchOne(db, sql: "SELECT ? + 1", arguments: [Int64.max])
            #expect(sum == .real(9.223372036854775808e18))
        }
    }

    @Test func int64PrimaryKeysAndTheTransactionSQLiteRollsBack() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path())
        var generator = HostileRandom.forProperty("keys")
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            for id in [Int64.min, -1, 0, Int64.max] {
                var item = HostileItem.random(using: &generator)
                item.id = id
                try item.insert(db)
                #expect(try HostileItem.fetchOne(db, key: id)?.id == id)
                #expect(try HostileItem.filter(\.id == id).fetchCount(db) == 1)
            }
            #expect(try HostileItem.fetchAll(db, keys: [Int64.min, Int64.max, 42]).compactMap(\.id).sorted() == [.min, .max])
        }
        // AUTOINCREMENT after Int64.max: SQLite refuses with SQLITE_FULL, and
        // rolls the whole transaction back by itself.
        var next = HostileItem.random(using: &generator)
        let full = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in try next.insert(db) }
        }
        #expect(full.resultCode == .SQLITE_FULL)
        #expect(next.id == nil)

        // A block that catches that error and goes on must not run the rest
        // outside of a transaction (each statement committed on its own): the
        // next statement throws SQLITE_ABORT, and nothing of the block is kept.
        var statementsAfterTheError = 0
        let aborted = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in
                var kept = HostileItem.random(using: &generator)
                kept.id = 1
                try kept.insert(db)
                var overflow = HostileItem.random(using: &generator)
                _ = try? overflow.insert(db)
                statementsAfterTheError += 1
                try db.execute(sql: "DELETE FROM hostileItem")
                statementsAfterTheError += 1
            }
        }
        #expect(aborted.resultCode == .SQLITE_ABORT)
        #expect(aborted.message.hasPrefix("the transaction was rolled back before its closure returned (by SQLite itself"))
        #expect(aborted.sql == "DELETE FROM hostileItem")
        #expect(statementsAfterTheError == 1)
        try dbQueue.read { (db: Database) throws in
            #expect(try HostileItem.fetchCount(db) == 4)
            #expect(try HostileItem.fetchOne(db, key: 1) == nil)
        }
        // The queue is usable afterwards.
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM hostileItem WHERE id = 0") }
        #expect(try dbQueue.read { db in try HostileItem.fetchCount(db) } == 3)
    }

    /// Expressions built in a loop can nest deeper than SQLite accepts (1000
    /// levels): an error, not a crash. (Generating the SQL of a 10,000-level
    /// sum used to overflow the stack.)
    @Test func deepExpressionsAndHugeListsAreErrors() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var sum = QueryExpression(\HostileItem.integer)
            for _ in 1..<10_000 { sum = sum + 1 }
            let deep = try #require(throws: DatabaseError.self) { _ = try HostileItem.filter(sum > 0).fetchCount(db) }
            #expect(deep.resultCode == .SQLITE_TOOBIG)
            #expect(deep.message.contains("nested more than 1000 levels"))

            // A long OR chain is flattened in the SQL text; SQLite refuses it.
            var condition = QueryExpression(\HostileItem.integer) == 0
            for index in 1..<10_000 { condition = condition || QueryExpression(\HostileItem.integer) == Int64(index) }
            let wide = try #require(throws: DatabaseError.self) { _ = try HostileItem.filter(condition).fetchCount(db) }
            #expect(wide.message.contains("Expression tree is too large"))

            // Within the limits (SQLite's parser takes about 100 nested
            // parentheses), both work.
            var shallow = QueryExpression(\HostileItem.integer)
            for _ in 1..<50 { shallow = shallow + 1 }
            #expect(try HostileItem.filter(shallow > 0).fetchCount(db) == 0)

            // More values than SQLite has parameters for (250,000 in Debian's
            // build): slow to build in a debug build, so in long mode only.
            if HostileTestSettings.isLong {
                let values = Array(Int64(0)..<300_000)
                let many = try #require(throws: DatabaseError.self) { _ = try HostileItem.filter(values.contains(\.integer)).fetchCount(db) }
                #expect(many.message.contains("too many SQL variables"))
            }
        }
    }

    @Test func uint64AboveInt64MaxIsRefusedNotWrapped() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let error = try #require(throws: DatabaseError.self) {
                _ = try Int64.fetchOne(db, sql: "SELECT ?", arguments: [UInt64.max])
            }
            #expect(error.message.contains("18446744073709551615"))
            #expect(try UInt64.fetchOne(db, sql: "SELECT ?", arguments: [UInt64(Int64.max)]) == UInt64(Int64.max))
        }
    }

    /// Documented behavior: SQLite stores NaN as NULL, and infinities as REAL
    /// infinities. A NaN in a non-optional Double column reads back as an error
    /// that names the column; in an optional, as nil.
    @Test func nanIsStoredAsNullAndInfinitiesRoundTrip() throws {
        struct Measure: Codable, FetchableRecord, PersistableRecord {
            var id: Int64?
            var value: Double
            var optionalValue: Double?
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "measure") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("value", .double)
                t.column("optionalValue", .double)
            }
            var infinite = Measure(id: nil, value: .infinity, optionalValue: -.infinity)
            try infinite.insert(db)
            let readInfinite = try #require(try Measure.fetchOne(db, key: infinite.id))
            #expect(readInfinite.value == .infinity && readInfinite.optionalValue == -.infinity)
            #expect(try String.fetchOne(db, sql: "SELECT typeof(value) FROM measure WHERE id = ?", arguments: [infinite.id]) == "real")
            #expect(try Measure.filter(\.value == .infinity).fetchCount(db) == 1)
            #expect(try Measure.filter(\.value > .greatestFiniteMagnitude).fetchCount(db) == 1)

            var nan = Measure(id: nil, value: .nan, optionalValue: .nan)
            try nan.insert(db)
            #expect(try Row.fetchOne(db, sql: "SELECT value FROM measure WHERE id = ?", arguments: [nan.id])?.databaseValues == [.null])
            let error = try #require(throws: RowDecodingError.self) { _ = try Measure.fetchOne(db, key: nan.id) }
            #expect(error.column == "value")
            #expect(error.reason == .unexpectedNull)
            #expect("\(error)".contains(#"cannot decode Double for Measure from column "value": found NULL"#))
            #expect(try Row.fetchOne(db, sql: "SELECT optionalValue FROM measure WHERE id = ?", arguments: [nan.id])?.databaseValues == [.null])
            #expect(try Measure.fetchAll(db, sql: "SELECT id, 0 AS value, optionalValue FROM measure WHERE id = ?", arguments: [nan.id]).first?.optionalValue == nil)
            // NaN never matches a filter: it is bound as NULL.
            #expect(try Measure.filter(\.value == .nan).fetchCount(db) == 0)
            #expect(try Row.fetchOne(db, sql: "SELECT ?", arguments: [Double.nan])?.databaseValues == [.null])

            // With NOT NULL, inserting NaN is a constraint violation.
            try db.create(table: "strictMeasure") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("value", .double).notNull()
            }
            let violation = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO strictMeasure (value) VALUES (?)", arguments: [Double.nan])
            }
            #expect(violation.isNotNullConstraintViolation)
        }
    }

    /// Documented behavior: a REAL column stores -0.0 as the integer 0 (SQLite's
    /// on-disk optimization), which reads back as +0.0; a column without
    /// affinity keeps the sign.
    @Test func negativeZeroLosesItsSignInARealColumn() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE zero (real REAL, any)")
            try db.execute(sql: "INSERT INTO zero VALUES (?, ?)", arguments: [-0.0, -0.0])
            let row = try #require(try Row.fetchOne(db, sql: "SELECT real, any FROM zero"))
            let real: Double = try row["real"]
            let any: Double = try row["any"]
            #expect(real == 0 && real.sign == .plus)
            #expect(any == 0 && any.sign == .minus)
        }
    }
}
