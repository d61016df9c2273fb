// The expression forms of GRDB's untyped `Column` beyond comparisons:
// arithmetic, `??`, collations, ordering with NULLs placed, ranges,
// aggregates, lower/upper and `Column.rank`, written as GRDB code writes them
// (`enum Columns`), with the SQL pinned and the rows checked against the same
// condition written by hand, on every backend.

import Quarry
import QuarryTestSupport
import Testing

private enum Columns {
    static let id = Column("id")
    static let name = Column("name")
    static let score = Column("score")
    static let bonus = Column("bonus")
    static let teamID = Column("team_id")
}

@Suite struct ColumnExpressionTests {
    /// The ids the request selects, and those the hand-written condition selects.
    private func ids(_ request: QueryRequest<QPlayer, QPlayer>, _ condition: String, _ db: Database) throws -> ([Int64?], [Int64?]) {
        (try request.order(\.id).select(\.id).fetchAll(db), try Int64?.fetchAll(db, sql: "SELECT id FROM player WHERE \(condition) ORDER BY id"))
    }

    @Test(arguments: Backend.all)
    func arithmetic(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let cases: [(QueryRequest<QPlayer, QPlayer>, String, StatementArguments, String)] = [
                    (QPlayer.filter(Columns.score + 1 > 101), #""score" + ?) > ?"#, [1, 101], "score + 1 > 101"),
                    (QPlayer.filter(Columns.score - 50 >= 50), #""score" - ?) >= ?"#, [50, 50], "score - 50 >= 50"),
                    (QPlayer.filter(Columns.score * 2 < 200), #""score" * ?) < ?"#, [2, 200], "score * 2 < 200"),
                    (QPlayer.filter(Columns.score / 25 == 4), #""score" / ?) = ?"#, [25, 4], "score / 25 = 4"),
                    (QPlayer.filter(300 - Columns.score > 200), #"? - "score") > ?"#, [300, 200], "300 - score > 200"),
                    (QPlayer.filter(2 * Columns.score == 200), #"? * "score") = ?"#, [2, 200], "2 * score = 200"),
                    (QPlayer.filter(Columns.score + Columns.bonus > 150), #""score" + "bonus") > ?"#, [150], "score + bonus > 150"),
                    (QPlayer.filter(Columns.score * Columns.bonus >= 1000), #""score" * "bonus") >= ?"#, [1000], "score * bonus >= 1000"),
                    (QPlayer.filter(-Columns.score < -100), #"-"score") < ?"#, [-100], "-score < -100"),
                    (QPlayer.filter(Columns.score + Columns.bonus * 2 > 120), #""score" + ("bonus" * ?)) > ?"#, [2, 120], "score + bonus * 2 > 120"),
                    (QPlayer.filter(Columns.score * 2 - Columns.bonus > 300), #"("score" * ?) - "bonus") > ?"#, [2, 300], "score * 2 - bonus > 300"),
                ]
                for (request, sql, arguments, condition) in cases {
                    try expectSQL(request, db, #"SELECT * FROM "player" WHERE ("# + sql, arguments)
                    let (got, expected) = try ids(request, condition, db)
                    #expect(got == expected, "\(condition)")
                    #expect(!expected.isEmpty, "\(condition)")
                }
                // A value of another type gives the expression its type. On
                // PostgreSQL, an untyped parameter takes the column's type:
                // 1.5 is no bigint there (the same holds for raw SQL).
                let real = QPlayer.filter(Columns.score * 1.5 > 300.0)
                try expectSQL(real, db, #"SELECT * FROM "player" WHERE ("score" * ?) > ?"#, [1.5, 300.0])
                if !backend.isPostgreSQL {
                    #expect(try real.fetchAll(db).map(\.name) == ["Barbara"])
                }
                // Ordering by a computed column.
                let ordered = QPlayer.order((Columns.score + Columns.bonus).desc)
                try expectSQL(ordered, db, #"SELECT * FROM "player" ORDER BY "score" + "bonus" DESC"#)
            }
        }
    }

    @Test(arguments: Backend.all)
    func coalescing(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let ifNull = backend.isPostgreSQL ? "COALESCE" : "IFNULL"
                let withValue = QPlayer.filter(Columns.teamID ?? 0 == 0)
                try expectSQL(withValue, db, #"SELECT * FROM "player" WHERE \#(ifNull)("team_id", ?) = ?"#, [0, 0])
                var (got, expected) = try ids(withValue, "COALESCE(team_id, 0) = 0", db)
                #expect(got == expected && got == [4, 5])

                // Between two columns, the query interface's ?? wins over the
                // standard library's (which would return the left column).
                let columns = QPlayer.filter(Columns.teamID ?? Columns.bonus > 4)
                try expectSQL(columns, db, #"SELECT * FROM "player" WHERE \#(ifNull)("team_id", "bonus") > ?"#, [4])
                (got, expected) = try ids(columns, "COALESCE(team_id, bonus) > 4", db)
                #expect(got == expected && got == [4])
                let ordered = QPlayer.order((Columns.teamID ?? Columns.bonus).desc)
                try expectSQL(ordered, db, #"SELECT * FROM "player" ORDER BY \#(ifNull)("team_id", "bonus") DESC"#)
                #expect(try ordered.select(\.id).fetchAll(db).first == 4)
            }
        }
    }

    @Test(arguments: Backend.all)
    func rangesAndCase(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let closed = QPlayer.filter((50...175).contains(Columns.score))
                try expectSQL(closed, db, #"SELECT * FROM "player" WHERE "score" BETWEEN ? AND ?"#, [50, 175])
                var (got, expected) = try ids(closed, "score BETWEEN 50 AND 175", db)
                #expect(got == expected && got == [1, 3, 4])

                let halfOpen = QPlayer.filter((50..<175).contains(Columns.score))
                try expectSQL(halfOpen, db, #"SELECT * FROM "player" WHERE ("score" >= ?) AND ("score" < ?)"#, [50, 175])
                (got, expected) = try ids(halfOpen, "score >= 50 AND score < 175", db)
                #expect(got == expected && got == [1, 4])

                let lowered = QPlayer.filter(lower(Columns.name) == "dora")
                try expectSQL(lowered, db, #"SELECT * FROM "player" WHERE lower("name") = ?"#, ["dora"])
                #expect(try lowered.select(\.id).fetchAll(db) == [4])
                let uppered = QPlayer.filter(upper(Columns.name) == "DORA")
                try expectSQL(uppered, db, #"SELECT * FROM "player" WHERE upper("name") = ?"#, ["DORA"])
                #expect(try uppered.select(\.id).fetchAll(db) == [4])
                // GRDB's spellings: `lowercased` and `uppercased` properties, untyped like a Column.
                let grdbLowered = QPlayer.filter(Columns.name.lowercased == "dora")
                try expectSQL(grdbLowered, db, #"SELECT * FROM "player" WHERE lower("name") = ?"#, ["dora"])
                (got, expected) = try ids(grdbLowered, "lower(name) = 'dora'", db)
                #expect(got == expected && got == [4])
                let grdbUppered = QPlayer.filter(Columns.name.uppercased != "DORA").order(Columns.name.uppercased.desc)
                try expectSQL(
                    grdbUppered, db, #"SELECT * FROM "player" WHERE upper("name") <> ? ORDER BY upper("name") DESC"#, ["DORA"])
                #expect(try grdbUppered.select(\.id).fetchAll(db)
                    == (try Int64?.fetchAll(db, sql: "SELECT id FROM player WHERE upper(name) <> 'DORA' ORDER BY upper(name) DESC")))
                #expect(Columns.name.lowercased.description == #"lower("name")"#)
                #expect(Columns.name.description == #""name""#)
                #expect(Columns.name.lowercased.name == "name")
            }
        }
    }

    @Test(arguments: Backend.all)
    func orderingWithNulls(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let nullsLast = QPlayer.order(Columns.teamID.ascNullsLast, Columns.id.asc)
                try expectSQL(nullsLast, db, #"SELECT * FROM "player" ORDER BY "team_id" NULLS LAST, "id""#)
                #expect(try nullsLast.select(\.id).fetchAll(db)
                    == Int64?.fetchAll(db, sql: "SELECT id FROM player ORDER BY team_id NULLS LAST, id"))
                #expect(try nullsLast.select(\.id).fetchAll(db) == [1, 2, 3, 4, 5])

                let nullsFirst = QPlayer.order(Columns.teamID.descNullsFirst, Columns.id.asc)
                try expectSQL(nullsFirst, db, #"SELECT * FROM "player" ORDER BY "team_id" DESC NULLS FIRST, "id""#)
                #expect(try nullsFirst.select(\.id).fetchAll(db) == [4, 5, 3, 1, 2])
            }
        }
    }

    @Test(arguments: Backend.all)
    func aggregates(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                try expectSQL(QPlayer.select(max(Columns.score), as: Int.self), db, #"SELECT MAX("score") FROM "player""#)
                #expect(try QPlayer.select(max(Columns.score), as: Int.self).fetchOne(db) == 250)
                #expect(try QPlayer.select(min(Columns.score), as: Int.self).fetchOne(db) == 0)
                #expect(try QPlayer.select(sum(Columns.score), as: Int.self).fetchOne(db) == 575)
                #expect(try QPlayer.select(max(Columns.score)).fetchOne(db) == 250)
                #expect(try QPlayer.select(count(Columns.teamID)).fetchOne(db) == 3)
                try expectSQL(QPlayer.select(count(distinct: Columns.teamID)), db, #"SELECT COUNT(DISTINCT "team_id") FROM "player""#)
                #expect(try QPlayer.select(count(distinct: Columns.teamID)).fetchOne(db) == 2)
                #expect(try QPlayer.select(total(Columns.bonus)).fetchOne(db) == 35.0)
                #expect(try QPlayer.select(average(Columns.score)).fetchOne(db) == 115.0)
                #expect(try QPlayer.filter(Columns.score > 1000).select(max(Columns.score), as: Int?.self).fetchOne(db) == .some(nil))
                #expect(try QPlayer.filter(Columns.score > 1000).select(total(Columns.bonus)).fetchOne(db) == 0.0)
                let expected = try Int.fetchOne(db, sql: "SELECT MAX(score) - MIN(score) FROM player")
                #expect(try QPlayer.all().select(max(Columns.score), as: Int.self).fetchOne(db).map { $0 - 0 } == expected)
            }
        }
    }

    @Test(arguments: Backend.all)
    func collating(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let request = QPlayer.filter(Columns.name.collating(.binary) == "Dora")
                try expectSQL(request, db, #"SELECT * FROM "player" WHERE ("name" COLLATE "BINARY") = ?"#, ["Dora"])
                if backend.isPostgreSQL {
                    // PostgreSQL has no BINARY collation (nor NOCASE): the
                    // server refuses the request.
                    let error = #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try request.fetchAll(db) } }
                    // undefined_object: collation "BINARY" does not exist
                    #expect(error?.sqlState == "42704", "\(String(describing: error))")
                    #expect(error?.message.contains("BINARY") == true, "\(String(describing: error))")
                } else {
                    #expect(try request.select(\.id).fetchAll(db) == [4])
                    let nocase = QPlayer.filter(Columns.name.collating(.nocase) == "dora")
                    #expect(try nocase.select(\.id).fetchAll(db) == [4])
                    let ordered = QPlayer.order(Columns.name.collating(.nocase))
                    try expectSQL(ordered, db, #"SELECT * FROM "player" ORDER BY "name" COLLATE "NOCASE""#)
                }
            }
        }
    }

    @Test func rankIsTheFTS5Column() throws {
        #expect(Column.rank.name == "rank")
        let queue = try DatabaseQueue()
        try queue.read { db in
            try expectSQL(QPlayer.order(Column.rank), db, #"SELECT * FROM "player" ORDER BY "rank""#)
        }
    }
}
