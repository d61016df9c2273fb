// ForeignKeyAction: what SQLite does to referencing rows when a referenced row
// is deleted or its key updated (https://www.sqlite.org/foreignkeys.html#fk_actions).

/// An `ON DELETE` / `ON UPDATE` action of a foreign key:
/// `t.belongsTo("team", onDelete: .cascade)`.
public enum ForeignKeyAction: String, Sendable, CaseIterable {
    /// Deletes (or updates) the referencing rows too.
    case cascade = "CASCADE"
    /// Refuses the change at once, even when the constraint is deferred.
    case restrict = "RESTRICT"
    /// Sets the referencing columns to NULL.
    case setNull = "SET NULL"
    /// Sets the referencing columns to their default values.
    case setDefault = "SET DEFAULT"
    /// Does nothing special: the change fails if it leaves referencing rows
    /// behind when the constraint is checked. SQLite's default.
    case noAction = "NO ACTION"
}
