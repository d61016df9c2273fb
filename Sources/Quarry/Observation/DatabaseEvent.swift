// DatabaseEvent and DatabaseEventKind: what a transaction observer is told
// about, and what it says it wants to hear about.

/// One row inserted, updated or deleted, as SQLite's update hook reports it
/// (<https://www.sqlite.org/c3ref/update_hook.html>).
///
/// Events are plain values: an observer may keep them.
public struct DatabaseEvent: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the row; the raw value is SQLite's operation code
    /// (`SQLITE_INSERT`, `SQLITE_UPDATE`, `SQLITE_DELETE`), as in GRDB.
    public enum Kind: Int32, Sendable, Hashable {
        /// The row was inserted.
        case insert = 18
        /// The row was updated.
        case update = 23
        /// The row was deleted.
        case delete = 9
    }

    /// What happened to the row.
    public let kind: Kind

    /// The database the table belongs to (`main`, `temp`, or an attached name).
    public let databaseName: String

    /// The table, as the schema spells it.
    public let tableName: String

    /// The rowid of the row (<https://www.sqlite.org/lang_createtable.html#rowid>).
    public let rowID: Int64

    /// Makes an event.
    public init(kind: Kind, databaseName: String = "main", tableName: String, rowID: Int64) {
        self.kind = kind
        self.databaseName = databaseName
        self.tableName = tableName
        self.rowID = rowID
    }

    /// `insert player(1)`.
    public var description: String { "\(kind) \(tableName)(\(rowID))" }
}

/// A kind of change a statement may make, as a transaction observer is asked
/// about it in ``TransactionObserver/observes(eventsOfKind:)``.
///
/// For an `UPDATE`, the kind lists the columns the statement assigns.
public enum DatabaseEventKind: Sendable, Hashable, CustomStringConvertible {
    /// Rows inserted into a table.
    case insert(tableName: String)
    /// Rows deleted from a table.
    case delete(tableName: String)
    /// Columns of rows updated in a table.
    case update(tableName: String, columnNames: Set<String>)

    /// The table of the change.
    public var tableName: String {
        switch self {
        case .insert(let tableName), .delete(let tableName), .update(let tableName, _): return tableName
        }
    }

    /// Whether `event` is a change of this kind (same table, compared without
    /// regard to case as SQLite does, and same kind of change).
    public func matches(_ event: DatabaseEvent) -> Bool {
        switch (self, event.kind) {
        case (.insert, .insert), (.delete, .delete), (.update, .update):
            return tableName.caseInsensitiveEquals(event.tableName)
        default:
            return false
        }
    }

    /// `update player(name, score)`.
    public var description: String {
        switch self {
        case .insert(let tableName): return "insert \(tableName)"
        case .delete(let tableName): return "delete \(tableName)"
        case .update(let tableName, let columnNames): return "update \(tableName)(\(columnNames.sorted().joined(separator: ", ")))"
        }
    }
}

extension String {
    /// Compares ASCII letters without regard to case, as SQLite compares
    /// identifiers (`sqlite3_stricmp`: up to the first NUL).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        other.withCString { caseInsensitiveEquals($0) }
    }

    /// The same comparison with a C string (the update hook's table name);
    /// allocates nothing for a native string.
    func caseInsensitiveEquals(_ other: UnsafePointer<CChar>) -> Bool {
        withCString { this in
            var index = 0
            while Self.lowercasedASCII(this[index]) == Self.lowercasedASCII(other[index]) {
                if this[index] == 0 { return true }
                index += 1
            }
            return false
        }
    }

    private static func lowercasedASCII(_ byte: CChar) -> CChar { (65...90).contains(byte) ? byte | 0x20 : byte }
}
