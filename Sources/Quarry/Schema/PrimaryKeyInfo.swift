// PrimaryKeyInfo: the primary key of a table, read by `db.primaryKey(_:)`.
//
// See https://www.sqlite.org/lang_createtable.html#rowid for when a column is
// an alias of the rowid, and https://www.sqlite.org/withoutrowid.html.

/// The primary key of a table, as returned by ``Database/primaryKey(_:)``.
public struct PrimaryKeyInfo: Hashable, Sendable {
    /// The key columns, in key order. For a table without a declared primary
    /// key, `["rowid"]`.
    public let columns: [String]
    /// The column that holds the rowid: the `INTEGER PRIMARY KEY` column,
    /// `"rowid"` when the table declares no primary key, nil when the key is
    /// not the rowid (another key type, several columns, or a WITHOUT ROWID table).
    ///
    /// PostgreSQL has no rowid: there, this is the column that plays its
    /// part for records, a one-column integer primary key that the database
    /// fills when it is left out (an identity or `serial` column).
    public let rowIDColumn: String?
    /// Whether the table declares no primary key, so that its key is the hidden rowid.
    public let isHiddenRowID: Bool

    /// Creates a primary key description.
    public init(columns: [String], rowIDColumn: String?, isHiddenRowID: Bool) {
        self.columns = columns
        self.rowIDColumn = rowIDColumn
        self.isHiddenRowID = isHiddenRowID
    }
}
