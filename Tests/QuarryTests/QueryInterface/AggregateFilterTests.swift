// FILTER (WHERE …) on every aggregate Quarry offers, each with a bound value
// inside the aggregate and another in the filter: the values must be bound in
// the order of their placeholders (the aggregate's first, then the filter's),
// or the query silently answers another question. Each aggregate's SQL and
// arguments are pinned, and its value is checked against a hand count of the
// fixture rows and against the database's own answer to the same SQL written
// with literal values.
//
// Fixture scores (QueryFixtures.swift): Arthur 100, Barbara 250, Cheng 175,
// Dora 50, Eve_% 0.

import Foundation
import Quarry
import Testing

@Suite("Aggregate FILTER binds its values in order")
struct AggregateFilterTests {
    /// Checks a request that selects one filtered aggregate: its SQL and
    /// arguments, and its value, which must equal `expected` and the answer
    /// of `literalSQL`, the same query with literal values.
    private func expectAggregate<Result, Value: DatabaseValueConvertible & Equatable>(
        _ request: QueryRequest<QPlayer, Result>, _ db: Database,
        sql: String, arguments: StatementArguments, literalSQL: String, expected: Value,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try expectSQL(request, db, sql, arguments, sourceLocation: sourceLocation)
        #expect(try Value.fetchOne(db, request) == expected, sourceLocation: sourceLocation)
        #expect(try Value.fetchOne(db, sql: literalSQL) == expected, sourceLocation: sourceLocation)
    }

    /// SUM(score * 3) of the scores above 60: (100 + 250 + 175) * 3. With the
    /// values swapped, SUM(score * 60) of the scores above 3 is 34500.
    @Test(arguments: Backend.all) func sum(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                try expectAggregate(
                    QPlayer.select { Quarry.sum($0.score * 3).filter($0.score > 60) }, db,
                    sql: #"SELECT SUM("score" * ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [3, 60],
                    literalSQL: "SELECT SUM(score * 3) FILTER (WHERE score > 60) FROM player", expected: 1575)
            }
        }
    }

    /// AVG(score + 10) of the scores above 60: (110 + 260 + 185) / 3.
    @Test(arguments: Backend.all) func average(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                let request = QPlayer.select { Quarry.average($0.score + 10).filter($0.score > 60) }
                if backend.isPostgreSQL {
                    try expectAggregate(
                        request, db,
                        sql: #"SELECT CAST(AVG("score" + ?) FILTER (WHERE "score" > ?) AS DOUBLE PRECISION) FROM "player""#,
                        arguments: [10, 60],
                        literalSQL: "SELECT CAST(AVG(score + 10) FILTER (WHERE score > 60) AS DOUBLE PRECISION) FROM player",
                        expected: 185.0)
                } else {
                    try expectAggregate(
                        request, db,
                        sql: #"SELECT AVG("score" + ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [10, 60],
                        literalSQL: "SELECT AVG(score + 10) FILTER (WHERE score > 60) FROM player", expected: 185.0)
                }
            }
        }
    }

    /// MIN(score - 7) of the scores above 60 is 93; MAX(score * 2) of the
    /// scores below 200 is 350.
    @Test(arguments: Backend.all) func minAndMax(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                try expectAggregate(
                    QPlayer.select { Quarry.min($0.score - 7).filter($0.score > 60) }, db,
                    sql: #"SELECT MIN("score" - ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [7, 60],
                    literalSQL: "SELECT MIN(score - 7) FILTER (WHERE score > 60) FROM player", expected: 93)
                try expectAggregate(
                    QPlayer.select { Quarry.max($0.score * 2).filter($0.score < 200) }, db,
                    sql: #"SELECT MAX("score" * ?) FILTER (WHERE "score" < ?) FROM "player""#, arguments: [2, 200],
                    literalSQL: "SELECT MAX(score * 2) FILTER (WHERE score < 200) FROM player", expected: 350)
            }
        }
    }

    /// TOTAL(score * 2) of the scores above 60: 1050.0. On PostgreSQL, TOTAL
    /// is written as a SUM inside COALESCE and CAST, with the filter on the SUM.
    @Test(arguments: Backend.all) func total(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                let request = QPlayer.select { Quarry.total($0.score * 2).filter($0.score > 60) }
                if backend.isPostgreSQL {
                    try expectAggregate(
                        request, db,
                        sql: #"""
                            SELECT CAST(COALESCE(SUM("score" * ?) FILTER (WHERE "score" > ?), 0) AS DOUBLE PRECISION) FROM "player"
                            """#,
                        arguments: [2, 60],
                        literalSQL: "SELECT CAST(COALESCE(SUM(score * 2) FILTER (WHERE score > 60), 0) AS DOUBLE PRECISION) FROM player",
                        expected: 1050.0)
                } else {
                    try expectAggregate(
                        request, db,
                        sql: #"SELECT TOTAL("score" * ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [2, 60],
                        literalSQL: "SELECT TOTAL(score * 2) FILTER (WHERE score > 60) FROM player", expected: 1050.0)
                }
            }
        }
    }

    /// COUNT(score + 1000) of the scores above 60: 3. With the values
    /// swapped, no score is above 1000: 0.
    @Test(arguments: Backend.all) func count(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                try expectAggregate(
                    QPlayer.select { Quarry.count($0.score + 1000).filter($0.score > 60) }, db,
                    sql: #"SELECT COUNT("score" + ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [1000, 60],
                    literalSQL: "SELECT COUNT(score + 1000) FILTER (WHERE score > 60) FROM player", expected: 3)
            }
        }
    }

    /// group_concat's separator is a bound value inside the aggregate: the
    /// names whose score is above 60, joined by " / ". On PostgreSQL,
    /// group_concat is string_agg.
    @Test(arguments: Backend.all) func groupConcat(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                let request = QPlayer.select { Quarry.groupConcat($0.name, separator: " / ").filter($0.score > 60) }
                if backend.isPostgreSQL {
                    try expectAggregate(
                        request, db,
                        sql: #"SELECT string_agg(CAST("name" AS TEXT), ?) FILTER (WHERE "score" > ?) FROM "player""#,
                        arguments: [" / ", 60],
                        literalSQL: "SELECT string_agg(name, ' / ') FILTER (WHERE score > 60) FROM player",
                        expected: "Arthur / Barbara / Cheng")
                } else {
                    try expectAggregate(
                        request, db,
                        sql: #"SELECT group_concat("name", ?) FILTER (WHERE "score" > ?) FROM "player""#, arguments: [" / ", 60],
                        literalSQL: "SELECT group_concat(name, ' / ') FILTER (WHERE score > 60) FROM player",
                        expected: "Arthur / Barbara / Cheng")
                }
            }
        }
    }

    /// Several filtered aggregates in one selection, each with values inside
    /// and in its filter: the arguments follow the text from left to right.
    @Test(arguments: Backend.all) func severalAggregates(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db in
                let request = QPlayer.select {
                    (Quarry.sum($0.score * 3).filter($0.score > 60), Quarry.count($0.score + 1000).filter($0.bonus >= 10))
                }
                try expectSQL(request, db, #"""
                    SELECT SUM("score" * ?) FILTER (WHERE "score" > ?), COUNT("score" + ?) FILTER (WHERE "bonus" >= ?) FROM "player"
                    """#, [3, 60, 1000, 10])
                let fetched = try request.fetchOne(db)
                #expect(fetched?.0 == 1575)
                #expect(fetched?.1 == 2)
            }
        }
    }
}
