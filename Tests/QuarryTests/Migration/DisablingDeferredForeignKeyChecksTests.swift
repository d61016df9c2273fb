// disablingDeferredForeignKeyChecks(), as GRDB documents it: the migrations
// registered after it run with foreign keys off and are not checked, so a
// migration that leaves a row breaking a foreign key commits; the
// `.immediate` migrations registered after it still enforce foreign keys at
// each statement, and are not failed by the rows earlier migrations left.
// Without it, a deferred migration that leaves a violation fails with an
// error that names it. On PostgreSQL the option changes nothing: the server
// checks foreign keys at each statement.

import Quarry
import Testing

@Suite struct DisablingDeferredForeignKeyChecksTests {
    private func libraryMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createLibrary") { db throws in
            try db.create(table: "author") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.belongsTo("author")
            }
            try db.execute(sql: "INSERT INTO author (id, name) VALUES (1, 'Ursula')")
        }
        return migrator
    }

    @Test(arguments: Backend.sqlite)
    func aViolatingMigrationCommits(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            var migrator = libraryMigrator().disablingDeferredForeignKeyChecks()
            migrator.registerMigration("orphan") { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (1, 'Lost', 9)")
            }
            // An immediate migration enforces foreign keys on its own
            // statements, and the orphan left before it does not fail it.
            migrator.registerMigration("moreBooks", foreignKeyChecks: .immediate) { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (2, 'Earthsea', 1)")
            }
            try migrator.migrate(writer)
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["createLibrary", "orphan", "moreBooks"])
                #expect(try db.foreignKeyViolations() == [
                    ForeignKeyViolation(originTable: "book", originRowID: 1, destinationTable: "author", foreignKeyID: 0),
                ])
            }
            // Foreign keys are enforced again on the writer connection.
            try writer.writeWithoutTransaction { db throws in
                #expect(try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true)
            }
        }
    }

    /// With the option, a migration can check what it vouches for itself.
    @Test(arguments: Backend.sqlite)
    func aMigrationCanCheckForeignKeysItself(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            var migrator = libraryMigrator().disablingDeferredForeignKeyChecks()
            migrator.registerMigration("checkedOrphan") { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (1, 'Lost', 9)")
                try db.checkForeignKeys(in: "book")
            }
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(writer) }
            guard case .migrationFailed("checkedOrphan", let underlying as DatabaseError) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(underlying.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
            #expect(underlying.message == #"FOREIGN KEY constraint violation - from book(author_id) to author(id), in [id: 1, title: 'Lost', author_id: 9]"#)
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 0)
            }
        }
    }

    /// (On PostgreSQL, the violating statement fails the migration.)
    @Test(arguments: Backend.all)
    func withoutTheOptionTheMigrationFailsNamingTheViolation(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            var migrator = libraryMigrator()
            migrator.registerMigration("orphan") { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (1, 'Lost', 9)")
            }
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(writer) }
            if backend.isPostgreSQL {
                guard case .migrationFailed("orphan", let underlying as DatabaseError) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(underlying.isForeignKeyViolation)
            } else {
                #expect(error.description == #"migration "orphan" was rolled back because it leaves foreign key violations: row 1 of "book" refers to a missing row of "author""#)
            }
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 0)
            }
        }
    }

    /// Migrations registered before the option keep their deferred check
    /// (on PostgreSQL, the violating statement fails the migration).
    @Test(arguments: Backend.all)
    func migrationsRegisteredBeforeTheOptionAreChecked(_ backend: Backend) throws {
        try backend.withWriter { writer throws in
            var migrator = libraryMigrator()
            migrator.registerMigration("orphan") { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (1, 'Lost', 9)")
            }
            migrator = migrator.disablingDeferredForeignKeyChecks()
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(writer) }
            switch error {
            case .foreignKeyViolations("orphan", let violations) where !backend.isPostgreSQL:
                #expect(violations == [ForeignKeyViolation(originTable: "book", originRowID: 1, destinationTable: "author", foreignKeyID: 0)])
            case .migrationFailed("orphan", let underlying as DatabaseError) where backend.isPostgreSQL:
                #expect(underlying.isForeignKeyViolation)
            default:
                Issue.record("unexpected \(error)")
            }
            try writer.read { db throws in
                #expect(try migrator.appliedMigrations(db) == ["createLibrary"])
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM book") == 0)
            }
        }
    }

    /// PostgreSQL has no switch for its foreign keys: the violating statement
    /// fails, with or without the option.
    @Test(.enabled(if: Backend.postgresURL != nil))
    func postgreSQLChecksEachStatement() throws {
        try Backend.postgres.withWriter { writer throws in
            var migrator = libraryMigrator().disablingDeferredForeignKeyChecks()
            migrator.registerMigration("orphan") { db throws in
                try db.execute(sql: "INSERT INTO book (id, title, author_id) VALUES (1, 'Lost', 9)")
            }
            let error = try #require(throws: MigrationError.self) { try migrator.migrate(writer) }
            guard case .migrationFailed("orphan", let underlying as DatabaseError) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(underlying.isForeignKeyViolation)
            try writer.read { db throws in #expect(try migrator.appliedMigrations(db) == ["createLibrary"]) }
        }
    }
}
