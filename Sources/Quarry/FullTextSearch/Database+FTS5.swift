// Database+FTS5: creating FTS5 tables, dropping their synchronization
// triggers, and validating raw patterns against a table's columns
// (https://www.sqlite.org/fts5.html).
//
// `drop(table:)` (Schema/Database+SchemaDefinition.swift) drops the
// synchronization triggers of a full-text table with it, so that its content
// table stays writable; their names follow the rule of
// `Database.synchronizationTriggerName(_:_:)`, kept in the Schema layer.

extension Database {
    /// Creates an FTS5 full-text table (<https://www.sqlite.org/fts5.html#fts5_table_creation_and_initialization>).
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_ft", options: [.ifNotExists], using: FTS5()) { t in
    ///     t.synchronize(withTable: "book")
    ///     t.tokenizer = .unicode61(diacritics: .remove)
    ///     t.column("title")
    ///     t.column("author")
    /// }
    /// // CREATE VIRTUAL TABLE IF NOT EXISTS "book_ft" USING fts5("title", "author",
    /// //   tokenize='unicode61 remove_diacritics 2', content='book', content_rowid='id')
    /// // (then the triggers and the rebuild command of a synchronized table)
    /// ```
    ///
    /// The table, its triggers and its initial index are created together:
    /// if one statement fails (an unknown tokenizer, a column missing from
    /// the content table), none is kept. Drop the table with ``drop(table:ifExists:)``.
    ///
    /// - parameters:
    ///   - name: the table name.
    ///   - options: `.ifNotExists`, `.temporary`; see ``VirtualTableOptions``.
    ///   - module: `FTS5()` (see ``FTS5``).
    ///   - body: defines the columns and options of the table; see ``FTS5TableDefinition``.
    public func create(
        virtualTable name: String, options: VirtualTableOptions = [], using module: FTS5,
        _ body: (FTS5TableDefinition) throws -> Void
    ) throws {
        try require(.fullTextSearch5, "FTS5 full-text search")
        let definition = FTS5TableDefinition(name: name, options: options)
        try body(definition)
        try executeAtomically(try definition.statements(self))
    }

    /// Drops the triggers that keep the FTS5 table `tableName` synchronized
    /// with its content table (see ``FTS5TableDefinition/synchronize(withTable:)``),
    /// and keeps the table. ``drop(table:ifExists:)`` drops them with the table.
    ///
    /// ```swift
    /// try db.dropFTS5SynchronizationTriggers(forTable: "book_ft")
    /// // DROP TRIGGER IF EXISTS "__book_ft_ai" (and "__book_ft_ad", "__book_ft_au")
    /// ```
    ///
    /// - parameter tableName: the full-text table.
    public func dropFTS5SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["ai", "ad", "au"] {
            let trigger = FTS5TableDefinition.triggerName(tableName, suffix)
            try execute(sql: "DROP TRIGGER IF EXISTS " + trigger.quotedDatabaseIdentifier)
        }
    }

    /// A pattern in the FTS5 query syntax, checked by SQLite against the
    /// columns of `table`, so that column filters (`title: sea`) are allowed.
    ///
    /// ```swift
    /// let pattern = try db.makeFTS5Pattern(rawPattern: "author: hugo", forTable: "book_ft")
    /// ```
    ///
    /// - parameters:
    ///   - rawPattern: a pattern in the [full-text query syntax](https://www.sqlite.org/fts5.html#full_text_query_syntax).
    ///   - table: the full-text table the pattern is for.
    /// - throws: a ``DatabaseError`` if the table does not exist, or if the
    ///   pattern is invalid (see ``FTS5Pattern/init(rawPattern:allowedColumns:)``).
    public func makeFTS5Pattern(rawPattern: String, forTable table: String) throws -> FTS5Pattern {
        guard try tableExists(table) else { throw Database.noSuchTable(table) }
        return try FTS5Pattern(rawPattern: rawPattern, allowedColumns: try columns(in: table).map(\.name))
    }
}
