// DatabaseMigrator+Migrating: applying the registered migrations.
//
// Each pending migration runs in its own BEGIN IMMEDIATE transaction
// (https://www.sqlite.org/lang_transaction.html), which first takes the write
// lock and then checks that the migration is still unrecorded: concurrent
// migrators on one file wait for each other instead of applying a migration
// twice. Foreign keys are checked with PRAGMA foreign_key_check before commit
// (https://www.sqlite.org/pragma.html#pragma_foreign_key_check); deferred
// migrations run with PRAGMA foreign_keys = OFF, which only takes effect
// outside a transaction (https://www.sqlite.org/foreignkeys.html#fk_enable).
//
// On a database server (PostgreSQL), DDL is transactional too, but a
// transaction takes no lock that keeps a second migrator out: each
// transaction of the migrator first takes a transaction-level advisory lock
// (https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS),
// keyed by the schema of the migrations table, which makes several replicas
// that start at once apply each migration exactly once, one after the other.

import Logging

extension DatabaseMigrator {
    /// Applies the registered migrations that are not applied yet, in order.
    ///
    /// ```swift
    /// let dbPool = try DatabasePool(path: "/var/lib/app/db.sqlite")
    /// try migrator.migrate(dbPool)
    /// ```
    ///
    /// - throws: ``MigrationError`` when a migration fails (it is rolled back,
    ///   earlier ones stay applied), when the database records unknown
    ///   migrations (nothing is applied, see ``unknownMigrationPolicy``), or
    ///   when the registrations are invalid.
    public func migrate(_ writer: any DatabaseWriter) throws {
        let target = try targetIndex(upTo: nil)
        try writer.writeWithoutTransaction { db in try migrate(db, upTo: target) }
    }

    /// Applies the registered migrations that are not applied yet, up to and
    /// including the migration named `name`.
    ///
    /// - throws: ``MigrationError/unregisteredMigration(_:)`` if no migration
    ///   has that name, and the errors of `migrate(_:)`.
    public func migrate(_ writer: any DatabaseWriter, upTo name: String) throws {
        let target = try targetIndex(upTo: name)
        try writer.writeWithoutTransaction { db in try migrate(db, upTo: target) }
    }

    /// The async variant of `migrate(_:)`: waits for the writer without
    /// blocking the calling task's thread.
    ///
    /// ```swift
    /// try await migrator.migrate(dbPool)
    /// ```
    public func migrate(_ writer: any DatabaseWriter) async throws {
        let target = try targetIndex(upTo: nil)
        try await writer.writeWithoutTransaction { db in try self.migrate(db, upTo: target) }
    }

    /// The async variant of `migrate(_:upTo:)`.
    public func migrate(_ writer: any DatabaseWriter, upTo name: String) async throws {
        let target = try targetIndex(upTo: name)
        try await writer.writeWithoutTransaction { db in try self.migrate(db, upTo: target) }
    }

    /// Validates the registrations and returns the index of the last migration to apply.
    func targetIndex(upTo name: String?) throws -> Int {
        var seen: Set<String> = []
        for migration in registered where !seen.insert(migration.name).inserted {
            throw MigrationError.duplicateMigration(migration.name)
        }
        guard let name else { return registered.count - 1 }
        guard let index = registered.firstIndex(where: { $0.name == name }) else {
            throw MigrationError.unregisteredMigration(name)
        }
        return index
    }

    /// Migrates the connection, outside of any transaction, up to `target`.
    func migrate(_ db: Database, upTo target: Int, logs: Bool = true) throws {
        if db.isInsideTransaction {
            throw DatabaseError.misuse("the migrator cannot run inside a transaction")
        }
        if eraseDatabaseOnSchemaChange {
            try db.require(.schemaComparison, "eraseDatabaseOnSchemaChange")
            try eraseIfSchemaChanged(db, logs: logs)
        }
        var recorded: [String] = []
        // GRDB's identifiers, when the database was migrated by GRDB only:
        // recorded in Quarry's table with the next migration.
        var adopted: [String] = []
        if logs { try announceWriteLockWait(db) }
        try db.inTransaction(.immediate) {
            try lockMigrations(db)
            try createMigrationsTable(db)
            recorded = try recordedMigrations(db)
            adopted = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Self.migrationsTableName.quotedDatabaseIdentifier)") == 0
                ? recorded : []
            return .commit
        }
        let plan = plan(recorded: recorded, upTo: target)
        if plan.isRefused { throw MigrationError.unknownMigrations(plan.unknown) }
        let pendingNames = Set(plan.pending)
        let pending = registered.filter { pendingNames.contains($0.name) }
        if logs {
            let database: Logger.MetadataValue = .string(db.path)
            if pending.isEmpty {
                logger.info(
                    "Database is up to date: \(recorded.count) migrations applied",
                    metadata: ["applied": .stringConvertible(recorded.count), "last_migration": .string(recorded.last ?? ""), "database": database])
            } else {
                logger.info(
                    "\(pending.count) pending migration\(pending.count == 1 ? "" : "s"): \(plan.pending.joined(separator: ", "))",
                    metadata: [
                        "pending": .array(plan.pending.map { .string($0) }),
                        "applied": .stringConvertible(recorded.count), "database": database,
                    ])
            }
        }
        for migration in pending {
            try apply(migration, db, adopting: adopted, logs: logs)
            adopted = []
        }
    }

    /// On SQLite, logs once that the migrator waits for the write lock when
    /// another connection or process holds it (then `BEGIN IMMEDIATE` waits
    /// as usual, up to ``Configuration/busyTimeout``). SQLite does not tell
    /// who holds it. On a server, ``lockMigrations(_:)`` says whom it waits for.
    private func announceWriteLockWait(_ db: Database) throws {
        guard try db.catalog.isWriteLockHeldElsewhere(db) else { return }
        logger.notice(
            "Waiting for the write lock of the database: another connection or process is writing",
            metadata: ["database": .string(db.path)])
    }

    private func createMigrationsTable(_ db: Database) throws {
        try db.execute(sql: db.sqlDialect.createMigrationsTableSQL(Self.migrationsTableName))
    }

    /// Waits for the migrators of other connections (other replicas of the
    /// application) until the current transaction ends, with the dialect's
    /// lock (``SQLDialect/lockMigrations(_:table:timeout:willWait:)``): on
    /// PostgreSQL, an advisory lock keyed by the migrations table of the
    /// current schema. On SQLite, `BEGIN IMMEDIATE` has taken the write lock.
    ///
    /// When another migrator holds the lock, logs once whom it waits for:
    /// the process id of the server's session that holds it.
    private func lockMigrations(_ db: Database) throws {
        try db.catalog.lockMigrations(db, table: Self.migrationsTableName, timeout: lockTimeout) { holder in
            logger.notice(
                "Waiting for the migration lock, held by another migrator\(holder.map { " (server process \($0))" } ?? "")",
                metadata: ["holder_pid": holder.map { .stringConvertible($0) } ?? .string("unknown"), "database": .string(db.path)])
        }
    }

    /// Applies one migration in its own transaction, unless another connection
    /// recorded it in the meantime.
    private func apply(_ migration: Migration, _ db: Database, adopting adopted: [String], logs: Bool) throws {
        // A server checks foreign keys in each statement (or at commit, for
        // DEFERRABLE constraints): there is no pragma to turn off.
        let foreignKeysEnabled = try db.catalog.foreignKeysCanBeSuspended(db)
        let disablesForeignKeys = migration.foreignKeyChecks == .deferred && foreignKeysEnabled
        if disablesForeignKeys {
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
        }
        let clock = ContinuousClock()
        let start = clock.now
        var didApply = false
        if logs {
            logger.info(
                "Applying migration \(migration.name)",
                metadata: ["migration": .string(migration.name), "database": .string(db.path)])
        }
        do {
            try db.inTransaction(.immediate) {
                try lockMigrations(db)
                let isRecorded = try Int.fetchOne(
                    db, sql: "SELECT 1 FROM \(Self.migrationsTableName.quotedDatabaseIdentifier) WHERE name = ?",
                    arguments: [migration.name]) != nil
                if isRecorded {
                    // Applied by a concurrent migrator.
                    if logs {
                        logger.info(
                            "Migration \(migration.name) was applied by another migrator",
                            metadata: ["migration": .string(migration.name), "database": .string(db.path)])
                    }
                    return .commit
                }
                try migration.migrate(db)
                if foreignKeysEnabled && migration.checksForeignKeys {
                    let violations = try db.foreignKeyViolations()
                    if !violations.isEmpty {
                        throw MigrationError.foreignKeyViolations(migration: migration.name, violations: violations)
                    }
                }
                for name in adopted {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO \(Self.migrationsTableName.quotedDatabaseIdentifier) (name) VALUES (?)",
                        arguments: [name])
                }
                try db.execute(
                    sql: "INSERT INTO \(Self.migrationsTableName.quotedDatabaseIdentifier) (name) VALUES (?)",
                    arguments: [migration.name])
                didApply = true
                return .commit
            }
        } catch {
            if disablesForeignKeys {
                // Best effort: the migration error matters more than a failure
                // to restore the pragma, which the next migration retries.
                do { try db.execute(sql: "PRAGMA foreign_keys = ON") } catch {}
            }
            if error is MigrationError { throw error }
            throw MigrationError.migrationFailed(migration: migration.name, underlyingError: error)
        }
        if disablesForeignKeys {
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        if didApply, logs {
            let elapsed = clock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000
                + Double(elapsed.components.attoseconds) / 1e15
            let rounded = (milliseconds * 10).rounded() / 10
            logger.info(
                "Applied migration \(migration.name) in \(rounded) ms",
                metadata: [
                    "migration": .string(migration.name),
                    "duration_ms": .stringConvertible(rounded),
                    "database": .string(db.path),
                ])
        }
    }
}
