// QueryExpression+FTS5: the auxiliary functions of FTS5 — bm25, highlight and
// snippet (https://www.sqlite.org/fts5.html#_auxiliary_functions_) — as typed
// expressions for `order`, `select` and `annotated(with:)`. Their text
// arguments are bound; columns, named by key paths of the full-text table's
// record, are bound as their index in the table, looked up when SQL is
// generated.
//
// Each function has a form on the request's own record (`Root` is the record
// of the full-text table, so `\.title` is enough) and a disfavored form for
// requests on the content table, whose key paths name the full-text record
// (`\BookFT.title`) or whose first argument is its type.

extension SQLExpression {
    /// A call to an FTS5 auxiliary function on `table`.
    static func fullTextFunction(_ name: String, _ table: String, _ arguments: [SQLFullTextFunction.Argument]) -> SQLExpression {
        SQLExpression(.fullTextFunction(SQLFullTextFunction(name: name, table: table, arguments: arguments)))
    }

    /// `highlight` or `snippet` on the column of `keyPath`, or an invalid
    /// expression naming the key path that names no column.
    static func fullTextColumnFunction<FullText: TableRecord & Decodable, Value>(
        _ name: String, _ keyPath: KeyPath<FullText, Value>, _ values: [DatabaseValue]
    ) -> SQLExpression {
        do {
            let column = try RecordColumns.columnName(for: keyPath)
            return .fullTextFunction(name, FullText.databaseTableName, [.column(column)] + values.map { .value($0) })
        } catch {
            return SQLExpression(.invalid(error))
        }
    }
}

// MARK: - bm25

/// The relevance of the current match, by the BM25 algorithm
/// (<https://www.sqlite.org/fts5.html#the_bm25_function>): lower is better,
/// so order by it ascending. `Root` is the record of the full-text table.
///
/// ```swift
/// BookFT.matching(pattern).order(bm25())
/// // ... WHERE "book_ft" MATCH ? ORDER BY bm25("book_ft")
/// BookFT.matching(pattern).order(bm25(weights: ["title": 10, "body": 0.5]))
/// // ... ORDER BY bm25("book_ft", ?, ?, ?)   [10.0, 1.0, 0.5] for columns title, author, body
/// ```
///
/// - parameter weights: the weight of each column, by column name; the
///   others weigh 1. A name that is not a column of the table makes SQL
///   generation throw.
public func bm25<Root: TableRecord>(weights: [String: Double] = [:]) -> QueryExpression<Root, Double> {
    QueryExpression(.fullTextFunction("bm25", Root.databaseTableName, weights.isEmpty ? [] : [.weights(weights)]))
}

/// The relevance of the current match in the full-text table of `FullText`,
/// for requests on its content table (see ``TableRecord/matching(_:in:)-(_,String)``).
///
/// ```swift
/// Book.matching(pattern, in: BookFT.self).order(bm25(BookFT.self, weights: ["title": 10]))
/// // SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id"
/// // WHERE "book_ft" MATCH ? ORDER BY bm25("book_ft", ?)
/// ```
///
/// - parameters:
///   - table: the record type of the full-text table.
///   - weights: the weight of each column, by column name; the others weigh 1.
public func bm25<FullText: TableRecord, Root>(_ table: FullText.Type, weights: [String: Double] = [:]) -> QueryExpression<Root, Double> {
    QueryExpression(.fullTextFunction("bm25", FullText.databaseTableName, weights.isEmpty ? [] : [.weights(weights)]))
}

// MARK: - highlight

/// The text of a column of the current match, each matched phrase between
/// `open` and `close` (<https://www.sqlite.org/fts5.html#the_highlight_function>).
///
/// ```swift
/// BookFT.matching(pattern).select(highlight(\.title, open: "<b>", close: "</b>"))
/// // SELECT highlight("book_ft", ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ?   [0, "<b>", "</b>", ...]
/// ```
///
/// The markers are bound; SQLite reads them up to their first NUL
/// character. The column's text is returned as stored, not escaped: escape
/// it yourself before showing it as HTML.
///
/// - parameters:
///   - column: the column, a key path of the record of the full-text table.
///   - open: the text inserted before each match.
///   - close: the text inserted after each match.
public func highlight<Root: TableRecord & Decodable, Value>(
    _ column: KeyPath<Root, Value>, open: String, close: String
) -> QueryExpression<Root, String> {
    QueryExpression(.fullTextColumnFunction("highlight", column, [.text(open), .text(close)]))
}

/// The highlighted text of a column of the full-text table of `FullText`, for
/// requests on its content table:
///
/// ```swift
/// Book.matching(pattern, in: BookFT.self)
///     .annotated(with: highlight(\BookFT.title, open: "*", close: "*").forKey("highlightedTitle"))
/// // SELECT "book".*, highlight("book_ft", ?, ?, ?) AS "highlightedTitle" FROM "book" JOIN "book_ft" ...
/// ```
///
/// - parameters:
///   - column: the column, a key path of the record of the full-text table.
///   - open: the text inserted before each match.
///   - close: the text inserted after each match.
@_disfavoredOverload
public func highlight<FullText: TableRecord & Decodable, Root, Value>(
    _ column: KeyPath<FullText, Value>, open: String, close: String
) -> QueryExpression<Root, String> {
    QueryExpression(.fullTextColumnFunction("highlight", column, [.text(open), .text(close)]))
}

// MARK: - snippet

/// A short fragment of a column of the current match, its matches between
/// `open` and `close` (<https://www.sqlite.org/fts5.html#the_snippet_function>).
///
/// ```swift
/// BookFT.matching(pattern).select(snippet(\.body, open: "<b>", close: "</b>", ellipsis: "…", tokenCount: 8))
/// // SELECT snippet("book_ft", ?, ?, ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ?
/// ```
///
/// - parameters:
///   - column: the column, a key path of the record of the full-text table.
///   - open: the text inserted before each match.
///   - close: the text inserted after each match.
///   - ellipsis: the text added where the fragment cuts the column's text.
///   - tokenCount: the most tokens in the fragment, between 1 and 64.
public func snippet<Root: TableRecord & Decodable, Value>(
    _ column: KeyPath<Root, Value>, open: String, close: String, ellipsis: String, tokenCount: Int = 16
) -> QueryExpression<Root, String> {
    QueryExpression(.fullTextColumnFunction(
        "snippet", column, [.text(open), .text(close), .text(ellipsis), .integer(Int64(tokenCount))]))
}

/// A short fragment of a column of the full-text table of `FullText`, for
/// requests on its content table. See
/// ``snippet(_:open:close:ellipsis:tokenCount:)-(KeyPath<Root,Value>,_,_,_,_)``.
///
/// - parameters:
///   - column: the column, a key path of the record of the full-text table.
///   - open: the text inserted before each match.
///   - close: the text inserted after each match.
///   - ellipsis: the text added where the fragment cuts the column's text.
///   - tokenCount: the most tokens in the fragment, between 1 and 64.
@_disfavoredOverload
public func snippet<FullText: TableRecord & Decodable, Root, Value>(
    _ column: KeyPath<FullText, Value>, open: String, close: String, ellipsis: String, tokenCount: Int = 16
) -> QueryExpression<Root, String> {
    QueryExpression(.fullTextColumnFunction(
        "snippet", column, [.text(open), .text(close), .text(ellipsis), .integer(Int64(tokenCount))]))
}

/// A short fragment of the column of the current match that FTS5 finds best
/// (the column argument -1), in the full-text table of `FullText`.
///
/// ```swift
/// BookFT.matching(pattern).select(snippet(BookFT.self, open: "<b>", close: "</b>", ellipsis: "…"))
/// // SELECT snippet("book_ft", ?, ?, ?, ?, ?) FROM "book_ft" WHERE "book_ft" MATCH ?   [-1, ...]
/// ```
///
/// - parameters:
///   - table: the record type of the full-text table.
///   - open: the text inserted before each match.
///   - close: the text inserted after each match.
///   - ellipsis: the text added where the fragment cuts the column's text.
///   - tokenCount: the most tokens in the fragment, between 1 and 64.
public func snippet<FullText: TableRecord, Root>(
    _ table: FullText.Type, open: String, close: String, ellipsis: String, tokenCount: Int = 16
) -> QueryExpression<Root, String> {
    QueryExpression(.fullTextFunction(
        "snippet", FullText.databaseTableName,
        [.value(.integer(-1)), .value(.text(open)), .value(.text(close)), .value(.text(ellipsis)), .value(.integer(Int64(tokenCount)))]))
}
