// Noticing schema changes: the statement cache of a connection, and the
// caches of higher layers (Records/RecordCache.swift), are dropped when the
// schema changes, since `SELECT *` may then return other columns than those
// their layouts describe.
//
// SQLite reads `PRAGMA schema_version`
// (<https://www.sqlite.org/pragma.html#pragma_schema_version>), so that a
// connection of a pool sees the schema changes of the writer. A server has
// no such version: its caches are dropped when this connection changes the
// schema or rolls back (ServerConnection.run moves
// `Database.schemaCheckGeneration`).
//
// Inside a transaction the check runs once: no other connection can change
// the schema the transaction sees, and this connection's own schema changes
// move `Database.schemaCheckGeneration`, which makes the next check run again.

extension Database {
    /// Checks whether the schema changed since the last check; when it did,
    /// empties the statement cache and moves ``schemaChangeCount``.
    func checkSchemaVersion() throws {
        if try connection.schemaChanged(self) {
            clearStatementCache()
            schemaChangeCount &+= 1
        }
    }
}

/// What SQLite's check of the schema version remembers.
final class SQLiteSchemaVersionCheck {
    private var version: Int64 = -1
    private var versionStatement: Statement?
    private var reloadStatement: Statement?
    /// The transaction state and `Database.schemaCheckGeneration` of the last check.
    private var checkedInTransaction = false
    private var checkedGeneration: UInt64 = 0

    /// Whether `PRAGMA schema_version` moved since the last check (false on
    /// the first).
    func schemaChanged(_ db: Database, handle: OpaquePointer) throws -> Bool {
        let inTransaction = !SQLiteConnection.isAutocommit(handle)
        if inTransaction, checkedInTransaction, checkedGeneration == db.schemaCheckGeneration { return false }
        let statement = try Self.statement(&versionStatement, sql: "PRAGMA schema_version", db)
        let current = try statement.firstRow { statement.int64(at: 0) } ?? 0
        var changed = false
        if current != version {
            changed = version != -1
            // The PRAGMA reads the file, not the connection's copy of the schema,
            // which SQLite reloads only when a statement that reads a table runs:
            // run one, so that the statements compiled next see the new schema.
            try Self.statement(&reloadStatement, sql: "SELECT 1 FROM sqlite_master LIMIT 1", db).execute()
            version = current
        }
        // Only a check that succeeded lets the next ones of the transaction skip.
        checkedInTransaction = inTransaction
        checkedGeneration = db.schemaCheckGeneration
        return changed
    }

    /// The statement kept in `slot`, compiled on first use.
    private static func statement(_ slot: inout Statement?, sql: String, _ db: Database) throws -> Statement {
        if let existing = slot { return existing }
        let statement = try db.makeStatement(sql: sql)
        slot = statement
        return statement
    }

    /// Whether `sqliteStatement` is one of the statements of the check, which
    /// are left out of traces and logs: they run before most fetches.
    func isCheckStatement(_ sqliteStatement: OpaquePointer) -> Bool {
        sqliteStatement == versionStatement?.sqliteStatement || sqliteStatement == reloadStatement?.sqliteStatement
    }

    /// Releases the statements; called when the connection closes.
    func finalize() {
        versionStatement?.finalize()
        versionStatement = nil
        reloadStatement?.finalize()
        reloadStatement = nil
    }
}
