// Tests of the development-only eraseDatabaseOnSchemaChange option.

import Quarry
import Testing

@Suite struct EraseOnSchemaChangeTests {
    private func migrator(playerColumns: [String], erase: Bool, names: [String] = ["createPlayer"]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.eraseDatabaseOnSchemaChange = erase
        migrator.registerMigration(names[0]) { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                for column in playerColumns { t.column(column, .text) }
            }
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.execute(sql: "CREATE VIEW player_names AS SELECT name FROM player")
        }
        for name in names.dropFirst() {
            migrator.registerMigration(name) { db in
                try db.create(table: name) { t in t.column("x") }
            }
        }
        return migrator
    }

    private func insertPlayer(_ writer: any DatabaseWriter) throws {
        try writer.write { db throws in
            try db.execute(sql: "INSERT INTO team DEFAULT VALUES")
            try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')")
        }
    }

    private func playerCount(_ writer: any DatabaseReader) throws -> Int? {
        try writer.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") }
    }

    @Test(arguments: WriterKind.allCases)
    func unchangedMigrationsKeepTheData(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let migrator = migrator(playerColumns: ["name"], erase: true)
        try migrator.migrate(writer)
        try insertPlayer(writer)
        try writer.read { db throws in #expect(try !migrator.hasSchemaChanges(db)) }
        try migrator.migrate(writer)
        #expect(try playerCount(writer) == 1)
    }

    @Test(arguments: WriterKind.allCases)
    func editedMigrationErasesAndReapplies(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try migrator(playerColumns: ["name"], erase: true).migrate(writer)
        try insertPlayer(writer)
        try writer.write { db throws in try db.execute(sql: "CREATE TABLE stray (x)") }

        // The migration was edited: it now adds an email column.
        let recorder = MigratorLogRecorder()
        var edited = migrator(playerColumns: ["name", "email"], erase: true)
        edited.logger = recorder.logger
        try writer.read { db throws in #expect(try edited.hasSchemaChanges(db)) }
        try edited.migrate(writer)
        #expect(try playerCount(writer) == 0)
        try writer.read { db throws in
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name", "email"])
            #expect(try !db.tableExists("stray"))
            #expect(try db.viewExists("player_names"))
            #expect(try edited.recordedMigrations(db) == ["createPlayer"])
            // AUTOINCREMENT counters start over.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_sequence") == 0)
        }
        #expect(recorder.entries.map(\.level) == [.notice, .info, .info, .info])
        #expect(recorder.entries.dropFirst().map(\.message) == [
            "1 pending migration: createPlayer", "Applying migration createPlayer",
        ] + recorder.entries.suffix(1).map(\.message))
        #expect(recorder.entries.first?.message.contains("Erased the database") == true)
        // Foreign keys are back on.
        try writer.writeWithoutTransaction { db throws in
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true)
        }
    }

    @Test func renamedMigrationErases() throws {
        let dbQueue = try DatabaseQueue()
        try migrator(playerColumns: ["name"], erase: true, names: ["createPlayer", "extra"]).migrate(dbQueue)
        try insertPlayer(dbQueue)
        let renamed = migrator(playerColumns: ["name"], erase: true, names: ["createPlayers", "extra"])
        try renamed.migrate(dbQueue)
        #expect(try playerCount(dbQueue) == 0)
        try dbQueue.read { db throws in
            #expect(try renamed.recordedMigrations(db) == ["createPlayers", "extra"])
        }
    }

    @Test func withoutTheOptionNothingIsErased() throws {
        let dbQueue = try DatabaseQueue()
        try migrator(playerColumns: ["name"], erase: false).migrate(dbQueue)
        try insertPlayer(dbQueue)
        let edited = migrator(playerColumns: ["name", "email"], erase: false)
        try edited.migrate(dbQueue)
        #expect(try playerCount(dbQueue) == 1)
        try dbQueue.read { db throws in
            #expect(try edited.hasSchemaChanges(db))
            #expect(try db.columns(in: "player").map(\.name) == ["id", "name"])
        }
    }

    @Test func onlyComparesUpToTheLastAppliedMigration() throws {
        let dbQueue = try DatabaseQueue()
        let migrator = migrator(playerColumns: ["name"], erase: true, names: ["createPlayer", "second"])
        try migrator.migrate(dbQueue, upTo: "createPlayer")
        try insertPlayer(dbQueue)
        // "second" is pending, not a schema change.
        try dbQueue.read { db throws in #expect(try !migrator.hasSchemaChanges(db)) }
        try migrator.migrate(dbQueue)
        #expect(try playerCount(dbQueue) == 1)
        try dbQueue.read { db throws in #expect(try db.tableExists("second")) }
    }
}
