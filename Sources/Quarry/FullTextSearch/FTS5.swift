// FTS5: the full-text search module of SQLite (https://www.sqlite.org/fts5.html),
// as the `using:` argument of `db.create(virtualTable:using:)`, with the
// options of its tokenizers and its rank column.

/// The FTS5 full-text search module (<https://www.sqlite.org/fts5.html>):
/// pass it to ``Database/create(virtualTable:options:using:_:)`` to create a
/// full-text table.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
///     t.synchronize(withTable: "book")
///     t.tokenizer = .unicode61(diacritics: .remove)
///     t.column("title")
///     t.column("author")
/// }
/// // CREATE VIRTUAL TABLE "book_ft" USING fts5("title", "author",
/// //   tokenize='unicode61 remove_diacritics 2', content='book', content_rowid='id')
/// ```
///
/// The article <doc:FullTextSearch> shows how to create, fill and query
/// full-text tables.
public struct FTS5: Sendable {
    /// How the `unicode61` tokenizer treats diacritics
    /// (<https://www.sqlite.org/fts5.html#unicode61_tokenizer>).
    public enum Diacritics: Sendable, Hashable {
        /// Diacritics are kept: "café" does not match "cafe".
        /// Renders `remove_diacritics 0`.
        case keep
        /// Diacritics are removed from characters made of one Unicode
        /// scalar, SQLite's default: "café" matches "cafe". Renders no option.
        case removeLegacy
        /// Diacritics are removed from all Latin characters, also those
        /// written with combining marks. Renders `remove_diacritics 2`.
        case remove
    }

    /// The FTS5 module.
    public init() {}

    /// The `rank` hidden column of a full-text table, for ordering matches
    /// from the best to the worst (<https://www.sqlite.org/fts5.html#sorting_by_auxiliary_function_results>).
    ///
    /// ```swift
    /// BookFT.matching(pattern).order(FTS5.rank(of: BookFT.self))
    /// // SELECT * FROM "book_ft" WHERE "book_ft" MATCH ? ORDER BY "book_ft"."rank"
    /// ```
    ///
    /// The column is qualified by the table name, so that it also orders
    /// content records joined with ``TableRecord/matching(_:in:)-(_,String)``.
    /// By default the rank is ``bm25(weights:)``: lower is better.
    ///
    /// - parameter table: the record type of the full-text table.
    public static func rank<FullText: TableRecord, Root>(of table: FullText.Type) -> QueryExpression<Root, Double> {
        let name = FullText.databaseTableName
        return QueryExpression(SQLExpression(.interpolated(SQL(elements: [.identifier(name), .text("."), .identifier("rank")]))))
    }
}
