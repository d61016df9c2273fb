// The Swift snippets of README.md, compiled and run by ReadmeTests.
//
// Each snippet below is copied verbatim from README.md; ReadmeTests checks that
// every ```swift block of the README (except the Package.swift lines) appears
// here, so a README snippet that stops compiling fails the build.

import Quarry

// README: Getting started
func gettingStarted(path: String) async throws -> [String] {
    // A DatabasePool: WAL mode, parallel readers, one writer.
    let dbPool = try DatabasePool(path: path)

    try await dbPool.write { db in
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS player (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                score INTEGER NOT NULL DEFAULT 0)
            """)
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
        try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)",
                       arguments: ["name": "Barbara", "score": 250])
    }

    return try await dbPool.read { db in
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0
        var lines = ["\(count) players"]
        for row in try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY score DESC") {
            let name: String = try row["name"]
            let score: Int = try row["score"]
            lines.append("\(name): \(score)")
        }
        return lines
    }
}
