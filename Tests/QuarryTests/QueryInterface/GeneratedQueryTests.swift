// Property-style tests: random data and randomly composed filters, each
// written twice — with the query interface and as hand-written SQL — must
// select the same rows. A seeded generator keeps runs reproducible.

import Foundation
import Quarry
import Testing
import QuarryTestSupport


@Suite struct GeneratedQueryTests {
    /// A random condition, as a query expression and as SQL with arguments.
    struct Condition {
        var expression: QueryExpression<QPlayer, Bool>
        var sql: String
        var arguments: [(any DatabaseValueConvertible)?]
    }

    static let names = ["Ann", "Bob", "O'Brien", "50%", "a_b", "Émile", "🙂", "x\"y", "", "[a]*?", "*b"]

    static func condition(_ random: inout SeededGenerator, depth: Int = 0) -> Condition {
        let choice = Int.random(in: 0..<(depth < 2 ? 11 : 8), using: &random)
        let score = Int.random(in: -5...105, using: &random)
        let name = names.randomElement(using: &random) ?? ""
        switch choice {
        case 0: return Condition(expression: \QPlayer.score > score, sql: "score > ?", arguments: [score])
        case 1: return Condition(expression: \QPlayer.score <= score, sql: "score <= ?", arguments: [score])
        case 2: return Condition(expression: \QPlayer.name == name, sql: "name = ?", arguments: [name])
        case 3: return Condition(expression: \QPlayer.teamID == nil, sql: "team_id IS NULL", arguments: [])
        case 4:
            let team = Int64.random(in: 1...3, using: &random)
            return Condition(expression: \QPlayer.teamID != team, sql: "team_id <> ?", arguments: [team])
        case 5:
            let prefix = String(name.prefix(Int.random(in: 0...2, using: &random)))
            return Condition(
                expression: QueryExpression(\QPlayer.name).hasPrefix(prefix),
                sql: "substr(name, 1, length(?)) = ?", arguments: [prefix, prefix])
        case 6:
            let low = Int.random(in: 0...50, using: &random), high = Int.random(in: 50...100, using: &random)
            return Condition(expression: (low...high).contains(\QPlayer.score), sql: "score BETWEEN ? AND ?", arguments: [low, high])
        case 7:
            let values = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...100, using: &random) }
            let placeholders = values.map { _ in "?" }.joined(separator: ", ")
            // An empty list is written FALSE: PostgreSQL has no `IN ()`.
            return Condition(
                expression: values.contains(\QPlayer.bonus), sql: values.isEmpty ? "FALSE" : "bonus IN (\(placeholders))",
                arguments: values)
        case 8:
            let (a, b) = (condition(&random, depth: depth + 1), condition(&random, depth: depth + 1))
            return Condition(expression: a.expression && b.expression, sql: "(\(a.sql)) AND (\(b.sql))", arguments: a.arguments + b.arguments)
        case 9:
            let (a, b) = (condition(&random, depth: depth + 1), condition(&random, depth: depth + 1))
            return Condition(expression: a.expression || b.expression, sql: "(\(a.sql)) OR (\(b.sql))", arguments: a.arguments + b.arguments)
        default:
            let a = condition(&random, depth: depth + 1)
            return Condition(expression: !a.expression, sql: "NOT (\(a.sql))", arguments: a.arguments)
        }
    }

    /// Four streams of generated filters, each seeded from the run's seed
    /// (`TestSeed`: a fresh one per run, `QUARRY_TEST_SEED` replays it).
    @Test(arguments: [1, 2, 3, 4], Backend.all)
    func generatedFiltersMatchHandWrittenSQL(stream: Int, _ backend: Backend) throws {
        var random = SeededGenerator(state: TestSeed.derived("generatedFilters-\(stream)"))
        try backend.withWriter { writer in
            try writer.write { db in
                try makeQueryFixtures(db)
                try QPlayer.all().deleteAll(db)
                for id in 1...60 {
                    var player = QPlayer(
                        id: Int64(id), name: Self.names.randomElement(using: &random) ?? "",
                        score: Int.random(in: 0...100, using: &random),
                        teamID: Bool.random(using: &random) ? Int64.random(in: 1...3, using: &random) : nil,
                        bonus: Int.random(in: 0...100, using: &random), isActive: Bool.random(using: &random))
                    try player.insert(db)
                }
            }
            var nonEmpty = 0
            try writer.read { db in
                for _ in 0..<100 {
                    let condition = Self.condition(&random)
                    let limit = Int.random(in: 1...70, using: &random)
                    let fromQuery = try QPlayer.filter(condition.expression).order(.desc(\.score), .asc(\.id)).limit(limit)
                        .select(\.id).fetchAll(db)
                    let fromSQL = try Optional<Int64>.fetchAll(
                        db, sql: "SELECT id FROM player WHERE \(condition.sql) ORDER BY score DESC, id LIMIT ?",
                        arguments: StatementArguments(condition.arguments + [limit]))
                    #expect(fromQuery == fromSQL, "\(condition.sql) — \(TestSeed.replay)")
                    let count = try QPlayer.filter(condition.expression).fetchCount(db)
                    #expect(
                        count == (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player WHERE \(condition.sql)", arguments: StatementArguments(condition.arguments))),
                        "\(condition.sql) — \(TestSeed.replay)")
                    if !fromSQL.isEmpty { nonEmpty += 1 }
                }
            }
            // The generator must produce conditions that select something.
            #expect(nonEmpty > 20, "\(TestSeed.replay)")
        }
    }
}
