// quarry-demo: opens a database file, creates a table, writes rows and reads them back.
//
//     swift run quarry-demo [path]      (default: ./quarry-demo.sqlite)

import Foundation
import Quarry

let path = CommandLine.arguments.dropFirst().first ?? "quarry-demo.sqlite"

do {
    let dbQueue = try DatabaseQueue(path: path)
    try dbQueue.write { db in
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS player (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                score INTEGER NOT NULL,
                joined TEXT NOT NULL
            )
            """)
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
