// The README's startup migration snippet, compiled and run. When the snippet
// goes into README.md, move `openDatabase(path:)` into
// Documentation/ReadmeSnippets.swift, which ReadmeTests compares with the README.

import Quarry
import Testing

// README: Migrations
/// Opens the database and brings its schema up to date: call it at startup.
func openDatabase(path: String) async throws -> DatabasePool {
    let dbPool = try DatabasePool(path: path)
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
            t.belongsTo("team", onDelete: .setNull)  // team_id, a foreign key to team(id), indexed
        }
    }
    migrator.registerMigration("addPlayerEmail") { db in
        try db.alter(table: "player") { t in t.add(column: "email", .text) }
    }
    // Applies what the file lacks, each migration once, even when several
    // replicas start together.
    try await migrator.migrate(dbPool)
    return dbPool
}

@Suite struct ReadmeMigrationSnippetTests {
    @Test func startupMigrationRunsTwice() async throws {
        let directory = try TemporaryDirectory()
        _ = try await openDatabase(path: directory.path())
        let dbPool = try await openDatabase(path: directory.path())  // second start: nothing to do
        let columns = try await dbPool.read { db in try db.columns(in: "player").map(\.name) }
        #expect(columns == ["id", "name", "score", "team_id", "email"])
        let applied = try await dbPool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY rowid")
        }
        #expect(applied == ["createTeam", "createPlayer", "addPlayerEmail"])
    }
}
