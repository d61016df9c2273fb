// DatabaseColumnType: the declared type of a column in a schema definition.
//
// SQLite derives a column's type affinity from its declared type
// (https://www.sqlite.org/datatype3.html#determination_of_column_affinity);
// STRICT tables accept only INT, INTEGER, REAL, TEXT, BLOB and ANY
// (https://www.sqlite.org/stricttables.html).

/// The declared type of a column: `t.column("score", .integer)`.
///
/// The common names are provided; any other declared type can be written with
/// ``init(rawValue:)``, such as `DatabaseColumnType(rawValue: "VARCHAR(32)")`.
///
/// In a ``TableOptions/strict`` table, only ``integer``, ``real``, ``text``,
/// ``blob`` and ``any`` are allowed: SQLite refuses the others when the table
/// is created.
public struct DatabaseColumnType: RawRepresentable, Hashable, Sendable {
    /// The type as written in SQL, such as `INTEGER`.
    public let rawValue: String

    /// A declared type, written into SQL as is. It must come from your code,
    /// never from user input.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `INTEGER`: integer affinity; an `INTEGER PRIMARY KEY` is the rowid.
    public static let integer = DatabaseColumnType(rawValue: "INTEGER")
    /// `TEXT`: text affinity.
    public static let text = DatabaseColumnType(rawValue: "TEXT")
    /// `REAL`: real affinity.
    public static let real = DatabaseColumnType(rawValue: "REAL")
    /// `DOUBLE`: real affinity.
    public static let double = DatabaseColumnType(rawValue: "DOUBLE")
    /// `BLOB`: no affinity, values are stored as given.
    public static let blob = DatabaseColumnType(rawValue: "BLOB")
    /// `NUMERIC`: numeric affinity.
    public static let numeric = DatabaseColumnType(rawValue: "NUMERIC")
    /// `BOOLEAN`: numeric affinity (Quarry stores `Bool` as 0 and 1).
    public static let boolean = DatabaseColumnType(rawValue: "BOOLEAN")
    /// `DATE`: numeric affinity (Quarry stores `Date` as text).
    public static let date = DatabaseColumnType(rawValue: "DATE")
    /// `DATETIME`: numeric affinity (Quarry stores `Date` as text).
    public static let datetime = DatabaseColumnType(rawValue: "DATETIME")
    /// `JSON`: numeric affinity; SQLite's JSON functions read it as text.
    public static let json = DatabaseColumnType(rawValue: "JSON")
    /// `ANY`: in a STRICT table, a column that accepts any value unchanged.
    public static let any = DatabaseColumnType(rawValue: "ANY")
}
