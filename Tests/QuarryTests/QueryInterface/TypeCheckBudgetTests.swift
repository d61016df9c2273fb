// The compile-time budget of the query interface: thirty expressions that mix
// key paths, literals, `??`, arithmetic, comparisons and logic, one statement
// each, written three ways. The issue's target is that each type-checks within
// 150 ms (`-Xfrontend -warn-long-expression-type-checking=150`);
// Benchmarks/README.md, "Compile time", has the command and the measurements.
// scripts/type-check-budget.sh (run by CI) enforces it on `closureCases` and
// `splitCases`, and on `cases` but for the six known exceptions.
// - `cases`: inline with key paths. Six of them are over the budget (r6, r19,
//   r26, r29: 249 to 1,024 ms; r3 and r17, 172 to 232 ms, measured over it on
//   2 cores at 10291d7 and since, first seen when CI reached this check on
//   2026-12-06): the compiler tries the standard library's operators until the
//   key paths' root is known.
// - `closureCases`: the same thirty in the closure form (`$0.score`), which the
//   QueryInterface article recommends for long expressions: all within the
//   budget (under 10 ms each).
// - `splitCases`: the slowest inline ones split with typed `let`s: within the
//   budget.
// Each request selects the same players as the same condition written by hand
// in SQL.

import Quarry
import Testing

@Suite("Type-check budget")
struct TypeCheckBudgetTests {
    /// Each request, and the same condition written by hand in SQL: one
    /// statement each, as a user writes them.
    static var cases: [(QueryRequest<QPlayer, QPlayer>, String)] {
        var cases: [(QueryRequest<QPlayer, QPlayer>, String)] = []
        let r1 = QPlayer.filter(\.score + \.bonus > 150)
        cases.append((r1, "score + bonus > 150"))
        let r2 = QPlayer.filter((\.score + \.bonus) / 2 >= 100)
        cases.append((r2, "(score + bonus) / 2 >= 100"))
        let r3 = QPlayer.filter(\.score * 2 - \.bonus * 3 > 100)
        cases.append((r3, "score * 2 - bonus * 3 > 100"))
        let r4 = QPlayer.filter(\.teamID ?? 0 == 1)
        cases.append((r4, "coalesce(team_id, 0) = 1"))
        let r5 = QPlayer.filter((\.teamID ?? 0) + 1 == 2)
        cases.append((r5, "coalesce(team_id, 0) + 1 = 2"))
        let r6 = QPlayer.filter(\.score / 10 + \.bonus / 5 > 10 && \.isActive)
        cases.append((r6, "score / 10 + bonus / 5 > 10 AND active"))
        let r7 = QPlayer.filter(\.score > 100 || \.bonus > 10 && \.isActive)
        cases.append((r7, "score > 100 OR (bonus > 10 AND active)"))
        let r8 = QPlayer.filter(!(\.score < 100) && \.name != "Barbara")
        cases.append((r8, "NOT (score < 100) AND name <> 'Barbara'"))
        let r9 = QPlayer.filter(\.score - \.bonus == 90 || \.score + \.bonus == 60)
        cases.append((r9, "score - bonus = 90 OR score + bonus = 60"))
        let r10 = QPlayer.filter((\.score + 10) * 2 > 300)
        cases.append((r10, "(score + 10) * 2 > 300"))
        let r11 = QPlayer.filter(\.score >= 50 && \.score <= 200 && \.bonus < 15)
        cases.append((r11, "score >= 50 AND score <= 200 AND bonus < 15"))
        let r12 = QPlayer.filter(-\.score < -100 && \.bonus >= 0)
        cases.append((r12, "-score < -100 AND bonus >= 0"))
        let r13 = QPlayer.filter(\.teamID == nil || \.teamID == 2)
        cases.append((r13, "team_id IS NULL OR team_id = 2"))
        let r14 = QPlayer.filter((\.teamID ?? 99) != 1 && \.score > 0)
        cases.append((r14, "coalesce(team_id, 99) <> 1 AND score > 0"))
        let r15 = QPlayer.filter { $0.name.hasPrefix("A") || $0.name.hasSuffix("ra") }
        cases.append((r15, "name LIKE 'A%' OR name LIKE '%ra'"))
        let r16 = QPlayer.filter(length(\.name) + \.score / 100 > 6)
        cases.append((r16, "length(name) + score / 100 > 6"))
        let r17 = QPlayer.filter((\.score + \.bonus) * 2 / 3 > 80 && \.teamID != nil)
        cases.append((r17, "(score + bonus) * 2 / 3 > 80 AND team_id IS NOT NULL"))
        let r18 = QPlayer.filter(\.score > \.bonus * 10 && \.isActive == true)
        cases.append((r18, "score > bonus * 10 AND active = TRUE"))
        let r19 = QPlayer.filter(\.score + \.bonus * 2 - 5 >= 100 || \.name == "Dora")
        cases.append((r19, "score + bonus * 2 - 5 >= 100 OR name = 'Dora'"))
        let r20 = QPlayer.filter(lower(\.name) == "dora" || upper(\.name) == "EVE_%")
        cases.append((r20, "lower(name) = 'dora' OR upper(name) = 'EVE_%'"))
        let r21 = QPlayer.filter(\.score / (\.bonus + 1) > 10)
        cases.append((r21, "score / (bonus + 1) > 10"))
        let r22 = QPlayer.filter((\.teamID ?? 0) * 10 + 5 > 15)
        cases.append((r22, "coalesce(team_id, 0) * 10 + 5 > 15"))
        let r23 = QPlayer.filter(\.score >= 100 && (\.bonus > 5 || \.teamID == nil))
        cases.append((r23, "score >= 100 AND (bonus > 5 OR team_id IS NULL)"))
        let r24 = QPlayer.filter(\.score * \.bonus > 1000 || \.score == 0)
        cases.append((r24, "score * bonus > 1000 OR score = 0"))
        let r25 = QPlayer.filter(\.score + 1 > \.bonus + 100)
        cases.append((r25, "score + 1 > bonus + 100"))
        let r26 = QPlayer.filter((\.score - 50) / 25 == \.bonus / 5)
        cases.append((r26, "(score - 50) / 25 = bonus / 5"))
        let r27 = QPlayer.filter(\.isActive && !(\.teamID == nil) && \.score * 2 > 150)
        cases.append((r27, "active AND NOT (team_id IS NULL) AND score * 2 > 150"))
        let r28 = QPlayer.filter(\.name != "Arthur" && \.name != "Barbara" && \.score + \.bonus >= 50)
        cases.append((r28, "name <> 'Arthur' AND name <> 'Barbara' AND score + bonus >= 50"))
        let r29 = QPlayer.filter((\.score + \.bonus) / 5 + 3 > 30)
        cases.append((r29, "(score + bonus) / 5 + 3 > 30"))
        let r30 = QPlayer.filter { $0.score + $0.bonus > 150 && $0.name.hasPrefix("B") }
        cases.append((r30, "score + bonus > 150 AND name LIKE 'B%'"))
        return cases
    }

    /// The same thirty conditions in the closure form, where `$0` is the
    /// record's ``TableColumns`` and each column's type is known before any
    /// operator is chosen: every statement is within the budget.
    static var closureCases: [(QueryRequest<QPlayer, QPlayer>, String)] {
        var cases: [(QueryRequest<QPlayer, QPlayer>, String)] = []
        let c1 = QPlayer.filter { $0.score + $0.bonus > 150 }
        cases.append((c1, "score + bonus > 150"))
        let c2 = QPlayer.filter { ($0.score + $0.bonus) / 2 >= 100 }
        cases.append((c2, "(score + bonus) / 2 >= 100"))
        let c3 = QPlayer.filter { $0.score * 2 - $0.bonus * 3 > 100 }
        cases.append((c3, "score * 2 - bonus * 3 > 100"))
        let c4 = QPlayer.filter { $0.teamID ?? 0 == 1 }
        cases.append((c4, "coalesce(team_id, 0) = 1"))
        let c5 = QPlayer.filter { ($0.teamID ?? 0) + 1 == 2 }
        cases.append((c5, "coalesce(team_id, 0) + 1 = 2"))
        let c6 = QPlayer.filter { $0.score / 10 + $0.bonus / 5 > 10 && $0.isActive }
        cases.append((c6, "score / 10 + bonus / 5 > 10 AND active"))
        let c7 = QPlayer.filter { $0.score > 100 || $0.bonus > 10 && $0.isActive }
        cases.append((c7, "score > 100 OR (bonus > 10 AND active)"))
        let c8 = QPlayer.filter { !($0.score < 100) && $0.name != "Barbara" }
        cases.append((c8, "NOT (score < 100) AND name <> 'Barbara'"))
        let c9 = QPlayer.filter { $0.score - $0.bonus == 90 || $0.score + $0.bonus == 60 }
        cases.append((c9, "score - bonus = 90 OR score + bonus = 60"))
        let c10 = QPlayer.filter { ($0.score + 10) * 2 > 300 }
        cases.append((c10, "(score + 10) * 2 > 300"))
        let c11 = QPlayer.filter { $0.score >= 50 && $0.score <= 200 && $0.bonus < 15 }
        cases.append((c11, "score >= 50 AND score <= 200 AND bonus < 15"))
        let c12 = QPlayer.filter { -$0.score < -100 && $0.bonus >= 0 }
        cases.append((c12, "-score < -100 AND bonus >= 0"))
        let c13 = QPlayer.filter { $0.teamID == nil || $0.teamID == 2 }
        cases.append((c13, "team_id IS NULL OR team_id = 2"))
        let c14 = QPlayer.filter { ($0.teamID ?? 99) != 1 && $0.score > 0 }
        cases.append((c14, "coalesce(team_id, 99) <> 1 AND score > 0"))
        let c15 = QPlayer.filter { $0.name.hasPrefix("A") || $0.name.hasSuffix("ra") }
        cases.append((c15, "name LIKE 'A%' OR name LIKE '%ra'"))
        let c16 = QPlayer.filter { $0.name.length + $0.score / 100 > 6 }
        cases.append((c16, "length(name) + score / 100 > 6"))
        let c17 = QPlayer.filter { ($0.score + $0.bonus) * 2 / 3 > 80 && $0.teamID != nil }
        cases.append((c17, "(score + bonus) * 2 / 3 > 80 AND team_id IS NOT NULL"))
        let c18 = QPlayer.filter { $0.score > $0.bonus * 10 && $0.isActive == true }
        cases.append((c18, "score > bonus * 10 AND active = TRUE"))
        let c19 = QPlayer.filter { $0.score + $0.bonus * 2 - 5 >= 100 || $0.name == "Dora" }
        cases.append((c19, "score + bonus * 2 - 5 >= 100 OR name = 'Dora'"))
        let c20 = QPlayer.filter { $0.name.lowercased == "dora" || $0.name.uppercased == "EVE_%" }
        cases.append((c20, "lower(name) = 'dora' OR upper(name) = 'EVE_%'"))
        let c21 = QPlayer.filter { $0.score / ($0.bonus + 1) > 10 }
        cases.append((c21, "score / (bonus + 1) > 10"))
        let c22 = QPlayer.filter { ($0.teamID ?? 0) * 10 + 5 > 15 }
        cases.append((c22, "coalesce(team_id, 0) * 10 + 5 > 15"))
        let c23 = QPlayer.filter { $0.score >= 100 && ($0.bonus > 5 || $0.teamID == nil) }
        cases.append((c23, "score >= 100 AND (bonus > 5 OR team_id IS NULL)"))
        let c24 = QPlayer.filter { $0.score * $0.bonus > 1000 || $0.score == 0 }
        cases.append((c24, "score * bonus > 1000 OR score = 0"))
        let c25 = QPlayer.filter { $0.score + 1 > $0.bonus + 100 }
        cases.append((c25, "score + 1 > bonus + 100"))
        let c26 = QPlayer.filter { ($0.score - 50) / 25 == $0.bonus / 5 }
        cases.append((c26, "(score - 50) / 25 = bonus / 5"))
        let c27 = QPlayer.filter { $0.isActive && !($0.teamID == nil) && $0.score * 2 > 150 }
        cases.append((c27, "active AND NOT (team_id IS NULL) AND score * 2 > 150"))
        let c28 = QPlayer.filter { $0.name != "Arthur" && $0.name != "Barbara" && $0.score + $0.bonus >= 50 }
        cases.append((c28, "name <> 'Arthur' AND name <> 'Barbara' AND score + bonus >= 50"))
        let c29 = QPlayer.filter { ($0.score + $0.bonus) / 5 + 3 > 30 }
        cases.append((c29, "(score + bonus) / 5 + 3 > 30"))
        let c30 = QPlayer.filter { $0.score + $0.bonus > 150 && $0.name.hasPrefix("B") }
        cases.append((c30, "score + bonus > 150 AND name LIKE 'B%'"))
        return cases
    }

    /// The seven slowest cases above, each split with typed `let`s, the
    /// workaround the QueryInterface article gives: each statement is then
    /// within the budget (Benchmarks/README.md, "Compile time").
    static var splitCases: [(QueryRequest<QPlayer, QPlayer>, String)] {
        var cases: [(QueryRequest<QPlayer, QPlayer>, String)] = []
        let s3a: QueryExpression<QPlayer, Int> = \.score * 2
        let s3b: QueryExpression<QPlayer, Int> = \.bonus * 3
        cases.append((QPlayer.filter(s3a - s3b > 100), "score * 2 - bonus * 3 > 100"))
        let s6a: QueryExpression<QPlayer, Int> = \.score / 10
        let s6b: QueryExpression<QPlayer, Int> = \.bonus / 5
        cases.append((QPlayer.filter(s6a + s6b > 10 && \.isActive), "score / 10 + bonus / 5 > 10 AND active"))
        let s19: QueryExpression<QPlayer, Int> = \.bonus * 2
        cases.append((QPlayer.filter(\.score + s19 - 5 >= 100 || \.name == "Dora"), "score + bonus * 2 - 5 >= 100 OR name = 'Dora'"))
        let s22: QueryExpression<QPlayer, Int64> = \.teamID ?? 0
        cases.append((QPlayer.filter(s22 * 10 + 5 > 15), "coalesce(team_id, 0) * 10 + 5 > 15"))
        let s25: QueryExpression<QPlayer, Int> = \.score + 1
        cases.append((QPlayer.filter(s25 > \.bonus + 100), "score + 1 > bonus + 100"))
        let s26a: QueryExpression<QPlayer, Int> = (\.score - 50) / 25
        let s26b: QueryExpression<QPlayer, Int> = \.bonus / 5
        cases.append((QPlayer.filter(s26a == s26b), "(score - 50) / 25 = bonus / 5"))
        let s29: QueryExpression<QPlayer, Int> = \.score + \.bonus
        cases.append((QPlayer.filter(s29 / 5 + 3 > 30), "(score + bonus) / 5 + 3 > 30"))
        return cases
    }

    /// The split form writes the same SQL as the inline one (the SQL the
    /// QueryInterface article shows).
    @Test(arguments: Backend.all)
    func splitExpressionsWriteTheSameSQL(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in try writer.read { db throws in
            let scaled: QueryExpression<QPlayer, Int> = (\.score - 50) / 25
            let bonus: QueryExpression<QPlayer, Int> = \.bonus / 5
            let sql = #"SELECT * FROM "player" WHERE (("score" - ?) / ?) = ("bonus" / ?)"#
            try expectSQL(QPlayer.filter(scaled == bonus), db, sql, [50, 25, 5])
            let (inline, condition) = Self.cases[25]  // r26, the same condition inline
            #expect(condition == "(score - 50) / 25 = bonus / 5")
            try expectSQL(inline, db, sql, [50, 25, 5])
            #expect(try QPlayer.filter(scaled == bonus).order(\.id).fetchAll(db) == inline.order(\.id).fetchAll(db))
        } }
    }

    /// The closure form writes the same SQL as the inline one.
    @Test(arguments: Backend.all)
    func closureExpressionsWriteTheSameSQL(_ backend: Backend) throws {
        try backend.withWriter { writer in try writer.read { db throws in
            let sql = #"SELECT * FROM "player" WHERE (("score" - ?) / ?) = ("bonus" / ?)"#
            try expectSQL(QPlayer.filter { ($0.score - 50) / 25 == $0.bonus / 5 }, db, sql, [50, 25, 5])
            for index in Self.cases.indices {
                let (inline, condition) = Self.cases[index]
                let (closure, closureCondition) = Self.closureCases[index]
                #expect(condition == closureCondition)
                let inlineSQL = try inline.sql(db)
                let closureSQL = try closure.sql(db)
                #expect(inlineSQL.sql == closureSQL.sql, "case \(index + 1): \(condition)")
                #expect(inlineSQL.arguments == closureSQL.arguments, "case \(index + 1): \(condition)")
            }
        } }
    }

    @Test(arguments: Backend.all)
    func expressionsSelectWhatHandWrittenSQLSelects(_ backend: Backend) throws {
        #expect(Self.cases.count == 30)
        #expect(Self.splitCases.count == 7)
        #expect(Self.closureCases.count == 30)
        try backend.withQueryFixtures { writer in try writer.read { db throws in
            for (index, (request, condition)) in (Self.cases + Self.splitCases + Self.closureCases).enumerated() {
                let fetched = try request.order(\.id).fetchAll(db).map(\.id)
                let expected = try Int64?.fetchAll(db, sql: "SELECT id FROM player WHERE \(condition) ORDER BY id")
                #expect(fetched == expected, "case \(index + 1): \(condition)")
            }
            // Not all the same answer: the cases select different players.
            let answers = try Set(Self.cases.map { try $0.0.fetchAll(db).map(\.id) })
            #expect(answers.count > 10)
        } }
    }
}
