// TableOptions and IndexOptions: the options of CREATE TABLE and CREATE INDEX
// (https://www.sqlite.org/lang_createtable.html, https://www.sqlite.org/lang_createindex.html).

/// Options of ``Database/create(table:options:body:)``.
///
/// ```swift
/// try db.create(table: "setting", options: [.ifNotExists, .strict, .withoutRowID]) { t in
///     t.primaryKey("key", .text)
///     t.column("value", .any)
/// }
/// // CREATE TABLE IF NOT EXISTS "setting" ("key" TEXT PRIMARY KEY, "value" ANY) WITHOUT ROWID, STRICT
/// ```
public struct TableOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing if the table exists (its definition is not compared).
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// `TEMPORARY`: the table lives in the connection's temp schema and
    /// disappears when the connection closes.
    public static let temporary = TableOptions(rawValue: 1 << 1)
    /// `WITHOUT ROWID` (<https://www.sqlite.org/withoutrowid.html>): the
    /// table is stored by its primary key, which it must declare.
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// `STRICT` (<https://www.sqlite.org/stricttables.html>): column types
    /// are enforced, and only INTEGER, REAL, TEXT, BLOB and ANY are allowed.
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// Options of ``Database/create(index:on:columns:options:unique:condition:)``.
public struct IndexOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing if an index of that name exists.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)

    /// `UNIQUE`: no two rows share the same values of the indexed columns.
    public static let unique = IndexOptions(rawValue: 1 << 1)
}
