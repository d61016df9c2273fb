// quarry-demo: opens a database file, migrates its schema, writes rows and reads them back.
//
//     swift run quarry-demo [path]      (default: ./quarry-demo.sqlite)

import Foundation
import Quarry

let path = CommandLine.arguments.dropFirst().first ?? "quarry-demo.sqlite"

do {
    let dbQueue = try DatabaseQueue(path: path)

    // At startup, every time: applies the migrations the file does not have yet.
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createPlayer") { db in
        // IF NOT EXISTS: adopts files made by earlier versions of the demo.
        try db.create(table: "player", options: .ifNotExists) { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("score", .integer).notNull()
            t.column("joined", .text).notNull()
        }
    }
    try migrator.migrate(dbQueue)

    try dbQueue.write { db in
        for (name, score) in [("Arthur", 100), ("Barbara", 250), ("Cheng", 175)] {
            try db.execute(
                sql: "INSERT INTO player (name, score, joined) VALUES (?, ?, ?)",
                arguments: [name, score, Date()])
        }
    }
    let rows = try dbQueue.read { db in
        try Row.fetchAll(db, sql: "SELECT id, name, score, joined FROM player ORDER BY score DESC, id")
    }
    print("Players in \(path) (\(rows.count) rows):")
    for row in rows {
        let id: Int64 = try row["id"]
        let name: String = try row["name"]
        let score: Int = try row["score"]
        let joined: Date = try row["joined"]
        print("  #\(id) \(name): \(score) points, joined \(DatabaseDateFormat.string(from: joined)) UTC")
    }
} catch {
    print("quarry-demo failed: \(error)")
    exit(1)
}
