// MigrationError: why DatabaseMigrator stopped.

/// The error thrown by ``DatabaseMigrator`` when it cannot migrate a database.
///
/// ```swift
/// do {
///     try migrator.migrate(dbPool)
/// } catch let error as MigrationError {
///     logger.critical("\(error)")  // migration "addEmail" failed: SQLite error 1: ...
///     throw error
/// }
/// ```
public enum MigrationError: Error, CustomStringConvertible {
    /// A migration threw: its changes were rolled back and it was not
    /// recorded. Earlier migrations stay applied.
    case migrationFailed(migration: String, underlyingError: any Error)

    /// A migration left rows that refer to missing rows: it was rolled back
    /// and not recorded.
    case foreignKeyViolations(migration: String, violations: [ForeignKeyViolation])

    /// The database records migrations this migrator does not know, such as
    /// migrations of a newer version of the application. Nothing was applied.
    /// See ``DatabaseMigrator/unknownMigrationPolicy``.
    case unknownMigrations([String])

    /// `DatabaseMigrator.migrate(_:upTo:)` names a migration that is not registered.
    case unregisteredMigration(String)

    /// Two migrations were registered with the same name. Nothing was applied.
    case duplicateMigration(String)

    /// The name of the migration that failed, if the error is about one.
    public var migration: String? {
        switch self {
        case .migrationFailed(let migration, _), .foreignKeyViolations(let migration, _): return migration
        case .unregisteredMigration(let migration), .duplicateMigration(let migration): return migration
        case .unknownMigrations: return nil
        }
    }

    /// A sentence naming the migration and the cause.
    public var description: String {
        switch self {
        case .migrationFailed(let migration, let error):
            return "migration \"\(migration)\" failed and was rolled back: \(error)"
        case .foreignKeyViolations(let migration, let violations):
            let shown = violations.prefix(10).map(\.description).joined(separator: "; ")
            let more = violations.count > 10 ? " (and \(violations.count - 10) more)" : ""
            return "migration \"\(migration)\" was rolled back because it leaves foreign key violations: \(shown)\(more)"
        case .unknownMigrations(let names):
            return "the database was migrated by a newer version of the application: it records migrations "
                + "this version does not know (\(names.map { "\"\($0)\"" }.joined(separator: ", "))). "
                + "Set DatabaseMigrator.unknownMigrationPolicy to .proceed to open it anyway."
        case .unregisteredMigration(let migration):
            return "no migration named \"\(migration)\" is registered"
        case .duplicateMigration(let migration):
            return "the migration \"\(migration)\" is registered twice"
        }
    }
}
