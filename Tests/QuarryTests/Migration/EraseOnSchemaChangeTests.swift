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

    /// The refusal of `feature` on PostgreSQL: the option and
    /// hasSchemaChanges(_:) compare SQLite schemas (sqlite_master).
    private func expectSQLiteOnly(_ error: DatabaseError, _ feature: String, alternative: String? = nil) {
        #expect(error.message.hasPrefix("\(feature) is SQLite-only; this connection is to "), "\(error)")
        if let alternative {
            #expect(error.message.hasSuffix(": use \(alternative)"), "\(error)")
        }
    }

    /// On PostgreSQL the option is refused before anything is written, and
    /// so is hasSchemaChanges(_:).
    @Test(arguments: Backend.all)
    func unchangedMigrationsKeepTheData(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let migrator = migrator(playerColumns: ["name"], erase: true)
            if backend.isPostgreSQL {
                let error = try #require(throws: DatabaseError.self) { try migrator.migrate(writer) }
                expectSQLiteOnly(error, "eraseDatabaseOnSchemaChange", alternative: "a development database you drop and create again")
                try writer.read { db throws in
                    #expect(try !db.tableExists("player"))
                    #expect(try !db.tableExists("quarry_migrations"))
                    expectSQLiteOnly(try #require(throws: DatabaseError.self) { try migrator.hasSchemaChanges(db) }, "hasSchemaChanges(_:)")
                }
                return
            }
            try migrator.migrate(writer)
            try insertPlayer(writer)
            try writer.read { db throws in #expect(try !migrator.hasSchemaChanges(db)) }
            try migrator.migrate(writer)
            #expect(try playerCount(writer) == 1)
        }
    }

    /// On PostgreSQL, a database migrated without the option keeps its data
    /// and its other tables when an edited migrator with the option is refused.
    @Test(arguments: Backend.all)
    func editedMigrationErasesAndReapplies(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try migrator(playerColumns: ["name"], erase: !backend.isPostgreSQL).migrate(writer)
            try insertPlayer(writer)
            try writer.write { db throws in try db.execute(sql: "CREATE TABLE stray (x INTEGER)") }
            if backend.isPostgreSQL {
                let edited = migrator(playerColumns: ["name", "email"], erase: true)
                let error = try #require(throws: DatabaseError.self) { try edited.migrate(writer) }
                expectSQLiteOnly(error, "eraseDatabaseOnSchemaChange", alternative: "a development database you drop and create again")
                #expect(try playerCount(writer) == 1)
                try writer.read { db throws in
                    #expect(try db.columns(in: "player").map(\.name) == ["id", "name"])
                    #expect(try db.tableExists("stray"))
                    #expect(try edited.recordedMigrations(db) == ["createPlayer"])
                }
                return
            }

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

    /// (On PostgreSQL, hasSchemaChanges(_:) is refused.)
    @Test(arguments: Backend.all)
    func withoutTheOptionNothingIsErased(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try migrator(playerColumns: ["name"], erase: false).migrate(writer)
            try insertPlayer(writer)
            let edited = migrator(playerColumns: ["name", "email"], erase: false)
            try edited.migrate(writer)
            #expect(try playerCount(writer) == 1)
            try writer.read { db throws in
                if backend.isPostgreSQL {
                    expectSQLiteOnly(try #require(throws: DatabaseError.self) { try edited.hasSchemaChanges(db) }, "hasSchemaChanges(_:)")
                } else {
                    #expect(try edited.hasSchemaChanges(db))
                }
                #expect(try db.columns(in: "player").map(\.name) == ["id", "name"])
            }
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
