// PersistenceConflictPolicy: the conflict resolution a record type uses when
// its insert and update methods are called without `onConflict:`.

/// The `OR <policy>` a record's `insert` and `update` use when no
/// `onConflict:` argument is given (<https://www.sqlite.org/lang_conflict.html>).
///
/// ```swift
/// struct Tag: Codable, FetchableRecord, PersistableRecord {
///     static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .ignore)
///     var name: String
/// }
/// try Tag(name: "swift").insert(db)
/// // INSERT OR IGNORE INTO "tag" ("name") VALUES (?)
/// ```
///
/// An explicit `onConflict:` argument wins over the policy.
public struct PersistenceConflictPolicy: Sendable, Equatable {
    /// The policy of `insert`, `save` (when it inserts) and their `AndFetch` forms.
    public var conflictResolutionForInsert: ConflictResolution
    /// The policy of `update`, `save` (when it updates) and their `AndFetch` forms.
    public var conflictResolutionForUpdate: ConflictResolution

    /// A policy; both default to ``ConflictResolution/abort``, SQLite's default.
    public init(insert: ConflictResolution = .abort, update: ConflictResolution = .abort) {
        conflictResolutionForInsert = insert
        conflictResolutionForUpdate = update
    }
}
