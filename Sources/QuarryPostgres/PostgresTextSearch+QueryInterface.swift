// PostgreSQL full-text search in the query interface: the document side
// (a stored `tsvector` column, or `to_tsvector(config, text columns)` from
// key paths), `@@` with a PostgresTextSearchPattern, `ts_rank`/`ts_rank_cd`
// for ordering and `ts_headline` for excerpts, as typed QueryExpressions
// (https://www.postgresql.org/docs/current/textsearch-controls.html).
//
// Every value — configuration, query text, headline options — is bound; the
// SQL text holds only function names, quoted columns and constant literals
// (`''`, `' '`) of this file.

import Quarry

/// The value type of a PostgreSQL `tsvector` expression, for typing
/// `QueryExpression<Root, PostgresTextSearchVector>`: a document as sorted
/// lexemes with their positions
/// (<https://www.postgresql.org/docs/current/datatype-textsearch.html#DATATYPE-TSVECTOR>).
///
/// Quarry does not decode `tsvector` values: match, rank and headline them
/// in SQL. A request of records on a table with a stored `tsvector` column
/// selects the record's columns, so that it does not read the vector:
/// `Book.select(sql: #""id", "title", "body""#)`.
public enum PostgresTextSearchVector: Sendable {}

extension SQLExpression {
    /// `to_tsvector(CAST(? AS regconfig), document)`.
    static func textSearchVector(_ document: SQLExpression, configuration: PostgresTextSearchConfiguration) -> SQLExpression {
        SQLExpression(.function("to_tsvector", [configuration.expression, document], distinct: false))
    }

    /// The text of `columns` as one document: the column itself for one,
    /// `coalesce("a", '') || ' ' || coalesce("b", '')` for several, so that a
    /// NULL column leaves the others searchable.
    static func textSearchDocument(_ columns: [SQLExpression]) -> SQLExpression {
        guard columns.count > 1 else { return columns.first ?? SQLExpression(sql: "''") }
        var elements: [SQL.Element] = []
        for (index, column) in columns.enumerated() {
            if index > 0 { elements.append(.text(" || ' ' || ")) }
            elements += [.text("coalesce("), .expression(column), .text(", '')")]
        }
        return SQLExpression(.interpolated(SQL(elements: elements)))
    }

    /// `vector @@ to_tsquery(…)`, or `FALSE` without a pattern.
    static func textSearchMatch(_ vector: SQLExpression, _ pattern: PostgresTextSearchPattern?) -> SQLExpression {
        guard let pattern else { return SQLExpression(sql: "FALSE") }
        return SQLExpression(.infix("@@", vector, pattern.sqlExpression))
    }
}

/// The document made of text columns, `to_tsvector(config, text)`, for
/// matching, ranking, and an expression index
/// (<https://www.postgresql.org/docs/current/textsearch-tables.html>):
///
/// ```swift
/// textSearchVector(\Book.title, configuration: .english)
/// // to_tsvector(CAST(? AS regconfig), "title")   ["english"]
/// textSearchVector(\Book.title, \Book.body, configuration: .english)
/// // to_tsvector(CAST(? AS regconfig), coalesce("title", '') || ' ' || coalesce("body", ''))   ["english"]
/// ```
///
/// Several columns are joined with a space, so that a phrase can match
/// across the end of one and the start of the next. A NULL column counts as
/// empty text.
///
/// Searching an expression reads every row unless an index has the same
/// expression: see `Database.createTextSearchIndex(_:on:vector:options:)`.
///
/// - parameters:
///   - columns: the text columns, key paths of the record.
///   - configuration: the text search configuration; ``PostgresTextSearchConfiguration/simple`` by default.
public func textSearchVector<Root: Decodable, each Value>(
    _ columns: repeat KeyPath<Root, each Value>, configuration: PostgresTextSearchConfiguration = .simple
) -> QueryExpression<Root, PostgresTextSearchVector> {
    var expressions: [SQLExpression] = []
    for column in repeat each columns {
        expressions.append(QueryExpression(column).sqlExpression)
    }
    return QueryExpression(.textSearchVector(.textSearchDocument(expressions), configuration: configuration))
}

extension QueryExpression where Value == PostgresTextSearchVector {
    /// Whether the document matches `pattern`: `vector @@ to_tsquery(…)`.
    ///
    /// ```swift
    /// Book.filter(textSearchVector(\.title, \.body).matches(pattern))
    /// // WHERE to_tsvector(CAST(? AS regconfig), coalesce("title", '') || ' ' || coalesce("body", ''))
    /// //   @@ to_tsquery(CAST(? AS regconfig), ?)
    /// Book.filter(QueryExpression("search_vector").matches(pattern))
    /// // WHERE "search_vector" @@ to_tsquery(CAST(? AS regconfig), ?)
    /// ```
    ///
    /// - parameter pattern: the pattern; nil matches nothing (`FALSE`).
    public func matches(_ pattern: PostgresTextSearchPattern?) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(.textSearchMatch(sqlExpression, pattern))
    }
}

extension QueryRequest {
    /// Keeps the rows whose document matches `pattern`:
    /// `WHERE vector @@ to_tsquery(CAST(? AS regconfig), ?)`.
    ///
    /// ```swift
    /// let pattern = PostgresTextSearchPattern(matchingAllTokensIn: "old sea", configuration: .english)
    /// Book.all().matching(pattern, in: textSearchVector(\.title, \.body, configuration: .english))
    /// // SELECT * FROM "book" WHERE to_tsvector(CAST(? AS regconfig), coalesce("title", '') || ' ' || coalesce("body", ''))
    /// //   @@ to_tsquery(CAST(? AS regconfig), ?)   ["english", "english", "'old' & 'sea'"]
    /// ```
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing (`WHERE FALSE`).
    ///   - vector: the document, from ``textSearchVector(_:configuration:)``
    ///     or a stored `tsvector` column.
    public func matching(
        _ pattern: PostgresTextSearchPattern?, in vector: QueryExpression<Root, PostgresTextSearchVector>
    ) -> QueryRequest {
        filter(vector.matches(pattern))
    }

    /// Keeps the rows whose stored `tsvector` column matches `pattern`:
    /// `WHERE "search_vector" @@ to_tsquery(CAST(? AS regconfig), ?)`.
    ///
    /// ```swift
    /// Book.all().matching(pattern, in: Column("search_vector"))
    /// // SELECT * FROM "book" WHERE "search_vector" @@ to_tsquery(CAST(? AS regconfig), ?)
    /// ```
    ///
    /// See `Database.addTextSearchVectorColumn(_:to:as:)`
    /// for such a column.
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing (`WHERE FALSE`).
    ///   - column: the `tsvector` column.
    public func matching(_ pattern: PostgresTextSearchPattern?, in column: Column) -> QueryRequest {
        matching(pattern, in: QueryExpression(column))
    }
}

extension TableRecord {
    /// A request for the records whose document matches `pattern`. See
    /// `QueryRequest.matching(_:in:)`.
    ///
    /// ```swift
    /// try Book.matching(pattern, in: textSearchVector(\.title, \.body)).fetchAll(db)
    /// // SELECT * FROM "book" WHERE to_tsvector(…) @@ to_tsquery(CAST(? AS regconfig), ?)
    /// ```
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing.
    ///   - vector: the document.
    public static func matching(
        _ pattern: PostgresTextSearchPattern?, in vector: QueryExpression<Self, PostgresTextSearchVector>
    ) -> QueryRequest<Self, Self> {
        all().matching(pattern, in: vector)
    }

    /// A request for the records whose stored `tsvector` column matches
    /// `pattern`:
    ///
    /// ```swift
    /// try Book.matching(pattern, in: Column("search_vector")).fetchAll(db)
    /// // SELECT * FROM "book" WHERE "search_vector" @@ to_tsquery(CAST(? AS regconfig), ?)
    /// ```
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing.
    ///   - column: the `tsvector` column.
    public static func matching(_ pattern: PostgresTextSearchPattern?, in column: Column) -> QueryRequest<Self, Self> {
        all().matching(pattern, in: column)
    }
}

// MARK: - Ranking

/// How ``tsRank(_:_:normalization:)`` scales a rank by the document's length
/// (<https://www.postgresql.org/docs/current/textsearch-controls.html#TEXTSEARCH-RANKING>),
/// bound as `ts_rank`'s integer flags. Empty (0), the default, ignores the length.
public struct PostgresTextSearchRankNormalization: OptionSet, Sendable, Hashable {
    /// The flags, as `ts_rank` takes them.
    public let rawValue: Int32

    /// Normalization flags from their integer value.
    ///
    /// - parameter rawValue: the bits of `ts_rank`'s normalization argument.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 1: divides the rank by 1 + the logarithm of the document length.
    public static let logLength = Self(rawValue: 1)
    /// 2: divides the rank by the document length.
    public static let length = Self(rawValue: 2)
    /// 4: divides the rank by the mean harmonic distance between extents (`ts_rank_cd` only).
    public static let meanHarmonicDistance = Self(rawValue: 4)
    /// 8: divides the rank by the number of unique words in the document.
    public static let uniqueWords = Self(rawValue: 8)
    /// 16: divides the rank by 1 + the logarithm of the number of unique words.
    public static let logUniqueWords = Self(rawValue: 16)
    /// 32: divides the rank by itself + 1, into the range 0...1.
    public static let rankPlusOne = Self(rawValue: 32)
}

extension SQLExpression {
    /// `name(vector, to_tsquery(…)[, ?])`, the normalization bound when not 0;
    /// `CAST(0 AS REAL)`, the rank of no match, without a pattern.
    static func textSearchRank(
        _ name: String, _ vector: SQLExpression, _ pattern: PostgresTextSearchPattern?,
        _ normalization: PostgresTextSearchRankNormalization
    ) -> SQLExpression {
        guard let pattern else { return SQLExpression(sql: "CAST(0 AS REAL)") }
        var arguments = [vector, pattern.sqlExpression]
        if normalization.rawValue != 0 { arguments.append(.value(.integer(Int64(normalization.rawValue)))) }
        return SQLExpression(.function(name, arguments, distinct: false))
    }
}

/// The relevance of a document to a pattern, PostgreSQL's `ts_rank`: higher
/// is better, so order by it descending (FTS5's `bm25` is the other way).
/// It counts how often the pattern's lexemes appear, weighted by their
/// `setweight` label; it is a `real` from 0 up (about 0.1 for one match in a
/// short document), not comparable across patterns.
///
/// ```swift
/// let vector = textSearchVector(\Book.title, \Book.body, configuration: .english)
/// Book.matching(pattern, in: vector).order(tsRank(vector, pattern).desc)
/// // … ORDER BY ts_rank(to_tsvector(CAST(? AS regconfig), …), to_tsquery(CAST(? AS regconfig), ?)) DESC
/// Book.all().annotated(with: tsRank(QueryExpression("search_vector"), pattern, normalization: .logLength).forKey("rank"))
/// // SELECT *, ts_rank("search_vector", to_tsquery(CAST(? AS regconfig), ?), ?) AS "rank" FROM "book"
/// ```
///
/// - parameters:
///   - vector: the document.
///   - pattern: the pattern; nil gives 0, the rank of no match.
///   - normalization: how the document's length scales the rank.
public func tsRank<Root>(
    _ vector: QueryExpression<Root, PostgresTextSearchVector>, _ pattern: PostgresTextSearchPattern?,
    normalization: PostgresTextSearchRankNormalization = []
) -> QueryExpression<Root, Double> {
    QueryExpression(.textSearchRank("ts_rank", vector.sqlExpression, pattern, normalization))
}

/// The cover density relevance of a document to a pattern, PostgreSQL's
/// `ts_rank_cd`: like ``tsRank(_:_:normalization:)`` (higher is better), and
/// also rewards matches close to each other. It needs the lexemes'
/// positions: a vector stripped of them ranks 0.
///
/// ```swift
/// Book.matching(pattern, in: vector).order(tsRankCD(vector, pattern).desc)
/// // … ORDER BY ts_rank_cd(to_tsvector(…), to_tsquery(CAST(? AS regconfig), ?)) DESC
/// ```
///
/// - parameters:
///   - vector: the document.
///   - pattern: the pattern; nil gives 0, the rank of no match.
///   - normalization: how the document's length scales the rank.
public func tsRankCD<Root>(
    _ vector: QueryExpression<Root, PostgresTextSearchVector>, _ pattern: PostgresTextSearchPattern?,
    normalization: PostgresTextSearchRankNormalization = []
) -> QueryExpression<Root, Double> {
    QueryExpression(.textSearchRank("ts_rank_cd", vector.sqlExpression, pattern, normalization))
}

// MARK: - Headline

/// The text of a column with the words that match `pattern` between
/// `startSelection` and `stopSelection`, PostgreSQL's `ts_headline`
/// (<https://www.postgresql.org/docs/current/textsearch-controls.html#TEXTSEARCH-HEADLINE>):
/// FTS5's `snippet`, or its `highlight` with `highlightAll`.
///
/// ```swift
/// Book.matching(pattern, in: vector)
///     .select(tsHeadline(\.body, pattern, startSelection: "<b>", stopSelection: "</b>"))
/// // SELECT ts_headline(CAST(? AS regconfig), "body", to_tsquery(CAST(? AS regconfig), ?), ?) FROM "book" WHERE …
/// //   [..., "StartSel=\"<b>\", StopSel=\"</b>\""]
/// ```
///
/// The options are one bound text; each marker is written in it in double
/// quotes, double quotes doubled, so a marker never sets another option. The
/// column's text is returned as stored, not escaped: escape it before showing
/// it as HTML. The configuration is the pattern's. The value has the type of
/// the column: NULL for a NULL column.
///
/// - parameters:
///   - column: the text column, a key path of the record.
///   - pattern: the pattern; nil gives the column's text without markers.
///   - startSelection: the text inserted before each match.
///   - stopSelection: the text inserted after each match.
///   - highlightAll: true for the whole text (`HighlightAll=true`), false for
///     a fragment around the matches (by default 15 to 35 words).
///   - maxWords: the most words of a fragment (`MaxWords`), nil for the server's default.
///   - minWords: the fewest words of a fragment (`MinWords`), less than `maxWords`.
public func tsHeadline<Root: Decodable, Value>(
    _ column: KeyPath<Root, Value>, _ pattern: PostgresTextSearchPattern?,
    startSelection: String = "<b>", stopSelection: String = "</b>", highlightAll: Bool = false,
    maxWords: Int? = nil, minWords: Int? = nil
) -> QueryExpression<Root, Value> {
    let text = QueryExpression(column).sqlExpression
    guard let pattern else { return QueryExpression(text) }
    var options = "StartSel=" + headlineOptionValue(startSelection) + ", StopSel=" + headlineOptionValue(stopSelection)
    if highlightAll { options += ", HighlightAll=true" }
    if let maxWords { options += ", MaxWords=" + String(maxWords) }
    if let minWords { options += ", MinWords=" + String(minWords) }
    return QueryExpression(.function("ts_headline", [
        pattern.configuration.expression, text, pattern.sqlExpression, .value(.text(options)),
    ], distinct: false))
}

/// `"value"`, `"` doubled: a value of ts_headline's options, which reads a
/// double-quoted value up to the next lone `"`.
func headlineOptionValue(_ value: String) -> String {
    "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
