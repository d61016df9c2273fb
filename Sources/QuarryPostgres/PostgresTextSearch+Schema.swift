// Schema helpers of PostgreSQL full-text search: a stored generated
// `tsvector` column, and GIN indexes on such a column or on a
// `to_tsvector(…)` expression
// (https://www.postgresql.org/docs/current/textsearch-tables.html).
//
// DDL cannot hold bound parameters: the configuration is written as an SQL
// literal (`CAST('english' AS regconfig)`, quotes doubled) by Quarry's
// literal rendering of schema objects (Database.literalSQL), the way
// expression indexes write their values; identifiers are quoted.

import Quarry

extension Database {
    /// Adds a stored generated `tsvector` column to `table`, computed by the
    /// server from `vector` on every insert and update
    /// (<https://www.postgresql.org/docs/current/ddl-generated-columns.html>):
    ///
    /// ```swift
    /// try db.addTextSearchVectorColumn(
    ///     "search_vector", to: "book", as: textSearchVector(\Book.title, \Book.body, configuration: .english))
    /// // ALTER TABLE "book" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS
    /// //   (to_tsvector(CAST('english' AS regconfig), coalesce("title", '') || ' ' || coalesce("body", ''))) STORED
    /// try db.createTextSearchIndex("book_search", on: "book", column: "search_vector")
    /// ```
    ///
    /// Match it with `matching(pattern, in: Column("search_vector"))`. Quarry
    /// does not decode `tsvector`: requests of records select the record's
    /// columns (`Book.select(sql: #""id", "title", "body""#)`) rather than
    /// `*`. PostgreSQL-only; in `create(table:)`, write the column with
    /// `generatedAs(sql:_:)` and `.stored` instead.
    ///
    /// - parameters:
    ///   - name: the new column.
    ///   - table: the table.
    ///   - vector: the document, from ``textSearchVector(_:configuration:)``.
    public func addTextSearchVectorColumn<Root>(
        _ name: String, to table: String, as vector: QueryExpression<Root, PostgresTextSearchVector>
    ) throws {
        let expression = try literalSQL(vector.sqlExpression)
        try execute(sql: "ALTER TABLE " + table.quotedDatabaseIdentifier + " ADD COLUMN " + name.quotedDatabaseIdentifier
            + " tsvector GENERATED ALWAYS AS (" + expression + ") STORED")
    }

    /// Creates a GIN index on a `tsvector` column, which `@@` uses:
    ///
    /// ```swift
    /// try db.createTextSearchIndex("book_search", on: "book", column: "search_vector")
    /// // CREATE INDEX "book_search" ON "book" USING GIN ("search_vector")
    /// ```
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - table: the table.
    ///   - column: the `tsvector` column.
    ///   - options: `.ifNotExists`; see `IndexOptions`.
    public func createTextSearchIndex(_ name: String, on table: String, column: String, options: IndexOptions = []) throws {
        try execute(sql: Self.ginIndexSQL(name, on: table, term: column.quotedDatabaseIdentifier, options: options))
    }

    /// Creates a GIN index on a `to_tsvector(…)` expression, which a search
    /// of the same expression uses, without a stored column:
    ///
    /// ```swift
    /// try db.createTextSearchIndex("book_search", on: "book", vector: textSearchVector(\Book.title, configuration: .english))
    /// // CREATE INDEX "book_search" ON "book" USING GIN ((to_tsvector(CAST('english' AS regconfig), "title")))
    /// Book.matching(pattern, in: textSearchVector(\.title, configuration: .english))   // uses it
    /// ```
    ///
    /// The search must build the same expression: the same columns, in the
    /// same order, and the same configuration (bound in the search, it is
    /// folded into a constant when the server plans the statement).
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - table: the table.
    ///   - vector: the document, from ``textSearchVector(_:configuration:)``.
    ///   - options: `.ifNotExists`; see `IndexOptions`.
    public func createTextSearchIndex<Root>(
        _ name: String, on table: String, vector: QueryExpression<Root, PostgresTextSearchVector>, options: IndexOptions = []
    ) throws {
        let expression = try literalSQL(vector.sqlExpression)
        try execute(sql: Self.ginIndexSQL(name, on: table, term: "(" + expression + ")", options: options))
    }

    /// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] "name" ON "table" USING GIN (term)`.
    private static func ginIndexSQL(_ name: String, on table: String, term: String, options: IndexOptions) -> String {
        var sql = options.contains(.unique) ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        return sql + name.quotedDatabaseIdentifier + " ON " + table.quotedDatabaseIdentifier + " USING GIN (" + term + ")"
    }
}
