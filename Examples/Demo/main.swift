// quarry-demo: the main job of Quarry in one program — open a database file,
// migrate it, write records, and query them with the key-path interface.
//
//     swift run quarry-demo                      # ./quarry-demo.sqlite
//     swift run quarry-demo --database /tmp/x.sqlite --verbose
//     swift run quarry-demo --in-memory
//
// Each run plays one more match (the teams take turns winning), so the data
// grows from run to run; delete the file to start over.

import ArgumentParser
import Foundation
import Logging
import Quarry

struct Team: Codable, FetchableRecord, PersistableRecord, Sendable {
    var id: Int64?
    var name: String

    static let players = hasMany(Player.self, using: \.teamID)
}

struct Player: Codable, FetchableRecord, PersistableRecord, Sendable {
    var id: Int64?
    var name: String
    var score: Int
    var teamID: Int64?
    var email: String?

    enum CodingKeys: String, CodingKey {
        case id, name, score, teamID = "team_id", email
    }

    static let team = belongsTo(Team.self, using: \.teamID)
}

struct Match: Codable, FetchableRecord, PersistableRecord, Sendable {
    var id: Int64?
    var winnerID: Int64
    var playedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, winnerID = "winner_id", playedAt = "played_at"
    }
}

/// A player and its team, decoded from one joined row.
struct PlayerWithTeam: Decodable, FetchableRecord, Sendable {
    var player: Player
    var team: Team
}

/// The schema, one named migration at a time: run at every start.
func makeMigrator() -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createTeam") { db in
        try db.create(table: "team") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().unique()
        }
    }
    migrator.registerMigration("createPlayer") { db in
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("score", .integer).notNull().defaults(to: 0)
            t.belongsTo("team", onDelete: .setNull)
        }
    }
    migrator.registerMigration("addPlayerEmail") { db in
        try db.alter(table: "player") { t in t.add(column: "email", .text) }
    }
    migrator.registerMigration("createMatch") { db in
        try db.create(table: "match") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("winner", inTable: "team")
            t.column("played_at", .datetime).notNull().defaults(sql: "CURRENT_TIMESTAMP")
        }
    }
    return migrator
}

@main
struct QuarryDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarry-demo",
        abstract: "Migrates a database, writes records and queries them with Quarry.")

    @Option(name: .long, help: "The database file (created if needed).")
    var database = "quarry-demo.sqlite"

    @Flag(name: .long, help: "Use a fresh in-memory database instead of a file.")
    var inMemory = false

    @Flag(name: .long, help: "Log every SQL statement.")
    var verbose = false

    func run() async throws {
        var configuration = Configuration()
        if verbose {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .debug
                return handler
            }
            configuration.logger = Logger(label: "sql")
        }
        let writer: any DatabaseWriter = inMemory
            ? try DatabaseQueue(configuration: configuration)
            : try DatabasePool(path: database, configuration: configuration)
        print("Database: \(inMemory ? "in memory" : database)")

        try await makeMigrator().migrate(writer)
        let applied = try await writer.read { db in try makeMigrator().appliedMigrations(db) }
        print("Migrations applied: \(applied.joined(separator: ", "))")

        // Writes: teams once, then a new match each run.
        let match = try await writer.write { db -> Int in
            if try Team.fetchCount(db) == 0 {
                for name in ["Reds", "Blues"] {
                    var team = Team(id: nil, name: name)
                    try team.insert(db)
                }
                let teams = try Team.order(\.name).fetchAll(db)
                for (index, name) in ["Arthur", "Barbara", "Cheng", "Dora", "Eve"].enumerated() {
                    var player = Player(
                        id: nil, name: name, score: 0, teamID: teams[index % teams.count].id,
                        email: "\(name.lowercased())@example.com")
                    try player.insert(db)
                }
                var freeAgent = Player(id: nil, name: "Fay", score: 0, teamID: nil, email: nil)
                try freeAgent.insert(db)
            }
            // A new match; RETURNING brings back the played_at the database's DEFAULT set.
            let matchNumber = try Match.fetchCount(db) + 1
            let winnerName = matchNumber % 2 == 0 ? "Reds" : "Blues"
            guard let winner = try Team.filter(\.name == winnerName).fetchOne(db), let winnerID = winner.id else {
                throw ValidationError("the team \(winnerName) is missing")
            }
            var match = Match(id: nil, winnerID: winnerID, playedAt: nil)
            let played = try match.insertAndFetch(db)
            // Every player of the winning team scores: a batch UPDATE ... RETURNING.
            let scorers = try Player
                .joining(required: Player.team.filter(\.name == winnerName))
                .updateAll(db, [\.score += 10], returning: \.name, \.score)
            let when = played.playedAt.map { DatabaseDateFormat.string(from: $0) + " UTC" } ?? "?"
            print("Match \(matchNumber), played \(when): \(winnerName) win")
            print("  " + scorers.sorted { $0.0 < $1.0 }.map { "\($0.0) now has \($0.1)" }.joined(separator: ", "))
            return matchNumber
        }

        try await writer.read { db in
            print("\nTop players (a join, decoded into PlayerWithTeam):")
            let top = try Player.including(required: Player.team)
                .order(.desc(\.score), .asc(\.name))
                .limit(3)
                .asRequest(of: PlayerWithTeam.self)
                .fetchAll(db)
            for entry in top {
                print("  \(entry.player.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(entry.player.score) points (\(entry.team.name))")
            }

            print("\nPoints per team (GROUP BY with SUM):")
            let totals = try Player.select { ($0.teamID, sum($0.score), count($0.id)) }
                .filter(\.teamID != nil)
                .group(QueryExpression<Player, Int64?>(\.teamID))
                .order(QueryExpression<Player, Int64?>(\.teamID))
                .fetchAll(db)
            let names = Dictionary(uniqueKeysWithValues: try Team.fetchAll(db).compactMap { team in team.id.map { ($0, team.name) } })
            for (teamID, points, players) in totals {
                print("  \(teamID.flatMap { names[$0] } ?? "?"): \(points ?? 0) points, \(players) players")
            }

            let freeAgents = try Player.filter(\.teamID == nil).select(\.name).fetchAll(db)
            print("\nFree agents: \(freeAgents.joined(separator: ", "))")
            print("Players with an email: \(try Player.filter(\.email != nil).fetchCount(db)) of \(try Player.fetchCount(db))")
        }
        print("\nRun again to play match \(match + 1).")
    }
}
