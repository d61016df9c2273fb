// Tests of DatabaseMigrator: order, once-only application, upTo, queries,
// rollback of failing migrations, unknown migrations, logging.

import Foundation
import Logging
import Quarry
import Testing

@Suite struct DatabaseMigratorTests {
    /// Three migrations that each append their name to the `log` table.
    private func loggingMigrator(_ names: [String] = ["a", "b", "c"]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in
                try db.create(table: "log", options: .ifNotExists) { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("name", .text).notNull()
                }
                try db.execute(sql: "INSERT INTO log (name) VALUES (?)", arguments: [name])
            }
        }
        return migrator
    }

    @Test(arguments: Backend.all)
    func appliesInOrderOnce(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let migrator = loggingMigrator()
            #expect(migrator.migrations == ["a", "b", "c"])
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == [])
                #expect(try !migrator.hasCompletedMigrations(db))
            }
            try migrator.migrate(writer)
            try migrator.migrate(writer)
            #expect(try migrationLog(writer) == ["a", "b", "c"])
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["a", "b", "c"])
                #expect(try migrator.completedMigrations(db) == ["a", "b", "c"])
                #expect(try migrator.recordedMigrations(db) == ["a", "b", "c"])
                #expect(try migrator.hasCompletedMigrations(db))
                #expect(try !migrator.hasBeenSuperseded(db))
                // PostgreSQL's table keeps the order of application in `seq` (it has no rowid).
                #expect(try db.columns(in: DatabaseMigrator.migrationsTableName).map(\.name)
                    == (backend.isPostgreSQL ? ["name", "applied_at", "seq"] : ["name", "applied_at"]))
            }
            // A later version registers one more: only it runs.
            try loggingMigrator(["a", "b", "c", "d"]).migrate(writer)
            #expect(try migrationLog(writer) == ["a", "b", "c", "d"])
        }
    }

    @Test(arguments: Backend.all) func upTo(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let migrator = loggingMigrator()
            try migrator.migrate(writer, upTo: "b")
            #expect(try migrationLog(writer) == ["a", "b"])
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["a", "b"])
                #expect(try migrator.completedMigrations(db) == ["a", "b"])
                #expect(try !migrator.hasCompletedMigrations(db))
            }
            try migrator.migrate(writer, upTo: "a")  // already there: nothing to do
            #expect(try migrationLog(writer) == ["a", "b"])
            let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer, upTo: "z") }
            #expect(error?.migration == "z")
            #expect(error?.description == #"no migration named "z" is registered"#)
            try migrator.migrate(writer)
            #expect(try migrationLog(writer) == ["a", "b", "c"])
        }
    }

    @Test(arguments: Backend.all) func completedMigrationsStopAtTheFirstGap(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try loggingMigrator(["a", "c"]).migrate(writer)
            let migrator = loggingMigrator(["a", "b", "c"])
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["a", "c"])
                #expect(try migrator.completedMigrations(db) == ["a"])
            }
            try migrator.migrate(writer)
            #expect(try migrationLog(writer) == ["a", "c", "b"])
        }
    }

    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    @Test(arguments: Backend.all)
    func failingMigrationRollsBackCompletely(_ backend: Backend) throws {
        try backend.withWriter { writer in
            var migrator = DatabaseMigrator()
            migrator.registerMigration("createPlayer") { db in
                try db.create(table: "player") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("name", .text).notNull()
                }
                try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur'), ('Barbara')")
            }
            migrator.registerMigration("broken") { db in
                try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
                try db.alter(table: "player") { t in t.add(column: "email", .text) }
                try db.execute(sql: "DELETE FROM player WHERE name = 'Arthur'")
                try db.execute(sql: "UPDATE player SET email = 'b@example.com'")
                throw Boom()
            }
            migrator.registerMigration("after") { db in
                try db.create(table: "never") { t in t.column("x") }
            }
            // The schema as text: SQLite's CREATE statements, PostgreSQL's columns.
            let schemaSQL = (backend.isPostgreSQL
                    ? "SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1"
                    : "SELECT sql FROM sqlite_master ORDER BY name")
            let schemaBefore: [String?]
            do {
                try migrator.migrate(writer, upTo: "createPlayer")
                schemaBefore = try writer.read { db throws in try Optional<String>.fetchAll(db, sql: schemaSQL) }
            }
            let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
            #expect(error?.migration == "broken")
            guard case .migrationFailed(let name, let underlying)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(name == "broken")
            #expect(underlying is Boom)
            #expect(error?.description == #"migration "broken" failed and was rolled back: boom"#)
            try writer.read { db throws in
                #expect(try Optional<String>.fetchAll(db, sql: schemaSQL) == schemaBefore)
                #expect(try !db.tableExists("team"))
                #expect(try !db.tableExists("never"))
                #expect(try db.columns(in: "player").map(\.name) == ["id", "name"])
                #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["Arthur", "Barbara"])
                #expect(try migrator.appliedMigrations(db) == ["createPlayer"])
            }
            // The same failure again: still consistent, and usable afterwards.
            #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
            try writer.write { db throws in try db.execute(sql: "INSERT INTO player (name) VALUES ('Craig')") }
        }
    }

    @Test(arguments: Backend.all) func sqlErrorIsWrappedWithTheMigrationName(_ backend: Backend) throws {
        try backend.withWriter { writer in
            var migrator = DatabaseMigrator()
            migrator.registerMigration("typo") { db in
                try db.execute(sql: "CREATE TABLE t (a); SELEC 1")
            }
            let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
            guard case .migrationFailed("typo", let underlying as DatabaseError)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(underlying.message.contains("syntax error"))
            let errorPrefix = backend.isPostgreSQL ? "PostgreSQL error 42601" : "SQLite error 1"
            #expect(error?.description.hasPrefix(#"migration "typo" failed and was rolled back: "# + errorPrefix) == true)
            try writer.read { db throws in #expect(try !db.tableExists("t")) }
        }
    }

    @Test(arguments: Backend.all) func duplicateNamesAreRefused(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            let migrator = loggingMigrator(["a", "b", "a"])
            let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
            #expect(error?.migration == "a")
            #expect(error?.description == #"the migration "a" is registered twice"#)
            #expect(try migrationLog(writer) == [])
        }
    }

    @Test(arguments: Backend.all)
    func unknownMigrationsAreRefusedByDefault(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try loggingMigrator(["a", "b", "c"]).migrate(writer)
            // An older build knows only "a", and has its own new "x".
            var older = loggingMigrator(["a", "x"])
            try writer.read { db throws in
                #expect(try older.hasBeenSuperseded(db))
                #expect(try older.unknownMigrations(db) == ["b", "c"])
                #expect(try older.appliedMigrations(db) == ["a"])
            }
            let error = #expect(throws: MigrationError.self) { try older.migrate(writer) }
            guard case .unknownMigrations(let names)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(names == ["b", "c"])
            #expect(error?.migration == nil)
            #expect(error?.description.contains(#"("b", "c")"#) == true)
            #expect(error?.description.contains("newer version") == true)
            #expect(try migrationLog(writer) == ["a", "b", "c"])

            older.unknownMigrationPolicy = .proceed
            try older.migrate(writer)
            #expect(try migrationLog(writer) == ["a", "b", "c", "x"])
        }
    }

    @Test(arguments: Backend.all) func logsWhatItDoes(_ backend: Backend) throws {
        let recorder = MigratorLogRecorder()
        var migrator = loggingMigrator(["first", "second"])
        migrator.logger = recorder.logger
        try backend.withWriter { writer in
            try migrator.migrate(writer)
            try migrator.migrate(writer)  // nothing applied: up to date
        }
        let entries = recorder.entries
        #expect(entries.map(\.level) == [.info, .info, .info, .info, .info, .info])
        #expect(entries[0].message == "2 pending migrations: first, second")
        #expect(entries[0].metadata["pending"]?.description == #"["first", "second"]"#)
        #expect(entries[1].message == "Applying migration first")
        #expect(entries[2].message.hasPrefix("Applied migration first in "))
        #expect(entries[2].message.hasSuffix(" ms"))
        #expect(entries[3].message == "Applying migration second")
        #expect(entries[5].message == "Database is up to date: 2 migrations applied")
        #expect(entries[5].metadata["last_migration"]?.description == "second")
        #expect(entries.map { $0.metadata["migration"]?.description } == [nil, "first", "first", "second", "second", nil])
        let duration = try #require(entries[2].metadata["duration_ms"]?.description)
        #expect(Double(duration).map { $0 >= 0 } == true)
        #expect(entries.allSatisfy { $0.metadata["database"] != nil })
    }

    @Test(arguments: Backend.all) func planAndPendingMigrations(_ backend: Backend) throws {
        let migrator = loggingMigrator()   // a, b, c
        try backend.withWriter { writer in
            let fresh = try migrator.plan(writer)
            #expect(fresh.applied.isEmpty && fresh.unknown.isEmpty && !fresh.isRefused && !fresh.mayEraseDatabase)
            #expect(fresh.pending == ["a", "b", "c"])
            #expect(fresh.description == "0 applied, 3 pending: a, b, c")
            #expect(try migrator.plan(writer, upTo: "b").pending == ["a", "b"])
            // Planning changes nothing.
            #expect(try migrationLog(writer) == [])
            try migrator.migrate(writer, upTo: "a")
            try writer.read { db throws in
                #expect(try migrator.pendingMigrations(db) == ["b", "c"])
                #expect(try migrator.plan(db).description == "1 applied, 2 pending: b, c")
            }
            try migrator.migrate(writer)
            let done = try migrator.plan(writer)
            #expect(done.isUpToDate)
            #expect(done.description == "up to date (3 applied)")
            // An older application's plan is refused, as migrate would be.
            var older = DatabaseMigrator()
            older.registerMigration("a") { _ in }
            let refused = try older.plan(writer)
            #expect(refused.isRefused && !refused.isUpToDate)
            #expect(refused.unknown == ["b", "c"])
            #expect(refused.description.hasPrefix("refused: the database records migrations this application does not know: b, c"))
            older.unknownMigrationPolicy = .proceed
            #expect(try older.plan(writer).isUpToDate)
            #expect(throws: MigrationError.self) { try migrator.plan(writer, upTo: "nope") }
        }
    }

    /// Another connection holds the write lock (on PostgreSQL, another
    /// migrator holds the migration lock): the migrator says it waits, then
    /// migrates once the lock is free.
    @Test(arguments: Backend.all) func logsWaitingForTheWriteLock(_ backend: Backend) async throws {
        try await backend.withSharedDatabase { open in
            let migratorWriter = try open(Configuration())
            let holder = try open(Configuration())
            let recorder = MigratorLogRecorder()
            var configured = loggingMigrator(["a"])
            configured.logger = recorder.logger
            let migrator = configured
            let holding = ThreadGate()
            let holderThread = StartedThread { () -> (released: Bool, pid: Int?) in
                do {
                    return try holder.writeWithoutTransaction { db throws in
                        var pid: Int?
                        if backend.isPostgreSQL {
                            // The lock of lockMigrations(_:), taken as a migrator takes it.
                            try db.execute(sql: "BEGIN")
                            try db.execute(
                                sql: "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || 'quarry_migrations'))")
                            pid = try Int.fetchOne(db, sql: "SELECT pg_backend_pid()")
                        } else {
                            try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                        }
                        holding.open()
                        // Keep the lock until the migrator says it waits (at most 4 s,
                        // under the migrator's 5 s busy timeout).
                        let deadline = ContinuousClock.now + .seconds(4)
                        while !recorder.entries.contains(where: { $0.level == .notice }), ContinuousClock.now < deadline {
                            Thread.sleep(forTimeInterval: 0.005)
                        }
                        try db.execute(sql: "COMMIT")
                        return (recorder.entries.contains { $0.level == .notice }, pid)
                    }
                } catch {
                    return (false, nil)
                }
            }
            #expect(holding.wait())
            let migrated = StartedThread { () -> String? in
                do {
                    try migrator.migrate(migratorWriter)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            #expect(await migrated.value == nil)
            let held = await holderThread.value
            #expect(held.released, "the holder released the lock before the migrator said it waited")
            let notice = try #require(recorder.entries.first { $0.level == .notice })
            if backend.isPostgreSQL {
                let pid = try #require(held.pid)
                #expect(notice.message == "Waiting for the migration lock, held by another migrator (server process \(pid))")
                #expect(notice.metadata["holder_pid"]?.description == "\(pid)")
            } else {
                #expect(notice.message == "Waiting for the write lock of the database: another connection or process is writing")
            }
            #expect(notice.metadata["database"]?.description == migratorWriter.path)
            #expect(try migrationLog(migratorWriter) == ["a"])
        }
    }

    @Test(arguments: Backend.all) func asyncMigrate(_ backend: Backend) async throws {
        try await backend.withWriter { writer in
            let migrator = loggingMigrator()
            try await migrator.migrate(writer, upTo: "a")
            #expect(try migrationLog(writer) == ["a"])
            try await migrator.migrate(writer)
            #expect(try migrationLog(writer) == ["a", "b", "c"])
            await #expect(throws: MigrationError.self) { try await migrator.migrate(writer, upTo: "nope") }
            let applied = try await writer.read { db in try migrator.appliedMigrations(db) }
            #expect(applied == ["a", "b", "c"])
        }
    }

    @Test(arguments: Backend.all) func emptyMigratorCreatesOnlyItsTable(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try DatabaseMigrator().migrate(writer)
            try writer.read { db throws in
                #expect(try db.tableExists("quarry_migrations"))
                #expect(try DatabaseMigrator().hasCompletedMigrations(db))
            }
        }
    }

    @Test(arguments: Backend.all) func readOnlyDatabaseFails(_ backend: Backend) throws {
        try backend.withSharedDatabase { open in
            _ = try open(Configuration())
            var configuration = Configuration()
            configuration.readonly = true
            let readonly = try open(configuration)
            let error = #expect(throws: DatabaseError.self) { try loggingMigrator().migrate(readonly) }
            #expect(error?.resultCode == .SQLITE_READONLY)
            let write = #expect(throws: DatabaseError.self) {
                try readonly.write { db in try db.execute(sql: "CREATE TABLE t (a INTEGER)") }
            }
            #expect(write?.resultCode == .SQLITE_READONLY)
            if backend.isPostgreSQL { #expect(write?.sqlState == "25006") }
            #expect(try readonly.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
        }
    }
}
