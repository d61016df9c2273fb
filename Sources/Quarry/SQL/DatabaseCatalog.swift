// DatabaseCatalog: what a backend answers about a connection's database by
// asking it (introspection queries, the migrator's lock, foreign-key
// suspension, rowids), as opposed to SQLDialect.swift, which only
// spells SQL. Each connection has one (`DatabaseConnection.catalog`):
// SQLite's (SQLiteCatalog.swift) reads its pragmas and C API, PostgreSQL's
// (in QuarryPostgres) its system catalogs.

/// The catalog of a backend: answers that depend on the database behind a
/// connection, each asked on `db`. Not public API: a backend is a target of
/// this package.
package protocol DatabaseCatalog: Sendable {
    // MARK: - Inserted rows

    /// Whether a table has a rowid that identifies its rows on `db`.
    func tablesHaveRowID(_ db: Database) -> Bool

    /// The RETURNING term that gives the id of an inserted row, for a table
    /// whose integer key is `rowIDColumn`; nil when `db` reports it itself
    /// (``Database/lastInsertedRowID``).
    func insertedRowIDReturning(_ db: Database, rowIDColumn: String?) -> String?

    /// Whether the rows RETURNING from a multi-row INSERT on `db` are matched
    /// to its VALUES by position (else by rowid).
    func matchesReturnedRowsByPosition(_ db: Database) -> Bool

    // MARK: - Introspection catalog queries

    /// Whether a schema object of `kind` named `name` exists.
    func schemaObjectExists(_ db: Database, kind: SchemaObjectKind, name: String) throws -> Bool

    /// Whether triggers exist on `table`.
    func hasTriggers(_ db: Database, on table: String) throws -> Bool

    /// The columns of a table or view, in order; throws for a missing table.
    func columns(_ db: Database, in table: String) throws -> [ColumnInfo]

    /// The primary key of a table; throws for a missing table.
    func primaryKey(_ db: Database, table: String) throws -> PrimaryKeyInfo

    /// The foreign keys of a table; throws for a missing table.
    func foreignKeys(_ db: Database, on table: String) throws -> [ForeignKeyInfo]

    /// The indexes of a table; throws for a missing table.
    func indexes(_ db: Database, on table: String) throws -> [IndexInfo]

    // MARK: - The migrator's lock

    /// Whether another connection holds the write lock the migrator is about
    /// to wait for (so that it logs that it waits). Called outside a transaction.
    func isWriteLockHeldElsewhere(_ db: Database) throws -> Bool

    /// Inside the migration's transaction, waits until no other migrator of
    /// the database runs, keyed by the migrator's table `table`. Before
    /// waiting, calls `willWait` with the server process that holds the
    /// lock, if known, and gives up after `timeout` (nil: no limit). A no-op
    /// where the transaction has the write lock.
    func lockMigrations(_ db: Database, table: String, timeout: Duration?, willWait: (_ holder: Int?) -> Void) throws

    /// Whether foreign keys are enforced on `db`, and can be turned off for
    /// the length of a migration (`PRAGMA foreign_keys`).
    func foreignKeysCanBeSuspended(_ db: Database) throws -> Bool
}
