// Query-interface requests on a database server connection (the stand-in
// server of Support/StandInServer.swift, in SQLite's dialect so that schema
// lookups read SQLite's pragmas through the server): the same SQL as on
// SQLite, sent with `$n` parameters, and the same results, decoded from the
// rows the server returns.

import Foundation
@testable import Quarry
import QuarryPostgres
import Testing

@Suite("Query interface on a server connection")
struct ServerQueryTests {
    private func makeDatabase() throws -> (Database, StandInServer) {
        let server = StandInServer(dialect: SQLiteDialect())
        let db = try Database(server: server, configuration: Configuration())
        try db.execute(sql: """
            CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
            CREATE TABLE player (
                id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL,
                team_id INTEGER REFERENCES team(id), bonus INTEGER NOT NULL DEFAULT 0, active BOOLEAN NOT NULL DEFAULT 1);
            INSERT INTO team VALUES (1, 'Reds', 'red'), (2, 'Blues', NULL), (3, 'Greens', 'green');
            INSERT INTO player VALUES (1, 'Arthur', 100, 1, 10, 1), (2, 'Barbara', 250, 1, 0, 1),
                (3, 'Cheng', 175, 2, 20, 0), (4, 'Dora', 50, NULL, 5, 1), (5, 'Eve_%', 0, NULL, 0, 0);
            """)
        return (db, server)
    }

    /// The same request on a local SQLite database, for comparison.
    private func local<T>(_ body: (Database) throws -> T) throws -> T {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try makeQueryFixtures(db) }
        return try dbQueue.read(body)
    }

    @Test func recordsAreFilteredOrderedAndCountedAsOnSQLite() throws {
        let (db, server) = try makeDatabase()
        let request = QPlayer.filter(\.score > 60).order(\.name, .descending).limit(3)
        let players = try request.fetchAll(db)
        #expect(players == (try local { try request.fetchAll($0) }))
        #expect(players.map(\.name) == ["Cheng", "Barbara", "Arthur"])
        #expect(server.received.last?.sql == #"SELECT * FROM "player" WHERE "score" > ?1 ORDER BY "name" DESC LIMIT ?2"#)
        #expect(server.received.last?.values == [.integer(60), .integer(3)])
        #expect(try QPlayer.filter(\.teamID == nil).fetchCount(db) == 2)
        #expect(try QPlayer.filter(\.score > 1000).fetchExists(db) == false)
        #expect(try QPlayer.filter(\.name == "Dora").fetchOne(db)?.score == 50)
        #expect(try Array(QPlayer.order(\.id).fetchCursor(db)).map(\.id) == [1, 2, 3, 4, 5])
        #expect(try QPlayer.filter(\.score > 1000).fetchAll(db).isEmpty)
        #expect(try QPlayer.all().select(literal: "name, score", as: Row.self).order(\.id).fetchOne(db)?.description == "[name: 'Arthur', score: 100]")
    }

    @Test func includedAndPrefetchedAssociationsDecodeFromServerRows() throws {
        let (db, _) = try makeDatabase()
        struct PlayerWithTeam: Decodable, FetchableRecord, Equatable {
            var player: QPlayer
            var team: QTeam?
        }
        let joined = QPlayer.including(optional: QPlayer.team).order(\.id).asRequest(of: PlayerWithTeam.self)
        let fetched = try joined.fetchAll(db)
        #expect(fetched == (try local { try joined.fetchAll($0) }))
        #expect(fetched.map { $0.team?.name } == ["Reds", "Reds", "Blues", nil, nil])

        struct TeamWithPlayers: Decodable, FetchableRecord, Equatable {
            var team: QTeam
            var players: [QPlayer]
        }
        let prefetched = QTeam.including(all: QTeam.players.order(\.id)).order(\.id).asRequest(of: TeamWithPlayers.self)
        let teams = try prefetched.fetchAll(db)
        #expect(teams == (try local { try prefetched.fetchAll($0) }))
        #expect(teams.map { $0.players.map(\.name) } == [["Arthur", "Barbara"], ["Cheng"], []])
        // No parent: no result, on a server as on SQLite (the Bookshelf's 404 for a missing author).
        let missing = prefetched.filter(\.id == 99)
        #expect(try missing.fetchOne(db) == nil)
        #expect(try missing.fetchAll(db).isEmpty)
        #expect(try local { try missing.fetchOne($0) } == nil)
    }

    @Test func valueAndTupleRequestsDecodeFromServerRows() throws {
        let (db, server) = try makeDatabase()
        let names = QPlayer.all().select(\.name).order(\.id)
        #expect(try names.fetchAll(db) == ["Arthur", "Barbara", "Cheng", "Dora", "Eve_%"])
        #expect(try names.fetchAll(db) == (try local { try names.fetchAll($0) }))
        #expect(server.received.last?.sql == #"SELECT "name" FROM "player" ORDER BY "id""#)
        #expect(try QPlayer.all().select(\.teamID).order(\.id).fetchAll(db) == [1, 1, 2, nil, nil])
        #expect(try QPlayer.filter(\.id == 3).select(\.name, \.score).fetchOne(db).map { [$0.0, String($0.1)] } == ["Cheng", "175"])
        #expect(try Array(QPlayer.all().select(\.score).order(\.score).fetchCursor(db)) == [0, 50, 100, 175, 250])
        #expect(try QPlayer.all().select(\.isActive).order(\.id).fetchAll(db) == [true, true, false, true, false])
        // A value that does not convert names its column.
        let error = try #require(throws: RowDecodingError.self) {
            try QPlayer.all().select(literal: "name", as: Int.self).fetchAll(db)
        }
        #expect(error.column == "name")
    }

    @Test func batchWritesAndReturningRunOnTheServer() throws {
        let (db, server) = try makeDatabase()
        #expect(try QPlayer.filter(\.teamID == nil).updateAll(db, \.score += 5) == 2)
        #expect(server.received.last?.sql == #"UPDATE "player" SET "score" = "score" + ?1 WHERE "team_id" IS NULL"#)
        let ids = try QPlayer.filter(\.score > 200).updateAll(db, [\.bonus <- 1], returning: \.id, \.bonus)
        #expect(ids.map { [$0.0, Int64($0.1)] } == [[2, 1]])
        let promoted = try QPlayer.filter(\.id == 4).updateAndFetchAll(db, \.teamID <- 3)
        #expect(promoted.map(\.teamID) == [3])
        let deleted = try QPlayer.filter(\.score < 10).deleteAndFetchAll(db)
        #expect(deleted.map(\.name) == ["Eve_%"])
        #expect(try QPlayer.filter(\.isActive == false).deleteAll(db, returning: \.name) == ["Cheng"])
        // A batch write with a join selects the keys in a subquery.
        #expect(try QPlayer.joining(required: QPlayer.team.filter(\.name == "Reds")).deleteAll(db) == 2)
        #expect(try QPlayer.order(\.id).fetchAll(db).map(\.name) == ["Dora"])
    }
}
