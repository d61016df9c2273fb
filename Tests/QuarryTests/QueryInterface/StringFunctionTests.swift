// Everyday SQL functions of the query interface: CAST, text concatenation,
// trim/ltrim/rtrim, substr, replace and instr, with the SQL pinned per
// dialect and the rows checked against the same condition written by hand,
// on every backend.

import Quarry
import QuarryTestSupport
import Testing

@Suite struct StringFunctionTests {
    /// The ids the request selects, and those the hand-written condition selects.
    private func ids(_ request: QueryRequest<QPlayer, QPlayer>, _ condition: String, _ db: Database) throws -> ([Int64?], [Int64?]) {
        (try request.order(\.id).select(\.id).fetchAll(db), try Int64?.fetchAll(db, sql: "SELECT id FROM player WHERE \(condition) ORDER BY id"))
    }

    @Test(arguments: Backend.all)
    func castUsesTheDialectTypeNames(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let text = QPlayer.filter(cast(\.score, as: .text) == "100")
                try expectSQL(text, db, #"SELECT * FROM "player" WHERE CAST("score" AS TEXT) = ?"#, ["100"])
                var (got, expected) = try ids(text, "CAST(score AS TEXT) = '100'", db)
                #expect(got == expected && got == [1])

                let typed = QPlayer.filter(cast(\.score, as: .text, to: String.self).hasPrefix("1"))
                (got, expected) = try ids(typed, "CAST(score AS TEXT) LIKE '1%'", db)
                #expect(got == expected && got == [1, 3])

                let integerType = backend.isPostgreSQL ? "BIGINT" : "INTEGER"
                let integer = QPlayer.filter(cast(Column("name"), as: .integer) == 0).select(\.id)
                try expectSQL(
                    QPlayer.select(cast(Column("score"), as: .integer), as: Int.self), db,
                    #"SELECT CAST("score" AS \#(integerType)) FROM "player""#)
                let realType = backend.isPostgreSQL ? "DOUBLE PRECISION" : "REAL"
                let real = QPlayer.select(cast(\.score, as: .real, to: Double.self) / 8).filter(\.id == 1)
                try expectSQL(real, db, #"SELECT CAST("score" AS \#(realType)) / ? FROM "player" WHERE "id" = ?"#, [8.0, 1])
                #expect(try real.fetchOne(db) == 12.5)
                if backend.isPostgreSQL {
                    // PostgreSQL refuses text that is no number (last: the
                    // error ends the read transaction).
                    let error = #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try integer.fetchAll(db) } }
                    // invalid_text_representation
                    #expect(error?.sqlState == "22P02", "\(String(describing: error))")
                } else {
                    // SQLite reads it as 0.
                    #expect(try integer.fetchAll(db) == [1, 2, 3, 4, 5])
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func concatenation(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let request = QPlayer.filter { $0.name.appending("-").appending($0.name) == "Dora-Dora" }
                try expectSQL(request, db, #"SELECT * FROM "player" WHERE (("name" || ?) || "name") = ?"#, ["-", "Dora-Dora"])
                let (got, expected) = try ids(request, "name || '-' || name = 'Dora-Dora'", db)
                #expect(got == expected && got == [4])
                let selected = try QPlayer.filter(\.id == 1).select(QueryExpression(\QPlayer.name).appending("!")).fetchOne(db)
                #expect(selected == "Arthur!")
            }
        }
    }

    @Test(arguments: Backend.all)
    func trimSubstrReplaceInstr(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let instrName = backend.isPostgreSQL ? "strpos" : "instr"
                let cases: [(QueryRequest<QPlayer, QPlayer>, String, StatementArguments, String)] = [
                    (QPlayer.filter(trim(\.name, characters: "A") == "rthur"), #"trim("name", ?) = ?"#, ["A", "rthur"],
                     "trim(name, 'A') = 'rthur'"),
                    (QPlayer.filter(ltrim(\.name, characters: "AD") == "rthur"), #"ltrim("name", ?) = ?"#, ["AD", "rthur"],
                     "ltrim(name, 'AD') = 'rthur'"),
                    (QPlayer.filter(rtrim(\.name, characters: "a") == "Dor"), #"rtrim("name", ?) = ?"#, ["a", "Dor"],
                     "rtrim(name, 'a') = 'Dor'"),
                    (QPlayer.filter(trim(QueryExpression(\QPlayer.name).appending("  ")) == "Dora"), #"trim("name" || ?) = ?"#, ["  ", "Dora"],
                     "trim(name || '  ') = 'Dora'"),
                    (QPlayer.filter(rtrim(Column("name")) == "Dora"), #"rtrim("name") = ?"#, ["Dora"], "rtrim(name) = 'Dora'"),
                    (QPlayer.filter(ltrim(Column("name")) == "Dora"), #"ltrim("name") = ?"#, ["Dora"], "ltrim(name) = 'Dora'"),
                    (QPlayer.filter(substr(\.name, 2, 3) == "rth"), #"substr("name", ?, ?) = ?"#, [2, 3, "rth"],
                     "substr(name, 2, 3) = 'rth'"),
                    (QPlayer.filter(substr(\.name, 3) == "ra"), #"substr("name", ?) = ?"#, [3, "ra"], "substr(name, 3) = 'ra'"),
                    (QPlayer.filter(substr(Column("name"), 1, 1) == "C"), #"substr("name", ?, ?) = ?"#, [1, 1, "C"],
                     "substr(name, 1, 1) = 'C'"),
                    (QPlayer.filter(replace(\.name, "r", with: "") == "Athu"), #"replace("name", ?, ?) = ?"#, ["r", "", "Athu"],
                     "replace(name, 'r', '') = 'Athu'"),
                    (QPlayer.filter(instr(\.name, "r") == 2), #"\#(instrName)("name", ?) = ?"#, ["r", 2],
                     backend.isPostgreSQL ? "strpos(name, 'r') = 2" : "instr(name, 'r') = 2"),
                ]
                for (request, sql, arguments, condition) in cases {
                    try expectSQL(request, db, #"SELECT * FROM "player" WHERE "# + sql, arguments)
                    let (got, expected) = try ids(request, condition, db)
                    #expect(got == expected, "\(condition)")
                    #expect(!expected.isEmpty, "\(condition)")
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func simpleAndExpressionCase(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let simple = QPlayer.filter(caseWhen(\.teamID, [(1, "red"), (2, "blue")], otherwise: "none") == "red")
                try expectSQL(
                    simple, db, #"SELECT * FROM "player" WHERE (CASE "team_id" WHEN ? THEN ? WHEN ? THEN ? ELSE ? END) = ?"#,
                    [1, "red", 2, "blue", "none", "red"])
                var (got, expected) = try ids(simple, "(CASE team_id WHEN 1 THEN 'red' WHEN 2 THEN 'blue' ELSE 'none' END) = 'red'", db)
                #expect(got == expected && got == [1, 2])
                let none = QPlayer.filter(caseWhen(\.teamID, [(1, "red"), (2, "blue")], otherwise: "none") == "none")
                #expect(try none.select(\.id).fetchAll(db) == [4, 5])

                let score = QueryExpression(\QPlayer.score)
                let branches = caseWhen([(\QPlayer.bonus > 5, score + \.bonus)], otherwise: score - 1)
                let withExpressions = QPlayer.filter(branches > 100)
                try expectSQL(
                    withExpressions, db,
                    #"SELECT * FROM "player" WHERE (CASE WHEN "bonus" > ? THEN "score" + "bonus" ELSE "score" - ? END) > ?"#, [5, 1, 100])
                (got, expected) = try ids(withExpressions, "(CASE WHEN bonus > 5 THEN score + bonus ELSE score - 1 END) > 100", db)
                #expect(got == expected && got == [1, 2, 3])
                // The same in the closure form.
                let closure = QPlayer.filter { caseWhen([($0.bonus > 5, $0.score + $0.bonus)], otherwise: $0.score - 1) > 100 }
                #expect(try closure.sql(db).sql == withExpressions.sql(db).sql)
                #expect(try closure.order(\.id).select(\.id).fetchAll(db) == [1, 2, 3])
                // Typed CAST of a Column.
                let typed = QPlayer.filter(cast(Column("score"), as: .text, to: String.self).hasSuffix("00")).order(\.id).select(\.id)
                #expect(try typed.fetchAll(db) == [1])
            }
        }
    }

    @Test(arguments: Backend.all)
    func integerOperators(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let cases: [(QueryRequest<QPlayer, QPlayer>, String, StatementArguments, String)] = [
                    (QPlayer.filter(\.score % 100 == 0), #"("score" % ?) = ?"#, [100, 0], "score % 100 = 0"),
                    (QPlayer.filter(QueryExpression(\QPlayer.score) % (QueryExpression(\QPlayer.bonus) + 1) == 0), #"("score" % ("bonus" + ?)) = ?"#,
                     [1, 0], "score % (bonus + 1) = 0"),
                    (QPlayer.filter(\.score & 4 != 0), #"("score" & ?) <> ?"#, [4, 0], "score & 4 <> 0"),
                    (QPlayer.filter(\.score | 1 == 101), #"("score" | ?) = ?"#, [1, 101], "score | 1 = 101"),
                    (QPlayer.filter(\.score << 1 == 200), #"("score" << ?) = ?"#, [1, 200], "score << 1 = 200"),
                    (QPlayer.filter(\.score >> 1 == 50), #"("score" >> ?) = ?"#, [1, 50], "score >> 1 = 50"),
                    (QPlayer.filter(~\.score == -101), #"(~"score") = ?"#, [-101], "~score = -101"),
                    (QPlayer.filter(Column("score") % 7 == 0), #"("score" % ?) = ?"#, [7, 0], "score % 7 = 0"),
                    (QPlayer.filter(Column("score") & 2 == 2), #"("score" & ?) = ?"#, [2, 2], "score & 2 = 2"),
                    (QPlayer.filter((QueryExpression(\QPlayer.score) + 1) & 1 == 1), #"(("score" + ?) & ?) = ?"#, [1, 1, 1],
                     "((score + 1) & 1) = 1"),
                ]
                for (request, sql, arguments, condition) in cases {
                    try expectSQL(request, db, #"SELECT * FROM "player" WHERE "# + sql, arguments)
                    let (got, expected) = try ids(request, condition, db)
                    #expect(got == expected, "\(condition)")
                    #expect(!expected.isEmpty, "\(condition)")
                }
            }
        }
    }
}
