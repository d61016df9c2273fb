// TableRecord+Matching: full-text requests — `BookFT.matching(pattern)` on the
// FTS5 table itself, and `Book.matching(pattern, in: "book_ft")` on its
// content table, joined by rowid (https://www.sqlite.org/fts5.html#full_text_query_syntax).
// The pattern is always bound; a nil pattern matches nothing, as in GRDB.

extension SQLExpression {
    /// `"table" MATCH ?`, the pattern bound, or `0` (false) without a pattern.
    /// The left operand is the full-text table's hidden column, named after
    /// the table and written unqualified, so that it also works when the
    /// table is joined.
    static func fullTextMatch(_ table: String, _ pattern: FTS5Pattern?) -> SQLExpression {
        guard let pattern else { return SQLExpression(sql: "0") }
        return SQLExpression(.interpolated(SQL(elements: [
            .identifier(table), .text(" MATCH "), .expression(.value(.text(pattern.rawPattern))),
        ])))
    }
}

extension QueryRequest where Root: TableRecord {
    /// Keeps the rows of the full-text table that match `pattern`
    /// (<https://www.sqlite.org/fts5.html#full_text_query_syntax>). `Root` is
    /// a record of the FTS5 table.
    ///
    /// ```swift
    /// let pattern = FTS5Pattern(matchingAllTokensIn: "old sea")
    /// let books = try BookFT.all().matching(pattern).fetchAll(db)
    /// // SELECT * FROM "book_ft" WHERE "book_ft" MATCH ?   ["\"old\" \"sea\""]
    /// ```
    ///
    /// - parameter pattern: the pattern; nil matches nothing (`WHERE 0`).
    public func matching(_ pattern: FTS5Pattern?) -> QueryRequest {
        modified { $0.addFilter(.fullTextMatch(Root.databaseTableName, pattern)) }
    }

    /// Keeps the records whose row matches `pattern` in the full-text table
    /// `table`, which indexes `Root`'s table (see
    /// ``FTS5TableDefinition/synchronize(withTable:)``). The full-text table
    /// is joined on its rowid; none of its columns is selected.
    ///
    /// ```swift
    /// let books = try Book.all().matching(pattern, in: "book_ft").fetchAll(db)
    /// // SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id"
    /// // WHERE "book_ft" MATCH ?
    /// ```
    ///
    /// Order by relevance with ``FTS5/rank(of:)`` or ``bm25(_:weights:)``,
    /// and select ``highlight(_:open:close:)-(KeyPath<FullText,Value>,_,_)`` or
    /// ``snippet(_:open:close:ellipsis:tokenCount:)-(KeyPath<FullText,Value>,_,_,_,_)``
    /// of the full-text table with `annotated(with:)`.
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing (`WHERE 0`).
    ///   - table: the full-text table.
    public func matching(_ pattern: FTS5Pattern?, in table: String) -> QueryRequest {
        modified { query in
            query.joins.append(SQLJoin(
                kind: .inner, tableName: table, key: table, alias: TableAlias(), condition: .rowid, filter: nil,
                isSelected: false))
            query.addFilter(.fullTextMatch(table, pattern))
        }
    }

    /// Keeps the records whose row matches `pattern` in the full-text table
    /// of `FullText`: see ``matching(_:in:)-(_,String)``.
    ///
    /// ```swift
    /// Book.all().matching(pattern, in: BookFT.self)
    /// ```
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing (`WHERE 0`).
    ///   - table: the record type of the full-text table.
    public func matching<FullText: TableRecord>(_ pattern: FTS5Pattern?, in table: FullText.Type) -> QueryRequest {
        matching(pattern, in: FullText.databaseTableName)
    }
}

extension TableRecord {
    /// A request for the rows of the full-text table that match `pattern`;
    /// `Self` is a record of the FTS5 table. See ``QueryRequest/matching(_:)``.
    ///
    /// ```swift
    /// try BookFT.matching(FTS5Pattern(matchingAllTokensIn: "old sea")).fetchAll(db)
    /// // SELECT * FROM "book_ft" WHERE "book_ft" MATCH ?
    /// ```
    ///
    /// - parameter pattern: the pattern; nil matches nothing.
    public static func matching(_ pattern: FTS5Pattern?) -> QueryRequest<Self, Self> {
        all().matching(pattern)
    }

    /// A request for the records that match `pattern` in the full-text table
    /// `table`, which indexes this record's table. See
    /// ``QueryRequest/matching(_:in:)-(_,String)``.
    ///
    /// ```swift
    /// try Book.matching(pattern, in: "book_ft").fetchAll(db)
    /// // SELECT "book".* FROM "book" JOIN "book_ft" ON "book_ft"."rowid" = "book"."id"
    /// // WHERE "book_ft" MATCH ?
    /// ```
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing.
    ///   - table: the full-text table.
    public static func matching(_ pattern: FTS5Pattern?, in table: String) -> QueryRequest<Self, Self> {
        all().matching(pattern, in: table)
    }

    /// A request for the records that match `pattern` in the full-text table
    /// of `FullText`. See ``QueryRequest/matching(_:in:)-(_,String)``.
    ///
    /// - parameters:
    ///   - pattern: the pattern; nil matches nothing.
    ///   - table: the record type of the full-text table.
    public static func matching<FullText: TableRecord>(_ pattern: FTS5Pattern?, in table: FullText.Type) -> QueryRequest<Self, Self> {
        all().matching(pattern, in: FullText.databaseTableName)
    }
}
