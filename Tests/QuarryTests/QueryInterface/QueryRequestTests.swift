// Tests of requests: selection, ordering, limits, grouping, aggregates,
// subqueries, compound queries, common table expressions, and every fetch.

import Foundation
import Quarry
import Testing

@Suite struct QueryRequestTests {
    @Test(arguments: Backend.all) func allAndFetchVariants(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.all(), db, "SELECT * FROM \"player\"")
                #expect(try QPlayer.all().fetchAll(db).count == 5)
                #expect(try QPlayer.order(\.id).fetchOne(db)?.name == "Arthur")
                try expectSQL(QPlayer.filter(\.id == 99), db, "SELECT * FROM \"player\" WHERE \"id\" = ?", [99])
                #expect(try QPlayer.filter(\.id == 99).fetchOne(db) == nil)
                let cursor = try QPlayer.order(\.id).fetchCursor(db)
                var names: [String] = []
                while let player = try cursor.next() { names.append(player.name) }
                #expect(names == ["Arthur", "Barbara", "Cheng", "Dora", "Eve_%"])
                #expect(try QPlayer.select(\.teamID).fetchSet(db) == Set<Int64?>([1, 2, nil]))
                #expect(try QPlayer.filter(\.score > 100).fetchCount(db) == 2)
                #expect(try QPlayer.filter(\.score > 100).fetchExists(db))
                #expect(try !QPlayer.filter(\.score > 1000).fetchExists(db))
            }
        }
    }

    @Test(arguments: Backend.all) func ordering(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.order(\.score), db, "SELECT * FROM \"player\" ORDER BY \"score\"")
                try expectSQL(QPlayer.order(\.score, .descending), db, "SELECT * FROM \"player\" ORDER BY \"score\" DESC")
                try expectSQL(
                    QPlayer.order(.desc(\.teamID, nulls: .last), .asc(\.name)), db,
                    "SELECT * FROM \"player\" ORDER BY \"team_id\" DESC NULLS LAST, \"name\"")
                try expectSQL(
                    QPlayer.order { [$0.teamID.ascNullsLast, $0.score.desc] }.reversed(), db,
                    "SELECT * FROM \"player\" ORDER BY \"team_id\" DESC NULLS FIRST, \"score\"")
                try expectSQL(QPlayer.all().reversed(), db, "SELECT * FROM \"player\" ORDER BY \"id\" DESC")
                try expectSQL(QPlayer.order(\.score).unordered(), db, "SELECT * FROM \"player\"")
                #expect(try QPlayer.order(.desc(\.teamID, nulls: .last), .asc(\.name)).fetchAll(db).map(\.name)
                    == ["Cheng", "Arthur", "Barbara", "Dora", "Eve_%"])
                #expect(try QPlayer.all().reversed().fetchAll(db).map(\.name) == ["Eve_%", "Dora", "Cheng", "Barbara", "Arthur"])
            }
        }
    }

    @Test(arguments: Backend.all) func selectionIntoValuesAndTuples(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.select(\.name).order(\.id), db, "SELECT \"name\" FROM \"player\" ORDER BY \"id\"")
                let names: [String] = try QPlayer.select(\.name).order(\.id).fetchAll(db)
                #expect(names == ["Arthur", "Barbara", "Cheng", "Dora", "Eve_%"])
                let teams: [Int64?] = try QPlayer.select(\.teamID).order(\.id).fetchAll(db)
                #expect(teams == [1, 1, 2, nil, nil])
                let pairs = try QPlayer.select(\.name, \.score).order(\.id).limit(2).fetchAll(db)
                #expect(pairs.map(\.0) == ["Arthur", "Barbara"] && pairs.map(\.1) == [100, 250])
                let computed = try QPlayer.select { ($0.name, $0.score + $0.bonus) }.order(\.id).fetchOne(db)
                #expect(computed?.0 == "Arthur" && computed?.1 == 110)
                try expectSQL(QPlayer.select(\.teamID).distinct(), db, "SELECT DISTINCT \"team_id\" FROM \"player\"")
                #expect(try QPlayer.select(\.teamID).distinct().fetchCount(db) == 3)
                let booleans: [Bool] = try QPlayer.select(\.isActive).order(\.id).fetchAll(db)
                #expect(booleans == [true, true, false, true, false])
            }
        }
    }

    @Test(arguments: Backend.all) func selectingTheWrongTypeThrowsWithTheColumn(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let error = try #require(throws: RowDecodingError.self) {
                    try QPlayer.select(QueryExpression<QPlayer, Int>("name")).fetchAll(db)
                }
                #expect(error.description.contains("cannot decode Int from column \"name\": found text 'Arthur'"))
                let null = try #require(throws: RowDecodingError.self) { try QPlayer.select(QueryExpression<QPlayer, Int64>("team_id")).fetchAll(db) }
                #expect(null.reason == .unexpectedNull)
            }
        }
    }

    @Test(arguments: Backend.all) func limitAndOffset(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.order(\.id).limit(2, offset: 1), db, "SELECT * FROM \"player\" ORDER BY \"id\" LIMIT ? OFFSET ?", [2, 1])
                #expect(try QPlayer.order(\.id).limit(2, offset: 1).fetchAll(db).map(\.name) == ["Barbara", "Cheng"])
                #expect(try QPlayer.limit(3).fetchCount(db) == 3)
                try expectSQL(QPlayer.limit(3).select(countAll()), db, "SELECT COUNT(*) FROM \"player\" LIMIT ?", [3])
            }
        }
    }

    @Test(arguments: Backend.all) func aggregatesAndGrouping(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let stats = try QPlayer.select(count(\.id), sum(\.score), average(\.score), min(\.score), max(\.score), total(\.bonus)).fetchOne(db)
                #expect(stats?.0 == 5)
                #expect(stats?.1 == 575)
                #expect(stats?.2 == 115)
                #expect(stats?.3 == 0)
                #expect(stats?.4 == 250)
                #expect(stats?.5 == 35)
                #expect(try QPlayer.select(count(distinct: \.teamID)).fetchOne(db) == 2)
                let empty = try QPlayer.filter(\.score > 1000).select(sum(\.score), max(\.teamID)).fetchOne(db)
                #expect(empty?.0 == nil && empty?.1 == nil)

                let byTeam = QPlayer.select { ($0.teamID, sum($0.score)) }.group(\.teamID).having(sum(\.score) > 100).order(\.teamID)
                try expectSQL(
                    byTeam, db,
                    "SELECT \"team_id\", SUM(\"score\") FROM \"player\" GROUP BY \"team_id\" HAVING SUM(\"score\") > ? ORDER BY \"team_id\"",
                    [100])
                let rows = try byTeam.fetchAll(db)
                #expect(rows.map(\.0) == [1, 2])
                #expect(rows.map(\.1) == [350, 175])
                #expect(try byTeam.fetchCount(db) == 2)
            }
        }
    }

    @Test(arguments: Backend.all) func subqueriesAndExists(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let coloredTeams = QTeam.filter(\.color != nil).select(\.id)
                let request = QPlayer.filter(coloredTeams.contains(\.teamID)).order(\.id)
                try expectSQL(
                    request, db,
                    "SELECT * FROM \"player\" WHERE \"team_id\" IN (SELECT \"id\" FROM \"team\" WHERE \"color\" IS NOT NULL) ORDER BY \"id\"")
                #expect(try request.fetchAll(db).map(\.name) == ["Arthur", "Barbara"])

                let teamAlias = TableAlias(name: "t")
                let teamsWithActivePlayers = QTeam.aliased(teamAlias)
                    .filter(exists(QPlayer.filter(\.isActive && \.teamID == teamAlias[\QTeam.id])))
                    .order(\.id)
                try expectSQL(
                    teamsWithActivePlayers, db,
                    "SELECT \"t\".* FROM \"team\" \"t\" WHERE EXISTS (SELECT * FROM \"player\" WHERE \"active\" AND (\"team_id\" = \"t\".\"id\")) ORDER BY \"t\".\"id\"")
                #expect(try teamsWithActivePlayers.fetchAll(db).map(\.name) == ["Reds"])

                let best: QueryExpression<QPlayer, Int> = QPlayer.select(max(\.score)).asExpression()
                #expect(try QPlayer.filter(\.score == best).fetchOne(db)?.name == "Barbara")
            }
        }
    }

    @Test(arguments: Backend.all) func compoundQueries(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let high = QPlayer.filter(\.score >= 175).select(\.name)
                let reds = QPlayer.filter(\.teamID == 1).select(\.name)
                try expectSQL(
                    high.union(reds), db,
                    "SELECT \"name\" FROM \"player\" WHERE \"score\" >= ? UNION SELECT \"name\" FROM \"player\" WHERE \"team_id\" = ?", [175, 1])
                #expect(try Set(high.union(reds).fetchAll(db)) == ["Arthur", "Barbara", "Cheng"])
                #expect(try high.union(reds, all: true).fetchCount(db) == 4)
                #expect(try high.intersect(reds).fetchAll(db) == ["Barbara"])
                #expect(try high.except(reds).fetchAll(db) == ["Cheng"])
                #expect(try high.union(reds).order(QueryExpression<QPlayer, String>("name")).limit(1).fetchAll(db) == ["Arthur"])
            }
        }
    }

    @Test(arguments: Backend.all) func commonTableExpressions(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let top = CommonTableExpression(named: "top", request: QPlayer.order(.desc(\.score)).limit(2))
                let request = QPlayer.all().with(top).filter(top.all().select(QueryExpression<QPlayer, Int64>("id")).contains(\QPlayer.id)).order(\.id)
                try expectSQL(
                    request, db,
                    "WITH \"top\" AS (SELECT * FROM \"player\" ORDER BY \"score\" DESC LIMIT ?) SELECT * FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"top\") ORDER BY \"id\"",
                    [2])
                #expect(try request.fetchAll(db).map(\.name) == ["Barbara", "Cheng"])

                let counter = CommonTableExpression<QPlayer>(
                    recursive: "counter", columns: ["n"], sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < ?", arguments: [4])
                let numbers = try counter.all().with(counter).select(QueryExpression<QPlayer, Int>("n")).fetchAll(db)
                #expect(numbers == [1, 2, 3, 4])
            }
        }
    }

    @Test(arguments: Backend.all) func requestsAreSendableValues(_ backend: Backend) async throws {
        try await backend.withWriter { writer in
            try await writer.write { db in try makeQueryFixtures(db) }
            let request = QPlayer.filter(\.score > 10).order(\.id)
            let names = try await writer.read { db in try request.fetchAll(db).map(\.name) }
            #expect(names == ["Arthur", "Barbara", "Cheng", "Dora"])
            // Refining a request leaves the original unchanged.
            _ = request.limit(1)
            #expect(try await writer.read { db in try request.fetchCount(db) } == 4)
        }
    }

    @Test(arguments: Backend.all) func aliasesMustBeUsedByTheRequest(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let stray = TableAlias(name: "stray")
                let error = try #require(throws: DatabaseError.self) { try QPlayer.filter(stray[\QPlayer.id] == 1).fetchAll(db) }
                #expect(error.message.contains("the table alias \"stray\" is not used in this request"))
            }
        }
    }

    @Test(arguments: Backend.all) func quotedIdentifiersForKeywordsQuotesAndSpaces(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            struct Odd: Codable, FetchableRecord, PersistableRecord {
                static let databaseTableName = "order"
                var group: Int
                var quoted: String
                enum CodingKeys: String, CodingKey { case group, quoted = "a \"quoted\" column" }
            }
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE \"order\" (\"group\" INTEGER, \"a \"\"quoted\"\" column\" TEXT)")
                var odd = Odd(group: 1, quoted: "x")
                try odd.insert(db)
                try expectSQL(
                    Odd.filter(\.group == 1).select(\.quoted), db,
                    "SELECT \"a \"\"quoted\"\" column\" FROM \"order\" WHERE \"group\" = ?", [1])
                #expect(try Odd.filter(\.group == 1).select(\.quoted).fetchAll(db) == ["x"])
                #expect(try Odd.filter(\.group == 1).updateAll(db, \.quoted <- "y") == 1)
                #expect(try Odd.filter(\.group == 1).deleteAll(db) == 1)
            }
        }
    }
}

/// Aggregates as fetch shortcuts, and selections decoded into other types.
@Suite struct QueryAggregateTests {
    struct TeamStats: Decodable, Equatable {
        var teamID: Int64?
        var total: Int
        var players: Int
    }

    @Test(arguments: Backend.all) func aggregateShortcuts(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let all = QPlayer.all()
                #expect(try all.fetchCount(db, distinct: \.teamID) == 2)
                #expect(try all.fetchSum(db, \.score) == 575)
                #expect(try all.fetchSum(db, \.teamID) == 4)
                #expect(try all.fetchTotal(db, \.bonus) == 35)
                #expect(try all.fetchAverage(db, \.score) == 115)
                #expect(try all.fetchMin(db, \.score) == 0)
                #expect(try all.fetchMax(db, \.score) == 250)
                #expect(try all.fetchMin(db, \.teamID) == 1)
                #expect(try all.fetchMax(db, \.teamID) == 2)
                let none = QPlayer.filter(\.score > 1000)
                #expect(try none.fetchSum(db, \.score) == nil)
                #expect(try none.fetchTotal(db, \.score) == 0)
                #expect(try none.fetchAverage(db, \.score) == nil)
                #expect(try none.fetchMax(db, \.teamID) == nil)
                #expect(try none.fetchCount(db, distinct: \.name) == 0)
            }
        }
    }

    @Test(arguments: Backend.all) func namedSelectionsDecodeIntoDecodableTypes(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let teamID = QueryExpression<QPlayer, Int64?>("team_id")
                let stats = try QPlayer.all()
                    .select(named: [teamID.forKey("teamID"), (sum(\QPlayer.score) ?? 0).forKey("total"), count(\QPlayer.id).forKey("players")])
                    .group(teamID)
                    // NULLs sort first on SQLite, last on PostgreSQL: say which.
                    .order(.asc(teamID, nulls: .first))
                    .asRequest(of: TeamStats.self)
                    .fetchAll(db)
                #expect(stats == [
                    TeamStats(teamID: nil, total: 50, players: 2),
                    TeamStats(teamID: 1, total: 350, players: 2),
                    TeamStats(teamID: 2, total: 175, players: 1),
                ])
                let error = try #require(throws: RowDecodingError.self) {
                    try QPlayer.all().select(named: [teamID.forKey("teamID")]).asRequest(of: TeamStats.self).fetchAll(db)
                }
                #expect(error.description.contains("\"total\""))
            }
        }
    }

    /// The closure spellings of `filter` are one request: a trailing closure
    /// (which picks `filter(where:)`), the `where:` label, and a closure in
    /// parentheses; on a record type, on a request and on an association.
    @Test(arguments: Backend.all) func closureFiltersSpelledEveryWay(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                let sql = #"SELECT * FROM "player" WHERE ("score" + "bonus") > ?"#
                try expectSQL(QPlayer.filter { $0.score + $0.bonus > 150 }, db, sql, [150])
                try expectSQL(QPlayer.filter(where: { $0.score + $0.bonus > 150 }), db, sql, [150])
                try expectSQL(QPlayer.filter({ $0.score + $0.bonus > 150 }), db, sql, [150])
                try expectSQL(QPlayer.all().filter(where: { $0.score + $0.bonus > 150 }), db, sql, [150])
                try expectSQL(QPlayer.all().filter({ $0.score + $0.bonus > 150 }), db, sql, [150])
                // The example in filter(where:)'s documentation (SQLite's
                // spelling; PostgreSQL has no GLOB).
                try expectSQL(
                    QPlayer.filter { $0.name.hasPrefix("A") && $0.score > 10 }, db,
                    backend.isPostgreSQL
                        ? #"SELECT * FROM "player" WHERE ("name" LIKE ? ESCAPE '\') AND ("score" > ?)"#
                        : #"SELECT * FROM "player" WHERE ("name" GLOB ?) AND ("score" > ?)"#,
                    backend.isPostgreSQL ? ["A%", 10] : ["A*", 10])
                let expected = try Int64?.fetchAll(db, sql: "SELECT id FROM player WHERE score + bonus > 150 ORDER BY id")
                #expect(try QPlayer.filter { $0.score + $0.bonus > 150 }.order(\.id).fetchAll(db).map(\.id) == expected)
                #expect(!expected.isEmpty)
                let teams = { (players: Association<QTeam, QPlayer>) in
                    try QTeam.having(!players.isEmpty).order(\.id).fetchAll(db).map(\.name)
                }
                let trailing = try teams(QTeam.players.filter { $0.score > 100 })
                #expect(try teams(QTeam.players.filter(where: { $0.score > 100 })) == trailing)
                #expect(try teams(QTeam.players.filter({ $0.score > 100 })) == trailing)
                #expect(trailing == (try String.fetchAll(db, sql: """
                    SELECT name FROM team WHERE EXISTS (SELECT 1 FROM player WHERE player.team_id = team.id AND score > 100) ORDER BY id
                    """)))
            }
        }
    }

    /// A closure that names a property the table does not store throws,
    /// naming the property and the record, in every spelling.
    @Test(arguments: Backend.all) func closureFilterOnAComputedPropertyThrows(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                for request in [
                    QPlayer.filter { $0.doubledScore > 100 },
                    QPlayer.filter(where: { $0.doubledScore > 100 }),
                    QPlayer.filter({ $0.doubledScore > 100 }),
                ] {
                    let error = try #require(throws: KeyPathColumnError.self) { try request.fetchAll(db) }
                    #expect(error.reason == "it is a computed property")
                    #expect(error.description.contains("QPlayer"))
                }
            }
        }
    }
}

extension QPlayer {
    /// Not stored: for the tests of key paths that name no column.
    var doubledScore: Int { score * 2 }
}
