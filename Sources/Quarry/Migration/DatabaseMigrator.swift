// DatabaseMigrator: named schema migrations, applied once each, in order, at
// application startup. This file holds the registration and the queries about
// applied migrations; DatabaseMigrator+Migrating.swift applies them, and
// DatabaseMigrator+SchemaChange.swift holds the development-only erase option.

import Logging

/// Applies named migrations to a database, once each, in registration order.
///
/// Call it at startup, every time the application starts, on every replica
/// that shares the database file:
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("createPlayer") { db in
///     try db.create(table: "player") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("name", .text).notNull()
///     }
/// }
/// migrator.registerMigration("addPlayerEmail") { db in
///     try db.alter(table: "player") { t in t.add(column: "email", .text) }
/// }
/// try migrator.migrate(dbPool)
/// ```
///
/// Each migration runs in its own `IMMEDIATE` transaction, and its name is
/// recorded in the table `quarry_migrations` in the same transaction: a
/// migration that throws leaves no trace, and the migrations before it stay
/// applied. Once shipped, a migration must never change: add a new one instead.
///
/// Several processes (or pools) can migrate the same file at the same time:
/// the write lock is taken before the list of applied migrations is read, so
/// each migration is applied exactly once.
public struct DatabaseMigrator: Sendable {
    /// How a migration treats foreign keys (<https://www.sqlite.org/foreignkeys.html>).
    ///
    /// Either way, when foreign keys are enabled on the connection
    /// (``Configuration/foreignKeysEnabled``, the default), `PRAGMA
    /// foreign_key_check` runs at the end of the migration, before it
    /// commits, and a violation fails the migration, unless the migration
    /// was registered after ``DatabaseMigrator/disablingDeferredForeignKeyChecks()``.
    /// (GRDB runs this check after deferred migrations only.)
    public enum ForeignKeyChecks: Sendable {
        /// Foreign keys are turned off while the migration runs
        /// (`PRAGMA foreign_keys = OFF`, outside its transaction) and checked
        /// when it ends. The default, as in GRDB: a migration can rebuild a
        /// table that other tables refer to
        /// (<https://www.sqlite.org/lang_altertable.html#otheralter>).
        case deferred
        /// Foreign keys stay enforced while the migration runs: each statement
        /// that breaks one fails at once.
        case immediate
    }

    /// What `migrate(_:)` does when the database records migrations that
    /// are not registered, as when an older version of the application opens
    /// a database migrated by a newer one.
    public enum UnknownMigrationPolicy: Sendable {
        /// Throw ``MigrationError/unknownMigrations(_:)`` without applying
        /// anything. The default: an older binary must not write to a schema
        /// it does not know.
        case refuse
        /// Apply the registered migrations that are not applied yet, and leave
        /// the unknown ones recorded.
        case proceed
    }

    struct Migration: Sendable {
        let name: String
        let foreignKeyChecks: ForeignKeyChecks
        /// Whether `PRAGMA foreign_key_check` runs before the migration
        /// commits: false for the migrations registered after
        /// `disablingDeferredForeignKeyChecks()`.
        var checksForeignKeys = true
        let migrate: @Sendable (Database) throws -> Void
    }

    /// The name of the table where applied migrations are recorded.
    public static let migrationsTableName = "quarry_migrations"

    /// The table where GRDB records the migrations it applied: a database
    /// migrated by GRDB is adopted (see `migrate(_:)`).
    public static let grdbMigrationsTableName = "grdb_migrations"

    var registered: [Migration] = []
    /// Set by `disablingDeferredForeignKeyChecks()`.
    var skipsDeferredForeignKeyChecks = false

    /// What to do with migrations recorded in the database but not registered.
    /// Default: ``UnknownMigrationPolicy/refuse``.
    public var unknownMigrationPolicy: UnknownMigrationPolicy = .refuse

    /// **Development only.** When true, `migrate(_:)` erases the database
    /// and applies all migrations again if the applied migrations no longer
    /// produce the schema on disk: a migration was edited, renamed or removed.
    ///
    /// The check migrates a fresh in-memory database up to the last applied
    /// migration and compares its `sqlite_master` with the file's.
    ///
    /// - warning: This deletes all data. Never enable it in production:
    ///   guard it with `#if DEBUG`.
    public var eraseDatabaseOnSchemaChange = false

    /// Receives what `migrate(_:)` does, with the database's path in the
    /// metadata:
    /// - `.info`: the pending migrations (`2 pending migrations: a, b`), or
    ///   `Database is up to date`; `Applying migration a`, then `Applied
    ///   migration a in 12.3 ms` (metadata `migration`, `duration_ms`); a
    ///   migration another migrator applied meanwhile.
    /// - `.notice`: waiting for a lock another writer or migrator holds (on
    ///   PostgreSQL, with the holder's server process id, `holder_pid`), and
    ///   the erasure of the database (``eraseDatabaseOnSchemaChange``).
    public var logger = Logger(label: "quarry.migrator")

    /// How long `migrate(_:)` waits for another migrator (another replica of
    /// the application) that holds the migration lock, on a database server,
    /// before it throws a `DatabaseError` whose `isBusy` is true and whose
    /// message names the holder's server process. Nil waits as long as the
    /// holder runs. Default: 60 seconds. While it waits, ``logger`` says
    /// whom for (`.notice`, `holder_pid`).
    ///
    /// On SQLite, the migrator's `BEGIN IMMEDIATE` waits for the write lock
    /// up to `Configuration.busyTimeout` instead.
    public var lockTimeout: Duration? = .seconds(60)

    /// Creates a migrator without migrations.
    public init() {}

    /// The names of the registered migrations, in registration order.
    public var migrations: [String] { registered.map(\.name) }

    /// Registers a migration, applied after the ones registered before it.
    ///
    /// ```swift
    /// migrator.registerMigration("createTeam") { db in
    ///     try db.create(table: "team") { t in
    ///         t.autoIncrementedPrimaryKey("id")
    ///         t.column("name", .text).notNull().unique()
    ///     }
    /// }
    /// ```
    ///
    /// The closure runs inside the migration's transaction: do not commit or
    /// roll back in it. Registering two migrations with the same name makes
    /// `migrate(_:)` throw ``MigrationError/duplicateMigration(_:)``.
    ///
    /// - parameters:
    ///   - name: the migration's permanent name, recorded in the database.
    ///   - foreignKeyChecks: `.deferred` (the default) checks foreign keys
    ///     when the migration ends, `.immediate` at each statement; see
    ///     ``ForeignKeyChecks``.
    ///   - migrate: the schema and data changes.
    public mutating func registerMigration(
        _ name: String, foreignKeyChecks: ForeignKeyChecks = .deferred,
        migrate: @escaping @Sendable (Database) throws -> Void
    ) {
        var migration = Migration(name: name, foreignKeyChecks: foreignKeyChecks, migrate: migrate)
        migration.checksForeignKeys = !skipsDeferredForeignKeyChecks
        registered.append(migration)
    }

    /// A migrator whose migrations registered from now on are not checked
    /// for foreign key violations before they commit, as GRDB's method does.
    ///
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("a") { db in … }   // foreign keys off, checked before commit
    /// migrator = migrator.disablingDeferredForeignKeyChecks()
    /// migrator.registerMigration("b") { db in      // foreign keys off, not checked
    ///     …
    ///     try db.checkForeignKeys(in: "book")      // unless the migration checks them itself
    /// }
    /// migrator.registerMigration("c", foreignKeyChecks: .immediate) { db in … }  // enforced at each statement
    /// ```
    ///
    /// A deferred migration (the default) registered after it runs with
    /// `PRAGMA foreign_keys = OFF`, and commits even if it leaves rows that
    /// refer to missing rows. An `.immediate` migration registered after it
    /// still enforces foreign keys at each of its statements, but is not
    /// failed by the violations earlier migrations left. Migrations registered
    /// before it keep their checks. ``Database/checkForeignKeys(in:)`` checks
    /// from within a migration.
    ///
    /// On PostgreSQL it changes nothing: the server checks foreign keys at
    /// each statement (or at commit for `DEFERRABLE` ones), and a migration
    /// that breaks one fails.
    ///
    /// - warning: A migration registered after it can commit rows that break
    ///   foreign keys, and nothing reports them. Use it only for migrations
    ///   whose data you vouch for, when the check is too slow on a large
    ///   database; Quarry's default checks every migration.
    public func disablingDeferredForeignKeyChecks() -> DatabaseMigrator {
        var migrator = self
        migrator.skipsDeferredForeignKeyChecks = true
        return migrator
    }

    // MARK: - Applied migrations

    /// All migration names recorded in the database, in the order they were
    /// applied, including those this migrator does not know.
    ///
    /// For a database migrated by GRDB and never by Quarry, they are the
    /// identifiers in GRDB's `grdb_migrations` table.
    public func recordedMigrations(_ db: Database) throws -> [String] {
        let order = db.sqlDialect.migrationsOrderColumn
        let own = try db.tableExists(Self.migrationsTableName)
            ? try String.fetchAll(
                db, sql: "SELECT name FROM \(Self.migrationsTableName.quotedDatabaseIdentifier) ORDER BY \(order)")
            : []
        return own.isEmpty ? try grdbMigrations(db) : own
    }

    /// The identifiers in GRDB's migrations table, in the order GRDB applied them.
    func grdbMigrations(_ db: Database) throws -> [String] {
        // GRDB writes SQLite files only.
        guard db.sqlDialect.features.contains(.mayHoldGRDBMigrations), try db.tableExists(Self.grdbMigrationsTableName) else { return [] }
        return try String.fetchAll(
            db, sql: "SELECT identifier FROM \(Self.grdbMigrationsTableName.quotedDatabaseIdentifier) ORDER BY rowid")
    }

    /// The names of all applied migrations, registered or not: GRDB's spelling
    /// of `Set(recordedMigrations(db))`.
    public func appliedIdentifiers(_ db: Database) throws -> Set<String> {
        Set(try recordedMigrations(db))
    }

    /// The registered migrations that are applied, in registration order.
    public func appliedMigrations(_ db: Database) throws -> [String] {
        let recorded = Set(try recordedMigrations(db))
        return migrations.filter { recorded.contains($0) }
    }

    /// The registered migrations that are applied along with all the ones
    /// registered before them, in registration order.
    public func completedMigrations(_ db: Database) throws -> [String] {
        let recorded = Set(try recordedMigrations(db))
        return Array(migrations.prefix { recorded.contains($0) })
    }

    /// Whether every registered migration is applied.
    public func hasCompletedMigrations(_ db: Database) throws -> Bool {
        try completedMigrations(db).count == registered.count
    }

    /// The migrations recorded in the database that are not registered, in
    /// the order they were applied.
    public func unknownMigrations(_ db: Database) throws -> [String] {
        let known = Set(migrations)
        return try recordedMigrations(db).filter { !known.contains($0) }
    }

    /// Whether the database records migrations that are not registered: it
    /// was likely migrated by a newer version of the application.
    public func hasBeenSuperseded(_ db: Database) throws -> Bool {
        try !unknownMigrations(db).isEmpty
    }
}
