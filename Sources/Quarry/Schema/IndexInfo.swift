// IndexInfo: an index of a table, read by `db.indexes(on:)` from
// `pragma_index_list` and `pragma_index_info` (https://www.sqlite.org/pragma.html#pragma_index_list).

/// An index of a table, as returned by ``Database/indexes(on:)``.
public struct IndexInfo: Hashable, Sendable {
    /// Why an index exists.
    public enum Origin: String, Hashable, Sendable {
        /// Created by `CREATE INDEX`.
        case createIndex = "c"
        /// Created by SQLite for a `UNIQUE` constraint.
        case uniqueConstraint = "u"
        /// Created by SQLite for a `PRIMARY KEY` that is not the rowid.
        case primaryKeyConstraint = "pk"
    }

    /// The index name (`sqlite_autoindex_…` for the ones SQLite creates).
    public let name: String
    /// The indexed columns, in index order. A part of the index that is an
    /// expression has no name and appears as an empty string.
    public let columns: [String]
    /// Whether the index is `UNIQUE`.
    public let isUnique: Bool
    /// Why the index exists.
    public let origin: Origin
    /// Whether the index is partial (`CREATE INDEX … WHERE …`).
    public let isPartial: Bool

    /// Creates an index description.
    public init(name: String, columns: [String], isUnique: Bool, origin: Origin, isPartial: Bool) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
        self.origin = origin
        self.isPartial = isPartial
    }
}
