// The migrations the migrator race applies (see main.swift). Each one writes
// a row naming the process that applied it, and sleeps a little inside its
// transaction, so that a second migrator arrives while the first still holds
// the migrations lock. Applied once, they leave exactly one row each.

import Foundation
import Quarry
import QuarryPostgres

/// The migrator of the race: five migrations; the first creates the log.
func raceMigrator(label: String, count: Int = 5) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for index in 1...count {
        migrator.registerMigration("m\(index)") { db in
            if index == 1 {
                try db.create(table: "race_log") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("migration", .text).notNull().unique()
                    t.column("process", .text).notNull()
                }
            }
            try db.create(table: "race_table_\(index)") { t in t.autoIncrementedPrimaryKey("id") }
            try db.execute(sql: "SELECT pg_sleep(0.05)")
            try db.execute(sql: "INSERT INTO race_log (migration, process) VALUES (?, ?)", arguments: ["m\(index)", label])
        }
    }
    return migrator
}

func runMigrationRace(url: String, schema: String, label: String) -> Int32 {
    do {
        var configuration = Configuration()
        // The schema name comes from the test, and is quoted.
        configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema.quotedDatabaseIdentifier)") }
        let pool = try PostgresDatabasePool(url: url, maximumConnectionCount: 2, configuration: configuration)
        defer { pool.close() }
        try raceMigrator(label: label).migrate(pool)
        print("migrated \(label)")
        return 0
    } catch {
        FileHandle.standardError.write(Data("\(label): \(error)\n".utf8))
        return 1
    }
}
