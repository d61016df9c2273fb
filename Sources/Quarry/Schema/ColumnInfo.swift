// ColumnInfo: a column as the schema describes it, read by `db.columns(in:)`
// from `pragma_table_xinfo` (https://www.sqlite.org/pragma.html#pragma_table_xinfo).

/// A column of a table, as returned by ``Database/columns(in:)``.
public struct ColumnInfo: Hashable, Sendable {
    /// The column name.
    public let name: String
    /// The declared type, as written in the schema (`"INTEGER"`, `"VARCHAR(32)"`),
    /// or an empty string when the column has none.
    public let type: String
    /// Whether the column is `NOT NULL`.
    public let isNotNull: Bool
    /// The SQL of the column's default value (`"0"`, `"'active'"`,
    /// `"CURRENT_TIMESTAMP"`), or nil when it has none.
    public let defaultValueSQL: String?
    /// The 1-based position of the column in the primary key, or 0 when it
    /// is not part of it.
    public let primaryKeyIndex: Int
    /// Whether the column is a generated column (<https://www.sqlite.org/gencol.html>).
    public let isGenerated: Bool

    /// Creates a column description.
    public init(
        name: String, type: String, isNotNull: Bool, defaultValueSQL: String?, primaryKeyIndex: Int,
        isGenerated: Bool = false
    ) {
        self.name = name
        self.type = type
        self.isNotNull = isNotNull
        self.defaultValueSQL = defaultValueSQL
        self.primaryKeyIndex = primaryKeyIndex
        self.isGenerated = isGenerated
    }
}
