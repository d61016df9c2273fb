// TableRecord: a type tied to a database table, with its name and selection.

import Synchronization

/// A type tied to a database table.
///
/// ```swift
/// struct Player: TableRecord {
///     static let databaseTableName = "players"     // the default would be "player"
/// }
/// let count = try Player.fetchCount(db)          // SELECT COUNT(*) FROM "players"
/// ```
///
/// The default table name is the type name with its leading uppercase letters
/// lowercased, the last one kept when it starts a word: `Player` → `player`,
/// `PlaylistTrack` → `playlistTrack`, `HTTPRequest` → `httpRequest`, `URL` →
/// `url`. Generic arguments are dropped (`Box<Int>` → `box`).
///
/// The primary key is read from the schema (`PRAGMA table_xinfo`,
/// <https://www.sqlite.org/pragma.html#pragma_table_xinfo>) and cached per
/// connection: the declared primary key columns, or the hidden `rowid` for a
/// table that has none.
public protocol TableRecord {
    /// The name of the table.
    static var databaseTableName: String { get }

    /// The column names read by the fetch methods of the type; empty (the
    /// default) selects all columns with `*`.
    ///
    /// ```swift
    /// static let databaseSelection = ["id", "name"]   // SELECT "id", "name" FROM "player"
    /// ```
    static var databaseSelection: [String] { get }

    /// The column that holds the case of an enum record (`"kind"` by default;
    /// see <doc:ColumnGroupsAndEnumRecords>).
    ///
    /// ```swift
    /// enum Media: Codable, FetchableRecord, PersistableRecord {
    ///     static let databaseDiscriminatorColumn = "type"
    ///     case book(Book)
    ///     case film(Film)
    /// }
    /// ```
    static var databaseDiscriminatorColumn: String { get }
}

extension TableRecord {
    /// The type name with its leading uppercase run lowercased (see ``TableRecord``).
    public static var databaseTableName: String { defaultDatabaseTableName(for: Self.self) }

    /// Empty: all columns.
    public static var databaseSelection: [String] { [] }

    /// `"col1", "col2"` or `*`.
    static var selectionSQL: String { RecordStatementSQL.selectionList(databaseSelection) }
}

/// Default table names already computed, by type: deriving one from the type
/// name takes reflection, and persistence methods ask for it on every call.
private let defaultTableNames = Mutex<[ObjectIdentifier: String]>([:])

/// The default table name of a type (see ``TableRecord``), computed once per type.
func defaultDatabaseTableName(for type: Any.Type) -> String {
    let id = ObjectIdentifier(type)
    if let name = defaultTableNames.withLock({ $0[id] }) { return name }
    let name = computeDefaultTableName(for: type)
    defaultTableNames.withLock { $0[id] = name }
    return name
}

private func computeDefaultTableName(for type: Any.Type) -> String {
    var name = String(describing: type)
    if let generic = name.firstIndex(of: "<") { name = String(name[..<generic]) }
    if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
    let characters = Array(name)
    var uppercaseRun = 0
    while uppercaseRun < characters.count, characters[uppercaseRun].isUppercase { uppercaseRun += 1 }
    guard uppercaseRun > 0 else { return name }
    var lowered = uppercaseRun
    // "HTTPRequest": keep the "R" that starts the next word.
    if uppercaseRun > 1, uppercaseRun < characters.count, characters[uppercaseRun].isLowercase { lowered -= 1 }
    return characters[..<lowered].map { $0.lowercased() }.joined() + String(characters[lowered...])
}
