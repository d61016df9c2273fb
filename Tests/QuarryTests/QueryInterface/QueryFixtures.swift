// Records and data shared by the query interface tests: teams and players.

import Foundation
@testable import Quarry

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
///
/// Written with the schema DSL, so that the tables are the same on SQLite
/// (`INTEGER PRIMARY KEY`…) and PostgreSQL (identity keys, whose sequences
/// are moved past the ids inserted here).
func makeQueryFixtures(_ db: Database) throws {
    try db.create(table: "team") { t in
        t.primaryKey("id", .integer)
        t.column("name", .text).notNull()
        t.column("color", .text)
    }
    try db.create(table: "player") { t in
        t.primaryKey("id", .integer)
        t.column("name", .text).notNull()
        t.column("score", .integer).notNull()
        t.column("team_id", .integer).references("team")
        t.column("bonus", .integer).notNull().defaults(to: 0)
        t.column("active", .boolean).notNull().defaults(to: true)
    }
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
    try moveIdentitySequences(db, tables: ["team", "player"])
}

/// On PostgreSQL, moves the identity sequence of each table past the largest
/// id, so that inserts without id after fixtures with explicit ids do not
/// collide (SQLite needs nothing: a new rowid is one more than the largest).
func moveIdentitySequences(_ db: Database, tables: [String], column: String = "id") throws {
    guard db.isPostgreSQL else { return }
    for table in tables {
        // pg_get_serial_sequence reads the table as an SQL name (quoted, for its
        // case), the column as written.
        try db.execute(
            sql: "SELECT setval(pg_get_serial_sequence(?, ?), (SELECT max(\(column.quotedDatabaseIdentifier)) FROM \(table.quotedDatabaseIdentifier)))::text",
            arguments: [table.quotedDatabaseIdentifier, column])
    }
}
