// Adopting an existing database: a copy of Chinook, whose schema predates the
// migrator, gets a baseline migration that is a no-op for the existing schema
// and a second migration that adds a column and an index.

import Quarry
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
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name <> 'quarry_migrations'")
        var counts: [String: Int] = [:]
        for table in tables {
            counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)")
        }
        return counts
    }

    @Test func adoptsChinookWithoutTouchingData() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: try chinookCopy(in: directory))
        let (countsBefore, trackChecksum, schemaBefore) = try dbPool.read { db throws in
            (try rowCounts(db),
             try String.fetchOne(db, sql: "SELECT group_concat(TrackId || Name || Milliseconds, ',') FROM (SELECT * FROM Track ORDER BY TrackId)"),
             try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name <> 'Track' AND sql IS NOT NULL ORDER BY name"))
        }
        #expect(countsBefore.count == 11)
        #expect(countsBefore["Track"] == 3503)

        let migrator = chinookMigrator()
        try migrator.migrate(dbPool)
        try migrator.migrate(dbPool)  // a second startup does nothing

        try dbPool.read { db throws in
            #expect(try migrator.appliedMigrations(db) == ["chinookBaseline", "addTrackRating"])
            #expect(try rowCounts(db) == countsBefore)
            #expect(try String.fetchOne(db, sql: "SELECT group_concat(TrackId || Name || Milliseconds, ',') FROM (SELECT * FROM Track ORDER BY TrackId)") == trackChecksum)
            #expect(try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name <> 'Track' AND name <> 'Track_on_Rating' AND name <> 'quarry_migrations' AND sql IS NOT NULL ORDER BY name") == schemaBefore)
            let rating = try #require(try db.columns(in: "Track").last)
            #expect(rating == ColumnInfo(name: "Rating", type: "INTEGER", isNotNull: true, defaultValueSQL: "0", primaryKeyIndex: 0))
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Track WHERE Rating = 0") == 3503)
            #expect(try db.indexes(on: "Track").contains(IndexInfo(name: "Track_on_Rating", columns: ["Rating"], isUnique: false, origin: .createIndex, isPartial: false)))
            #expect(try db.foreignKeyViolations().isEmpty)
        }
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
