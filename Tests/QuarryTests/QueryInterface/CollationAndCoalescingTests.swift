// Regression tests: `collating(_:)` on a condition collates the compared
// values (it used to collate the 0/1 result, so the comparison stayed
// case-sensitive and returned no row), and `??` between two columns or
// expressions is the query interface's IFNULL (the standard library's `??`
// used to win, with a mere warning, and dropped the right side).

import Foundation
import Quarry
import Testing

struct Fallback: Codable, FetchableRecord, PersistableRecord {
    var id: Int64?
    var age: Int?
    var fallbackAge: Int?
    var defaultAge: Int
    var flagA: Bool
    var flagB: Bool
}

@Suite struct CollationAndCoalescingTests {
    // MARK: collating(_:) on conditions

    // SQLite only: the NOCASE collation.
    @Test(arguments: Backend.sqlite)
    func collationAppliesToTheComparedValues(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let equal = QPlayer.filter((\.name == "arthur").collating(.nocase))
                try expectSQL(equal, db, "SELECT * FROM \"player\" WHERE (\"name\" COLLATE \"NOCASE\") = ?", ["arthur"])
                #expect(try equal.fetchAll(db).map(\.name) == ["Arthur"])

                let list = QPlayer.filter(["arthur", "DORA"].contains(\.name).collating(.nocase)).order(\.id)
                try expectSQL(list, db, "SELECT * FROM \"player\" WHERE (\"name\" COLLATE \"NOCASE\") IN (?, ?) ORDER BY \"id\"", ["arthur", "DORA"])
                #expect(try list.fetchAll(db).map(\.name) == ["Arthur", "Dora"])

                let notIn = QPlayer.filter(QueryExpression(\.name).notIn(["arthur", "barbara", "cheng"]).collating(.nocase)).order(\.id)
                #expect(try notIn.fetchAll(db).map(\.name) == ["Dora", "Eve_%"])

                let range = QPlayer.filter(("a"..."b").contains(\.name).collating(.nocase))
                try expectSQL(range, db, "SELECT * FROM \"player\" WHERE (\"name\" COLLATE \"NOCASE\") BETWEEN ? AND ?", ["a", "b"])
                #expect(try range.fetchAll(db).map(\.name) == ["Arthur"])

                let halfOpen = QPlayer.filter(("a"..<"c").contains(\.name).collating(.nocase)).order(\.id)
                #expect(try halfOpen.fetchAll(db).map(\.name) == ["Arthur", "Barbara"])

                // Through AND, OR and NOT; IS NULL is left alone.
                let combined = QPlayer.filter((\.name == "arthur" || !(\.name != "dora") && \.teamID == nil).collating(.nocase)).order(\.id)
                try expectSQL(
                    combined, db,
                    "SELECT * FROM \"player\" WHERE ((\"name\" COLLATE \"NOCASE\") = ?) OR ((NOT ((\"name\" COLLATE \"NOCASE\") <> ?)) AND (\"team_id\" IS NULL)) ORDER BY \"id\"",
                    ["arthur", "dora"])
                #expect(try combined.fetchAll(db).map(\.name) == ["Arthur", "Dora"])

                // An already collated column takes the new collation.
                let recollated = QPlayer.filter((QueryExpression(\.name).collating(.binary) == "arthur").collating(.nocase))
                #expect(try recollated.fetchAll(db).map(\.name) == ["Arthur"])
            }
        }
    }

    @Test(arguments: Backend.all) func collationThatCannotReachAComparisonThrows(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                for request in [
                    QPlayer.filter(QueryExpression(\.name).like("a%").collating(.nocase)),
                    QPlayer.filter(QueryExpression(\.name).hasPrefix("a").collating(.nocase)),
                    QPlayer.filter(QueryExpression(\.name).contains("a").collating(.nocase)),
                    QPlayer.filter((lower(\.name) == "arthur").collating(.nocase)),
                    QPlayer.filter(QueryExpression<QPlayer, Bool>(sql: "name = ?", arguments: ["arthur"]).collating(.nocase)),
                ] {
                    let error = try #require(throws: DatabaseError.self) { _ = try request.fetchAll(db) }
                    #expect(error.resultCode == .SQLITE_MISUSE)
                    #expect(error.message.contains("collating(NOCASE) on a condition applies to the compared value"))
                }
            }
        }
    }

    // MARK: ??

    /// `??` is IFNULL on SQLite, COALESCE on PostgreSQL.
    @Test(arguments: Backend.all)
    func coalescingBetweenColumnsAndExpressionsIsIFNULL(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE fallback (id INTEGER PRIMARY KEY, age INTEGER, "fallbackAge" INTEGER, "defaultAge" INTEGER NOT NULL,
                        "flagA" BOOLEAN, "flagB" BOOLEAN NOT NULL);
                    INSERT INTO fallback VALUES (1, 30, NULL, 1, TRUE, FALSE), (2, NULL, 20, 2, NULL, TRUE), (3, NULL, NULL, 40, NULL, FALSE);
                    """)
            }
            try writer.read { db in
                let ifNull = backend.isPostgreSQL ? "COALESCE" : "IFNULL"
                func ids(_ request: QueryRequest<Fallback, Fallback>) throws -> [Int64?] { try request.order(\.id).select(\.id).fetchAll(db) }
                let optionalBoth = Fallback.filter((\.age ?? \.fallbackAge) > 18)
                try expectSQL(optionalBoth, db, "SELECT * FROM \"fallback\" WHERE \(ifNull)(\"age\", \"fallbackAge\") > ?", [18])
                #expect(try ids(optionalBoth) == [1, 2])

                let expressions = Fallback.filter((QueryExpression(\.age) ?? QueryExpression(\.fallbackAge)) > 18)
                try expectSQL(expressions, db, "SELECT * FROM \"fallback\" WHERE \(ifNull)(\"age\", \"fallbackAge\") > ?", [18])
                #expect(try ids(expressions) == [1, 2])

                #expect(try ids(Fallback.filter((\.age ?? QueryExpression(\.fallbackAge)) > 18)) == [1, 2])
                #expect(try ids(Fallback.filter((QueryExpression(\.age) ?? \.fallbackAge) > 18)) == [1, 2])
                #expect(try ids(Fallback.filter((\.age ?? QueryExpression(\.defaultAge)) > 18)) == [1, 3])
                #expect(try ids(Fallback.filter((QueryExpression(\.age) ?? \.defaultAge) > 18)) == [1, 3])
                #expect(try ids(Fallback.filter((\.age ?? \.defaultAge) > 18)) == [1, 3])

                let chain = Fallback.filter((\.age ?? \.fallbackAge ?? \.defaultAge) > 18)
                try expectSQL(
                    chain, db, "SELECT * FROM \"fallback\" WHERE \(ifNull)(\"age\", \(ifNull)(\"fallbackAge\", \"defaultAge\")) > ?", [18])
                #expect(try ids(chain) == [1, 2, 3])

                // Non-optional Swift types: the columns can still be NULL in SQL.
                let flags = Fallback.filter(\.flagA ?? \.flagB)
                try expectSQL(flags, db, "SELECT * FROM \"fallback\" WHERE \(ifNull)(\"flagA\", \"flagB\")")
                #expect(try ids(flags) == [1, 2])

                let selected = try Fallback.order(\.id).select(\.age ?? \.fallbackAge).fetchAll(db)
                #expect(selected == [30, 20, nil])
            }
        }
    }
}
