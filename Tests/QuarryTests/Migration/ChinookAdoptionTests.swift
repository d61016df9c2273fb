// Adopting an existing database: a copy of Chinook, whose schema predates the
// migrator, gets a baseline migration that is a no-op for the existing schema
// and a second migration that adds a column and an index.

@testable import Quarry
import Testing

@Suite struct ChinookAdoptionTests {
    /// The documented pattern: the first migration creates the schema the
    /// database had before the migrator, only when it is missing. An existing
    /// database gets it recorded without change; a new one gets the tables.
    private func chinookMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("chinookBaseline") { db in
            if try db.tableExists("Track") { return }  // adopted database: the schema is there
            try db.create(table: "Genre") { t in
                t.primaryKey("GenreId", .integer)
                t.column("Name", .text)
            }
            try db.create(table: "Track") { t in
                t.primaryKey("TrackId", .integer)
                t.column("Name", .text).notNull()
                t.column("GenreId", .integer).references("Genre", column: "GenreId")
            }
        }
        migrator.registerMigration("addTrackRating") { db in
            try db.alter(table: "Track") { t in
                t.add(column: "Rating", .integer).notNull().defaults(to: 0).check(sql: #""Rating" BETWEEN 0 AND 5"#)
            }
            try db.create(index: "Track_on_Rating", on: "Track", columns: ["Rating"])
        }
        return migrator
    }

    private func rowCounts(_ db: Database) throws -> [String: Int] {
        let tables = try String.fetchAll(db, sql: db.isPostgreSQL
            ? """
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'quarry_migrations'
                """
            : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name <> 'quarry_migrations'")
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)")
        }
        return counts
    }

    /// Every track's id, name and duration, in id order.
    private func trackChecksum(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: db.isPostgreSQL
            ? #"SELECT string_agg("trackId" || name || milliseconds, ',' ORDER BY "trackId") FROM "Track""#
            : "SELECT group_concat(TrackId || Name || Milliseconds, ',') FROM (SELECT * FROM Track ORDER BY TrackId)")
    }

    /// The definitions of the schema's objects other than Track and what
    /// the migrator adds: on PostgreSQL, the columns of the other tables
    /// and views, and every index but the new one.
    private func otherSchema(_ db: Database) throws -> [String] {
        if db.isPostgreSQL {
            return try String.fetchAll(db, sql: """
                SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name NOT IN ('Track', 'quarry_migrations')
                ORDER BY table_name, ordinal_position
                """)
                + String.fetchAll(db, sql: """
                    SELECT indexdef FROM pg_indexes
                    WHERE schemaname = current_schema() AND indexname NOT IN ('Track_on_Rating', 'quarry_migrations_pkey')
                    ORDER BY indexname
                    """)
        }
        return try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master
            WHERE name <> 'Track' AND name <> 'Track_on_Rating' AND name <> 'quarry_migrations' AND sql IS NOT NULL ORDER BY name
            """)
    }

    /// A copy of Chinook (on PostgreSQL, the same tables and rows in a
    /// schema of the test's own) adopted by the migrator.
    @Test(arguments: Backend.all)
    func adoptsChinookWithoutTouchingData(_ backend: Backend) throws {
        let directory = try TemporaryDirectory()
        let writer: any DatabaseWriter
        switch backend {
        case .postgres:
            writer = try backend.make(in: directory)
            try writer.write { db in try PostgresChinook.populate(db) }
        case .sqlitePool:
            SharedSuiteTally.count(backend)
            writer = try DatabasePool(path: try chinookCopy(in: directory))
        case .sqliteMemory, .sqliteQueue:
            SharedSuiteTally.count(backend)
            writer = try DatabaseQueue(path: try chinookCopy(in: directory))
        }
        let (countsBefore, checksumBefore, schemaBefore) = try writer.read { db throws in
            (try rowCounts(db), try trackChecksum(db), try otherSchema(db))
        }
        #expect(countsBefore.count == 11)
        #expect(countsBefore["Track"] == 3503)
        #expect(checksumBefore != nil)
        #expect(!schemaBefore.isEmpty)

        let migrator = chinookMigrator()
        try migrator.migrate(writer)
        try migrator.migrate(writer)  // a second startup does nothing

        try writer.read { db throws in
            #expect(try migrator.appliedMigrations(db) == ["chinookBaseline", "addTrackRating"])
            #expect(try rowCounts(db) == countsBefore)
            #expect(try trackChecksum(db) == checksumBefore)
            #expect(try otherSchema(db) == schemaBefore)
            let rating = try #require(try db.columns(in: "Track").last)
            #expect(rating == ColumnInfo(
                name: "Rating", type: backend.isPostgreSQL ? "bigint" : "INTEGER", isNotNull: true, defaultValueSQL: "0", primaryKeyIndex: 0))
            #expect(try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Track" WHERE "Rating" = 0"#) == 3503)
            #expect(try db.indexes(on: "Track").contains(IndexInfo(name: "Track_on_Rating", columns: ["Rating"], isUnique: false, origin: .createIndex, isPartial: false)))
            if !backend.isPostgreSQL {
                // (PostgreSQL checks foreign keys at each statement: foreignKeyViolations is SQLite's.)
                #expect(try db.foreignKeyViolations().isEmpty)
            }
        }
        withExtendedLifetime(directory) {}
    }

    @Test(arguments: Backend.all)
    func theSameMigratorCreatesANewDatabase(_ backend: Backend) throws {
        try backend.withWriter { writer in
            let migrator = chinookMigrator()
            try migrator.migrate(writer)
            try writer.read { db throws in
                #expect(try db.columns(in: "Track").map(\.name) == ["TrackId", "Name", "GenreId", "Rating"])
                #expect(try db.foreignKeys(on: "Track").map(\.destinationTable) == ["Genre"])
                #expect(try migrator.appliedMigrations(db) == ["chinookBaseline", "addTrackRating"])
            }
        }
    }
}
