// Records and data shared by the query interface tests: teams and players.

import Foundation
import Quarry

struct QTeam: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "team"
    var id: Int64?
    var name: String
    var color: String?

    static let players = hasMany(QPlayer.self, using: \.teamID)
    static let captain = hasOne(QPlayer.self, key: "captain", using: \.teamID)
}

struct QPlayer: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    var score: Int
    var teamID: Int64?
    var bonus: Int
    var isActive: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, score, teamID = "team_id", bonus, isActive = "active"
    }

    static let team = belongsTo(QTeam.self, using: \.teamID)
}

/// Creates the team and player tables with a few rows:
///
/// | team | id | name | color |      | player | name | score | team | bonus | active |
/// | 1 | Reds | red |                 | 1 | Arthur | 100 | 1 | 10 | 1 |
/// | 2 | Blues | NULL |               | 2 | Barbara | 250 | 1 | 0 | 1 |
/// | 3 | Greens | green |             | 3 | Cheng | 175 | 2 | 20 | 0 |
///                                     | 4 | Dora | 50 | NULL | 5 | 1 |
///                                     | 5 | Eve_% | 0 | NULL | 0 | 0 |
func makeQueryFixtures(_ db: Database) throws {
    try db.execute(sql: """
        CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT);
        CREATE TABLE player (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            score INTEGER NOT NULL,
            team_id INTEGER REFERENCES team(id),
            bonus INTEGER NOT NULL DEFAULT 0,
            active BOOLEAN NOT NULL DEFAULT 1);
        """)
    for team in [QTeam(id: 1, name: "Reds", color: "red"), QTeam(id: 2, name: "Blues", color: nil), QTeam(id: 3, name: "Greens", color: "green")] {
        var team = team
        try team.insert(db)
    }
    for player in [
        QPlayer(id: 1, name: "Arthur", score: 100, teamID: 1, bonus: 10, isActive: true),
        QPlayer(id: 2, name: "Barbara", score: 250, teamID: 1, bonus: 0, isActive: true),
        QPlayer(id: 3, name: "Cheng", score: 175, teamID: 2, bonus: 20, isActive: false),
        QPlayer(id: 4, name: "Dora", score: 50, teamID: nil, bonus: 5, isActive: true),
        QPlayer(id: 5, name: "Eve_%", score: 0, teamID: nil, bonus: 0, isActive: false),
    ] {
        var player = player
        try player.insert(db)
    }
}
