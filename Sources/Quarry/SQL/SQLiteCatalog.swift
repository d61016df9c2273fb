// SQLiteCatalog: SQLite's answers to DatabaseCatalog (DatabaseCatalog.swift),
// read from the connection: its pragmas (Schema/Database+Introspection.swift),
// its write lock and its rowids.

/// SQLite's catalog, the catalog of every SQLite connection.
package struct SQLiteCatalog: DatabaseCatalog {
    package init() {}

    // MARK: - Inserted rows

    /// An SQLite table has a rowid unless it is `WITHOUT ROWID` (read from
    /// the table's schema by `TableSchema`).
    package func tablesHaveRowID(_ db: Database) -> Bool { true }

    /// The connection reports the last inserted rowid itself.
    package func insertedRowIDReturning(_ db: Database, rowIDColumn: String?) -> String? { nil }

    /// The rows RETURNING from a multi-row INSERT are matched by rowid.
    package func matchesReturnedRowsByPosition(_ db: Database) -> Bool { false }

    // MARK: - Introspection catalog queries

    package func schemaObjectExists(_ db: Database, kind: SchemaObjectKind, name: String) throws -> Bool {
        try db.sqliteSchemaObjectExists(type: kind.rawValue, name: name)
    }

    package func hasTriggers(_ db: Database, on table: String) throws -> Bool { try db.sqliteHasTriggers(on: table) }
    package func columns(_ db: Database, in table: String) throws -> [ColumnInfo] { try db.sqliteColumns(in: table) }
    package func primaryKey(_ db: Database, table: String) throws -> PrimaryKeyInfo { try db.sqlitePrimaryKey(table) }
    package func foreignKeys(_ db: Database, on table: String) throws -> [ForeignKeyInfo] { try db.sqliteForeignKeys(on: table) }
    package func indexes(_ db: Database, on table: String) throws -> [IndexInfo] { try db.sqliteIndexes(on: table) }
    // MARK: - The migrator's lock

    /// Tries `BEGIN IMMEDIATE` without waiting: SQLite does not tell who
    /// holds the write lock, only that someone does.
    package func isWriteLockHeldElsewhere(_ db: Database) throws -> Bool {
        do {
            try db.withoutBusyWait {
                try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                try db.execute(sql: "ROLLBACK TRANSACTION")
            }
            return false
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return true
        }
    }

    /// `BEGIN IMMEDIATE` has taken the write lock.
    package func lockMigrations(_ db: Database, table: String, timeout: Duration?, willWait: (_ holder: Int?) -> Void) throws {}

    package func foreignKeysCanBeSuspended(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
    }
}
