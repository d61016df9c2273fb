// Moving from GRDB's migrator: deferred foreign key checks by default,
// disablingDeferredForeignKeyChecks(), appliedIdentifiers(_:), and adoption
// of a database migrated by GRDB (its grdb_migrations table), so that no
// migration runs twice.

import Foundation
import Quarry
import Testing

@Suite struct GRDBMigrationAdoptionTests {
    /// A file laid out exactly as GRDB 7 leaves it after two migrations.
    private func grdbMigratedFile(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("grdb.sqlite")
        let dbQueue = try DatabaseQueue(path: path)
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE "team" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL);
                INSERT INTO grdb_migrations VALUES ('createTeam');
                CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "teamId" INTEGER REFERENCES "team"("id"), "name" TEXT NOT NULL);
                INSERT INTO grdb_migrations VALUES ('createPlayer');
                INSERT INTO team (name) VALUES ('Reds');
                """)
        }
        return path
    }

    private func migrator(_ log: MigrationLog) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createTeam") { db in
            log.append("createTeam")
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
        }
        migrator.registerMigration("createPlayer") { db in
            log.append("createPlayer")
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("team")
                t.column("name", .text).notNull()
            }
        }
        return migrator
    }

    @Test(arguments: WriterKind.allCases)
    func aGRDBMigratedDatabaseIsAdopted(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let path = try grdbMigratedFile(directory)
        let writer: any DatabaseWriter = kind == .queue ? try DatabaseQueue(path: path) : try DatabasePool(path: path)
        let log = MigrationLog()
        var migrator = migrator(log)
        try writer.read { db throws in
            #expect(try migrator.appliedIdentifiers(db) == ["createTeam", "createPlayer"])
            #expect(try migrator.hasCompletedMigrations(db))
        }
        try migrator.migrate(writer)
        #expect(log.names.isEmpty)  // nothing ran again
        migrator.registerMigration("addScore") { db in
            log.append("addScore")
            try db.alter(table: "player") { t in t.add(column: "score", .integer).notNull().defaults(to: 0) }
        }
        try migrator.migrate(writer)
        #expect(log.names == ["addScore"])
        try writer.read { db throws in
            // GRDB's identifiers were recorded with the first Quarry migration.
            #expect(try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY rowid")
                == ["createTeam", "createPlayer", "addScore"])
            #expect(try migrator.appliedIdentifiers(db) == ["createTeam", "createPlayer", "addScore"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM team") == 1)
        }
        // Starting again runs nothing.
        try migrator.migrate(writer)
        #expect(log.names == ["addScore"])
    }

    @Test func aGRDBMigrationUnknownToTheMigratorIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try grdbMigratedFile(directory)
        let dbQueue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createTeam") { _ in }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(dbQueue) }
        guard case .unknownMigrations(let unknown) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(unknown == ["createPlayer"])
    }

    @Test func theSharedGRDBFileIsAdopted() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: try grdbWrittenCopy(in: directory))
        var migrator = DatabaseMigrator()
        let log = MigrationLog()
        for name in ["createPlayer", "createEvent"] {
            migrator.registerMigration(name) { _ in log.append(name) }
        }
        try migrator.migrate(dbQueue)
        #expect(log.names.isEmpty)
        try dbQueue.read { db throws in #expect(try migrator.hasCompletedMigrations(db)) }
    }

    @Test func deferredForeignKeyChecksAreTheDefault() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createLibrary") { db in
            try db.create(table: "author") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("author", onDelete: .cascade)
            }
            try db.execute(sql: "INSERT INTO author DEFAULT VALUES; INSERT INTO book (author_id) VALUES (1)")
        }
        // A table rebuild drops a referenced table: refused by immediate checks,
        // allowed by the default (deferred) ones, since no row is left orphaned.
        migrator.registerMigration("rebuildAuthor") { db in
            try db.execute(sql: """
                CREATE TABLE new_author (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);
                INSERT INTO new_author (id) SELECT id FROM author;
                DROP TABLE author;
                ALTER TABLE new_author RENAME TO author;
                """)
        }
        try migrator.migrate(dbQueue)
        try dbQueue.read { db throws in #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM book") == 1) }

        // Deferred checks still run before the commit.
        migrator.registerMigration("orphan") { db in try db.execute(sql: "INSERT INTO book (author_id) VALUES (99)") }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(dbQueue) }
        guard case .foreignKeyViolations("orphan", _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
    }

    @Test func disablingDeferredForeignKeyChecksSkipsTheFinalCheck() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createLibrary") { db in
            try db.execute(sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY);
                CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id));
                """)
        }
        migrator = migrator.disablingDeferredForeignKeyChecks()
        migrator.registerMigration("orphan") { db in try db.execute(sql: "INSERT INTO book (author_id) VALUES (99)") }
        migrator.registerMigration("immediateOrphan", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO book (author_id) VALUES (98)")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(dbQueue) }
        guard case .migrationFailed("immediateOrphan", _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        try dbQueue.read { db throws in
            #expect(try migrator.appliedIdentifiers(db) == ["createLibrary", "orphan"])
            #expect(try db.foreignKeyViolations().count == 1)
        }
    }
}

/// The names of the migrations that ran, in order.
final class MigrationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var names: [String] { lock.withLock { storage } }
    func append(_ name: String) { lock.withLock { storage.append(name) } }
}
