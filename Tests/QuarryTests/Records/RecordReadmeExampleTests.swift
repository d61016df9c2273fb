// The example of the README and of the Records article, run as written.

import Foundation
import Quarry
import Testing

@Suite("Records README example")
struct RecordReadmeExampleTests {
    // SQLite only: the README's SQLite DDL.
    @Test(arguments: Backend.sqliteWithMemory)
    func readmeExample(storage: Backend) async throws {
        struct Player: Codable, FetchableRecord, PersistableRecord {
            var id: Int64?
            var name: String
            var score: Int
            var teamID: Int64?
        }
        #expect(Player.databaseTableName == "player")
        let directory = try TemporaryDirectory()
        let dbQueue = try storage.make(in: directory)
        try await dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, teamID INTEGER)
                """)
            var player = Player(id: nil, name: "Arthur", score: 100, teamID: nil)
            try player.insert(db)                       // player.id is now set
            #expect(player.id == 1)
            player.score += 10
            try player.update(db)
            let fresh = try player.updateAndFetch(db)   // UPDATE ... RETURNING *
            #expect(fresh.score == 110 && fresh.id == 1)
            var other = Player(id: nil, name: "Barbara", score: 50, teamID: 2)
            try other.insert(db)
            try player.delete(db)
        }
        let top = try await dbQueue.read { db in try Player.fetchAll(db) }
        #expect(top.map(\.name) == ["Barbara"])
        #expect(top.first?.teamID == 2)
    }
}
