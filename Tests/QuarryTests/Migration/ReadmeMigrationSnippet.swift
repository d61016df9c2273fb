// The README's startup migration snippet (in Documentation/ReadmeSnippets.swift),
// run twice on one file, as a service restarting would.

import Quarry
import Testing

@Suite struct ReadmeMigrationSnippetTests {
    @Test func startupMigrationRunsTwice() async throws {
        let directory = try TemporaryDirectory()
        _ = try await ReadmeSnippets().openDatabase(path: directory.path())
        let dbPool = try await ReadmeSnippets().openDatabase(path: directory.path())  // second start: nothing to do
        let columns = try await dbPool.read { db in try db.columns(in: "player").map(\.name) }
        #expect(columns == ["id", "name", "score", "team_id", "email"])
        let applied = try await dbPool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY rowid")
        }
        #expect(applied == ["createTeam", "createPlayer", "addPlayerEmail"])
    }
}
