// MigrationPlan: what `migrate` would do to a database, read without changing
// it — the migrations applied, those that would run, those the database
// records but the migrator does not know — for start-up logs, health checks
// and an operator's `migrate plan`.

/// What `DatabaseMigrator.migrate(_:)` would do to a database, read
/// without changing it.
///
/// ```swift
/// let plan = try dbPool.read { db in try migrator.plan(db) }
/// print(plan)
/// // 2 applied, 1 pending: addTeamColor
/// ```
public struct MigrationPlan: Sendable, Equatable, CustomStringConvertible {
    /// The registered migrations that are applied, in registration order.
    public var applied: [String]

    /// The migrations `migrate` would apply, in the order it would apply them.
    public var pending: [String]

    /// The migrations the database records that the migrator does not know
    /// (the database was migrated by a newer version of the application).
    public var unknown: [String]

    /// Whether `migrate` would refuse to run: the database records unknown
    /// migrations and ``DatabaseMigrator/unknownMigrationPolicy`` is `.refuse`.
    public var isRefused: Bool

    /// Whether `migrate` may erase the database first
    /// (``DatabaseMigrator/eraseDatabaseOnSchemaChange``, for development).
    public var mayEraseDatabase: Bool

    /// Whether there is nothing to apply, and nothing refused.
    public var isUpToDate: Bool { pending.isEmpty && !isRefused }

    /// One line: `2 applied, 1 pending: addTeamColor`, `up to date (3 applied)`,
    /// or the refusal.
    public var description: String {
        if isRefused {
            return "refused: the database records migrations this application does not know: "
                + unknown.joined(separator: ", ")
        }
        if pending.isEmpty { return "up to date (\(applied.count) applied)" }
        var text = "\(applied.count) applied, \(pending.count) pending: " + pending.joined(separator: ", ")
        if mayEraseDatabase { text += " (the database is erased first if the schema changed)" }
        return text
    }
}

extension DatabaseMigrator {
    /// The registered migrations that are not applied yet, in registration
    /// order: what `migrate(_:)` would apply.
    ///
    /// ```swift
    /// let pending = try dbPool.read { db in try migrator.pendingMigrations(db) }
    /// ```
    public func pendingMigrations(_ db: Database) throws -> [String] {
        plan(recorded: try recordedMigrations(db), upTo: registered.count - 1).pending
    }

    /// What `migrate(_:)` (or `migrate(_:upTo:)` with `name`) would do,
    /// without doing it.
    ///
    /// - throws: ``MigrationError/unregisteredMigration(_:)`` if `name` names
    ///   no migration, ``MigrationError/duplicateMigration(_:)`` for invalid
    ///   registrations, and the errors of reading the database.
    public func plan(_ db: Database, upTo name: String? = nil) throws -> MigrationPlan {
        let target = try targetIndex(upTo: name)
        return plan(recorded: try recordedMigrations(db), upTo: target)
    }

    /// The plan of migrating up to `target` (an index of the registered
    /// migrations, -1 for none), given the migrations the database records:
    /// what `migrate` itself follows, once it holds the lock.
    func plan(recorded: [String], upTo target: Int) -> MigrationPlan {
        let recordedNames = Set(recorded)
        let known = Set(migrations)
        let unknown = recorded.filter { !known.contains($0) }
        let candidates = target >= 0 ? registered[...target].map(\.name) : []
        return MigrationPlan(
            applied: migrations.filter { recordedNames.contains($0) },
            pending: candidates.filter { !recordedNames.contains($0) },
            unknown: unknown,
            isRefused: !unknown.isEmpty && unknownMigrationPolicy == .refuse,
            mayEraseDatabase: eraseDatabaseOnSchemaChange)
    }

    /// The plan of a database, read through `reader`.
    public func plan(_ reader: any DatabaseReader, upTo name: String? = nil) throws -> MigrationPlan {
        try reader.read { db in try plan(db, upTo: name) }
    }
}
