// Tests of the Sequence-like cursor operations (lazy map, filter and
// compactMap; first(where:), contains, isEmpty, min, max), Set(cursor),
// Row hashing and Row.fetchSet; errors thrown inside transforms propagate.

import Foundation
import Quarry
import Testing

@Suite struct CursorTransformTests {
    private func withNumbers<T>(_ body: (Database) throws -> T) throws -> T {
        let dbQueue = try DatabaseQueue()
        return try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE n (v INTEGER); INSERT INTO n VALUES (3), (1), (4), (1), (5), (NULL)")
            return try body(db)
        }
    }

    @Test func lazyTransforms() throws {
        try withNumbers { db throws in
            let doubled = try Int?.fetchCursor(db, sql: "SELECT v FROM n").compactMap { $0 }.map { $0 * 2 }
            #expect(try Array(doubled) == [6, 2, 8, 2, 10])
            let odd = try Int?.fetchCursor(db, sql: "SELECT v FROM n").compactMap { $0 }.filter { $0 % 2 == 1 }
            #expect(try Array(odd) == [3, 1, 1, 5])
            #expect(try Set(Int?.fetchCursor(db, sql: "SELECT v FROM n").compactMap { $0 }) == [1, 3, 4, 5])
        }
    }

    @Test func searchesAndExtremes() throws {
        try withNumbers { db throws in
            func numbers() throws -> CompactMapCursor<StatementCursor<Int?>, Int> {
                try Int?.fetchCursor(db, sql: "SELECT v FROM n").compactMap { $0 }
            }
            #expect(try numbers().first { $0 > 3 } == 4)
            #expect(try numbers().first { $0 > 9 } == nil)
            #expect(try numbers().contains { $0 == 5 })
            #expect(try !numbers().contains(7))
            #expect(try numbers().min() == 1)
            #expect(try numbers().max() == 5)
            #expect(try numbers().max { $0 % 4 < $1 % 4 } == 3)
            #expect(try !numbers().isEmpty)
            #expect(try Int.fetchCursor(db, sql: "SELECT v FROM n WHERE 0").isEmpty)
            #expect(try Int.fetchCursor(db, sql: "SELECT v FROM n WHERE 0").min() == nil)
        }
    }

    @Test func errorsInTransformsPropagate() throws {
        struct Stop: Error {}
        try withNumbers { db throws in
            let cursor = try Int?.fetchCursor(db, sql: "SELECT v FROM n").map { value -> Int in
                guard let value else { throw Stop() }
                return value
            }
            #expect(throws: Stop.self) { _ = try Array(cursor) }
            // NULL into a non-optional Int is a decoding error, reported by the base cursor.
            #expect(throws: RowDecodingError.self) { _ = try Set(Int.fetchCursor(db, sql: "SELECT v FROM n")) }
        }
    }

    @Test func rowsAreHashable() throws {
        try withNumbers { db throws in
            let rows = try Row.fetchSet(db, sql: "SELECT v FROM n")
            #expect(rows.count == 5)  // 3, 1, 4, 5, NULL
            #expect(rows.contains(try Row(columnNames: ["v"], databaseValues: [.null])))
            #expect(!rows.contains(try Row(columnNames: ["V"], databaseValues: [.integer(1)])))
            let pairs = try Row.fetchSet(db, sql: "SELECT v, v * 2 AS w FROM n WHERE v IS NOT NULL")
            #expect(pairs.count == 4)
        }
    }
}
