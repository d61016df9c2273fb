// VirtualTableOptions: the options of CREATE VIRTUAL TABLE
// (https://www.sqlite.org/lang_createvtab.html).

/// Options of ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", options: [.ifNotExists], using: FTS5()) { t in
///     t.column("title")
/// }
/// // CREATE VIRTUAL TABLE IF NOT EXISTS "book_ft" USING fts5("title")
/// ```
public struct VirtualTableOptions: OptionSet, Sendable {
    /// The options, as bits.
    public let rawValue: Int

    /// Options from their bits.
    ///
    /// - parameter rawValue: the bits of the options.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: does nothing if the table exists (its definition is
    /// not compared). The triggers of a synchronized table are created with
    /// `IF NOT EXISTS` too.
    public static let ifNotExists = VirtualTableOptions(rawValue: 1 << 0)

    /// `TEMP`: the table lives in the connection's temp schema and disappears
    /// when the connection closes. A temporary table cannot be synchronized
    /// with a content table: SQLite cannot rebuild its index.
    public static let temporary = VirtualTableOptions(rawValue: 1 << 1)
}
