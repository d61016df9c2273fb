// Tests of foreign key handling by the migrator: violations fail the
// migration, deferred checks allow table rebuilds.

import Quarry
import Testing

@Suite struct MigrationForeignKeyTests {
    private func baseMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createLibrary") { db in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.belongsTo("author", onDelete: .cascade).notNull()
            }
            try db.create(table: "prize") { t in
                t.column("name", .text)
                t.belongsTo("author")  // NO ACTION: deleting a prized author fails
            }
            try db.execute(sql: """
                INSERT INTO author (id, name) VALUES (1, 'Ursula'), (2, 'Iain');
                INSERT INTO prize (name, author_id) VALUES ('Hugo', 1);
                INSERT INTO book (title, author_id) VALUES ('Earthsea', 1), ('Excession', 2), ('Lathe', 1);
                """)
        }
        return migrator
    }

    @Test(arguments: WriterKind.allCases)
    func violationFailsTheDeferredMigration(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var migrator = baseMigrator()
        migrator.registerMigration("orphanBooks", foreignKeyChecks: .deferred) { db in
            try db.execute(sql: "DELETE FROM author WHERE id = 2")  // no cascade: foreign keys are off
        }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
        guard case .foreignKeyViolations(let name, let violations)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(name == "orphanBooks")
        #expect(violations == [ForeignKeyViolation(originTable: "book", originRowID: 2, destinationTable: "author", foreignKeyID: 0)])
        #expect(error?.description == #"migration "orphanBooks" was rolled back because it leaves foreign key violations: row 2 of "book" refers to a missing row of "author""#)
        try writer.read { db throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM author") == 2)
            #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
        }
        // Foreign keys are enforced again on the writer connection.
        try writer.writeWithoutTransaction { db throws in
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true)
        }
    }

    /// PostgreSQL checks foreign keys at each statement too.
    @Test(arguments: Backend.all)
    func immediateMigrationFailsAtTheStatement(_ backend: Backend) throws {
        try backend.withWriter { writer in
            var migrator = baseMigrator()
            migrator.registerMigration("badInsert", foreignKeyChecks: .immediate) { db in
                try db.execute(sql: "INSERT INTO book (title, author_id) VALUES ('Nobody', 99)")
            }
            let error = #expect(throws: MigrationError.self) { try migrator.migrate(writer) }
            guard case .migrationFailed("badInsert", let underlying as DatabaseError)? = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect(underlying.isForeignKeyViolation)
            try writer.read { db throws in
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 3)
                #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
            }
        }
    }

    @Test func preexistingViolationFailsAnImmediateMigration() throws {
        // Rows inserted while foreign keys were off are caught by the check
        // that follows the next migration.
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let unchecked = try DatabaseQueue(path: directory.path(), configuration: configuration)
        try baseMigrator().migrate(unchecked)
        try unchecked.write { db throws in try db.execute(sql: "INSERT INTO book (title, author_id) VALUES ('Orphan', 42)") }
        unchecked.close()

        let dbQueue = try DatabaseQueue(path: directory.path())
        var migrator = baseMigrator()
        migrator.registerMigration("addYear") { db in
            try db.alter(table: "book") { t in t.add(column: "year", .integer) }
        }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(dbQueue) }
        guard case .foreignKeyViolations("addYear", let violations)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(violations.map(\.originRowID) == [4])
        try dbQueue.read { db throws in #expect(try db.columns(in: "book").map(\.name) == ["id", "title", "author_id"]) }
    }

    /// The rebuild of https://www.sqlite.org/lang_altertable.html#otheralter:
    /// `author` is replaced by a new table while `book` refers to it.
    private func rebuildAuthor(_ db: Database) throws {
        try db.create(table: "new_author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().collate("NOCASE")
        }
        try db.execute(sql: "INSERT INTO new_author (id, name) SELECT id, name FROM author")
        try db.drop(table: "author")
        try db.rename(table: "new_author", to: "author")
    }

    @Test(arguments: WriterKind.allCases)
    func deferredChecksAllowATableRebuild(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var migrator = baseMigrator()
        migrator.registerMigration("rebuildAuthor", foreignKeyChecks: .deferred) { db in
            try rebuildAuthor(db)
        }
        try migrator.migrate(writer)
        try writer.read { db throws in
            #expect(try migrator.hasCompletedMigrations(db))
            #expect(try db.columns(in: "author").map(\.name) == ["id", "name"])
            #expect(try schemaSQL(db, "author")?.contains(#"COLLATE "NOCASE""#) == true)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 3)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM prize") == 1)
            #expect(try db.foreignKeys(on: "book").first?.destinationTable == "author")
            #expect(try db.foreignKeyViolations().isEmpty)
        }
        // Foreign keys are enforced again, with the cascade.
        try writer.write { db throws in
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO book (title, author_id) VALUES ('x', 99)")
            }
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "DELETE FROM author WHERE id = 1")  // prized
            }
            try db.execute(sql: "DELETE FROM author WHERE id = 2")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 2)
        }
    }

    @Test func immediateChecksRefuseATableRebuild() throws {
        let dbQueue = try DatabaseQueue()
        var migrator = baseMigrator()
        migrator.registerMigration("rebuildAuthor", foreignKeyChecks: .immediate) { db in try rebuildAuthor(db) }
        // DROP TABLE author deletes its rows first: the books cascade, and the
        // prize refuses.
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(dbQueue) }
        guard case .migrationFailed("rebuildAuthor", let underlying as DatabaseError)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(underlying.isForeignKeyViolation)
        try dbQueue.read { db throws in
            #expect(try !db.tableExists("new_author"))
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 3)
            #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
        }
    }

    @Test func noChecksWhenForeignKeysAreDisabled() throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let dbQueue = try DatabaseQueue(configuration: configuration)
        var migrator = baseMigrator()
        migrator.registerMigration("orphan", foreignKeyChecks: .deferred) { db in
            try db.execute(sql: "DELETE FROM author WHERE id = 2")
        }
        try migrator.migrate(dbQueue)
        try dbQueue.writeWithoutTransaction { db throws in
            #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == false)
            #expect(try db.foreignKeyViolations().count == 1)
        }
    }
}
