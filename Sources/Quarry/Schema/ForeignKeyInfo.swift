// ForeignKeyInfo and ForeignKeyViolation: the foreign keys of a table, read
// from `pragma_foreign_key_list`, and the rows that break them, read from
// `pragma_foreign_key_check` (https://www.sqlite.org/pragma.html#pragma_foreign_key_list,
// https://www.sqlite.org/pragma.html#pragma_foreign_key_check).

/// A foreign key of a table, as returned by ``Database/foreignKeys(on:)``.
public struct ForeignKeyInfo: Hashable, Sendable {
    /// SQLite's identifier of the key within its table.
    public let id: Int
    /// The referenced table.
    public let destinationTable: String
    /// The referencing columns, in key order.
    public let originColumns: [String]
    /// The referenced columns, in key order. When the key names no columns,
    /// they are the primary key of ``destinationTable``; empty if that table
    /// does not exist.
    public let destinationColumns: [String]
    /// The `ON DELETE` action.
    public let onDelete: ForeignKeyAction
    /// The `ON UPDATE` action.
    public let onUpdate: ForeignKeyAction

    /// Creates a foreign key description.
    public init(
        id: Int, destinationTable: String, originColumns: [String], destinationColumns: [String],
        onDelete: ForeignKeyAction, onUpdate: ForeignKeyAction
    ) {
        self.id = id
        self.destinationTable = destinationTable
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
        self.onDelete = onDelete
        self.onUpdate = onUpdate
    }
}

/// A row that breaks a foreign key: it refers to a row that does not exist.
///
/// Returned by ``Database/foreignKeyViolations(in:)``, and reported by
/// ``MigrationError/foreignKeyViolations(migration:violations:)``.
public struct ForeignKeyViolation: Hashable, Sendable, CustomStringConvertible {
    /// The table of the referencing row.
    public let originTable: String
    /// The rowid of the referencing row; nil for a WITHOUT ROWID table.
    public let originRowID: Int64?
    /// The referenced table.
    public let destinationTable: String
    /// SQLite's identifier of the foreign key within ``originTable``
    /// (``ForeignKeyInfo/id``).
    public let foreignKeyID: Int

    /// Creates a violation description.
    public init(originTable: String, originRowID: Int64?, destinationTable: String, foreignKeyID: Int) {
        self.originTable = originTable
        self.originRowID = originRowID
        self.destinationTable = destinationTable
        self.foreignKeyID = foreignKeyID
    }

    /// `row 3 of "track" refers to a missing row of "album"`.
    public var description: String {
        let row = originRowID.map { "row \($0)" } ?? "a row"
        return "\(row) of \(originTable.quotedDatabaseIdentifier) refers to a missing row of \(destinationTable.quotedDatabaseIdentifier)"
    }
}
