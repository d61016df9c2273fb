// The compile-time budget of the query interface: thirty expressions that mix
// key paths, literals, `??`, arithmetic, comparisons and logic, written
// inline as users write them, one statement each. The issue's target is that
// each type-checks within 150 ms (`-Xfrontend
// -warn-long-expression-type-checking=150`); Benchmarks/README.md, "Compile
// time", has the command and the current measurement (not met yet for the
// longest arithmetic mixes). `splitCases` holds the slowest of them split
// with typed `let`s, the workaround the QueryInterface article gives; those
// are within the budget. Each request selects the same players as the same
// condition written by hand in SQL.

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
    @Test func splitExpressionsWriteTheSameSQL() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            let scaled: QueryExpression<QPlayer, Int> = (\.score - 50) / 25
            let bonus: QueryExpression<QPlayer, Int> = \.bonus / 5
            let sql = #"SELECT * FROM "player" WHERE (("score" - ?) / ?) = ("bonus" / ?)"#
            try expectSQL(QPlayer.filter(scaled == bonus), db, sql, [50, 25, 5])
            let (inline, condition) = Self.cases[25]  // r26, the same condition inline
            #expect(condition == "(score - 50) / 25 = bonus / 5")
            try expectSQL(inline, db, sql, [50, 25, 5])
        }
    }

    @Test(arguments: Backend.all)
    func expressionsSelectWhatHandWrittenSQLSelects(_ backend: Backend) throws {
        #expect(Self.cases.count == 30)
        #expect(Self.splitCases.count == 7)
        try backend.withQueryFixtures { writer in try writer.read { db throws in
            for (index, (request, condition)) in (Self.cases + Self.splitCases).enumerated() {
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
