// DatabaseMigrator+SchemaChange: the development-only `eraseDatabaseOnSchemaChange`
// option. The schema that the applied migrations produce on a fresh in-memory
// database is compared with the schema on disk (the rows of sqlite_master,
// https://www.sqlite.org/schematab.html); when they differ, every schema
// object is dropped and the migrations run again from the start.

import Logging

extension DatabaseMigrator {
    /// Whether the schema on disk differs from the one the applied migrations
    /// produce today, or the database records migrations that are not registered.
    ///
    /// This migrates a fresh in-memory database up to the last applied
    /// migration, which can take a while; ``eraseDatabaseOnSchemaChange``
    /// uses it.
    public func hasSchemaChanges(_ db: Database) throws -> Bool {
        try db.require(.schemaComparison, "hasSchemaChanges(_:)")
        let recorded = try recordedMigrations(db)
        if recorded.isEmpty { return false }
        let known = Set(migrations)
        if recorded.contains(where: { !known.contains($0) }) { return true }
        let recordedNames = Set(recorded)
        guard let last = registered.lastIndex(where: { recordedNames.contains($0.name) }) else { return false }
        var configuration = db.configuration
        configuration.readonly = false
        configuration.journalMode = nil
        configuration.label = "quarry.migrator.schema-check"
        let fresh = try DatabaseQueue(configuration: configuration)
        var freshMigrator = self
        freshMigrator.eraseDatabaseOnSchemaChange = false
        freshMigrator.unknownMigrationPolicy = .proceed
        try fresh.writeWithoutTransaction { freshDB in try freshMigrator.migrate(freshDB, upTo: last, logs: false) }
        let expected = try fresh.read { try Self.schemaSnapshot($0) }
        return try Self.schemaSnapshot(db) != expected
    }

    /// Erases the database when ``hasSchemaChanges(_:)``, under the write lock.
    func eraseIfSchemaChanged(_ db: Database, logs: Bool) throws {
        guard try db.tableExists(Self.migrationsTableName) else { return }
        let foreignKeysEnabled = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
        // Dropping a referenced table with foreign keys on deletes its rows
        // first and can fail: turn them off, outside the transaction.
        if foreignKeysEnabled { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        do {
            try db.inTransaction(.immediate) {
                if try hasSchemaChanges(db) {
                    try Self.dropAllSchemaObjects(db)
                    if logs {
                        logger.notice(
                            "Erased the database: the migrations no longer match its schema (eraseDatabaseOnSchemaChange)",
                            metadata: ["database": .string(db.path)])
                    }
                }
                return .commit
            }
        } catch {
            if foreignKeysEnabled { do { try db.execute(sql: "PRAGMA foreign_keys = ON") } catch {} }
            throw error
        }
        if foreignKeysEnabled { try db.execute(sql: "PRAGMA foreign_keys = ON") }
    }

    /// The schema objects of the database, except SQLite's own and the
    /// migrations table, as comparable text.
    static func schemaSnapshot(_ db: Database) throws -> [String] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name, tbl_name, sql FROM sqlite_master
                WHERE substr(name, 1, 7) <> 'sqlite_' AND name <> ?
                ORDER BY type, name
                """,
            arguments: [migrationsTableName])
        return try rows.map { row in
            let parts: [String?] = [try row["type"], try row["name"], try row["tbl_name"], try row["sql"]]
            return parts.map { $0 ?? "NULL" }.joined(separator: "\u{1F}")
        }
    }

    /// Drops every view, trigger and table (indexes go with their tables).
    static func dropAllSchemaObjects(_ db: Database) throws {
        let objects = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name FROM sqlite_master
                WHERE type IN ('view', 'trigger', 'table') AND substr(name, 1, 7) <> 'sqlite_'
                ORDER BY CASE type WHEN 'view' THEN 0 WHEN 'trigger' THEN 1 ELSE 2 END
                """)
        for object in objects {
            let type: String = try object["type"]
            let name: String = try object["name"]
            // IF EXISTS: the shadow tables of a virtual table go with it.
            let keyword = type == "view" ? "VIEW" : type == "trigger" ? "TRIGGER" : "TABLE"
            try db.execute(sql: "DROP \(keyword) IF EXISTS \(name.quotedDatabaseIdentifier)")
        }
        if try db.tableExists("sqlite_sequence") {
            try db.execute(sql: "DELETE FROM sqlite_sequence")
        }
    }
}
