// ConflictResolution: the `OR <policy>` of INSERT and UPDATE statements.

/// What SQLite does when an INSERT or UPDATE violates a constraint
/// (<https://www.sqlite.org/lang_conflict.html>).
///
/// ```swift
/// try player.insert(db, onConflict: .ignore)
/// // INSERT OR IGNORE INTO "player" ("id", "name", "score") VALUES (?, ?, ?)
/// ```
public enum ConflictResolution: String, Sendable, CaseIterable {
    /// Rolls back the whole transaction and fails.
    case rollback = "ROLLBACK"
    /// Undoes the statement and fails: SQLite's default. Quarry writes no
    /// `OR ABORT` clause for it.
    case abort = "ABORT"
    /// Fails, keeping the changes the statement already made.
    case fail = "FAIL"
    /// Skips the row that violates the constraint, silently.
    case ignore = "IGNORE"
    /// Deletes the rows that conflict, then inserts or updates.
    case replace = "REPLACE"

    /// `""` for ``abort``, `"OR IGNORE "` and so on.
    var sqlPrefix: String { self == .abort ? "" : "OR \(rawValue) " }
}
