// FTS5TableDefinition: the body of `db.create(virtualTable:using: FTS5())`,
// which collects columns and options and renders the CREATE VIRTUAL TABLE
// statement, plus, for a table synchronized with a content table, the triggers
// that keep its index up to date and the command that fills it
// (https://www.sqlite.org/fts5.html#external_content_tables).
//
// SQLite forbids parameters in CREATE VIRTUAL TABLE: option values (tokenize=,
// content=, prefix=…) are written with DatabaseValue.sqlLiteral, and names
// with quotedDatabaseIdentifier.

/// The columns and options of an FTS5 table created with
/// ``Database/create(virtualTable:options:using:_:)``.
///
/// ```swift
/// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
///     t.synchronize(withTable: "book")
///     t.tokenizer = .porter(wrapping: .unicode61())
///     t.prefixes = [2, 3]
///     t.column("title")
///     t.column("isbn").notIndexed()
/// }
/// // CREATE VIRTUAL TABLE "book_ft" USING fts5("title", "isbn" UNINDEXED,
/// //   tokenize='porter unicode61', content='book', content_rowid='id', prefix='2 3')
/// ```
///
/// See <https://www.sqlite.org/fts5.html#fts5_table_creation_and_initialization>.
public final class FTS5TableDefinition {
    /// The name of the table being created.
    public let name: String
    let options: VirtualTableOptions
    private(set) var columns: [FTS5ColumnDefinition] = []
    /// The table `synchronize(withTable:)` named.
    private(set) var contentTable: String?

    /// The tokenizer of the table (the `tokenize` option); nil for SQLite's
    /// default, `unicode61` (<https://www.sqlite.org/fts5.html#tokenizers>).
    public var tokenizer: FTS5TokenizerDescriptor?

    /// The lengths of the prefixes to index (the `prefix` option), so that
    /// prefix queries of those lengths are fast
    /// (<https://www.sqlite.org/fts5.html#prefix_indexes>): `[2, 3]` renders
    /// `prefix='2 3'`.
    public var prefixes: Set<Int>?

    /// The table whose rows the full-text table indexes without storing them
    /// (the `content` option, <https://www.sqlite.org/fts5.html#external_content_tables>);
    /// the empty string makes a contentless table
    /// (<https://www.sqlite.org/fts5.html#contentless_tables>). Nothing keeps
    /// the index up to date with this option alone: prefer
    /// ``synchronize(withTable:)``, which sets it.
    public var content: String?

    /// The column of the ``content`` table that full-text rowids refer to
    /// (the `content_rowid` option); the content table's rowid by default.
    public var contentRowID: String?

    init(name: String, options: VirtualTableOptions) {
        self.name = name
        self.options = options
    }

    /// Adds a column: `"name"`. Columns have no type in FTS5.
    ///
    /// - parameter name: the column name.
    /// - returns: the column, to make it ``FTS5ColumnDefinition/notIndexed()``.
    @discardableResult
    public func column(_ name: String) -> FTS5ColumnDefinition {
        let column = FTS5ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the table an index of `tableName`, kept up to date automatically
    /// (<https://www.sqlite.org/fts5.html#external_content_tables>).
    ///
    /// The full-text table stores no text: it reads it from the content
    /// table, whose columns of the same names it indexes. Creating it also
    /// creates three triggers on the content table, which update the index
    /// after each insert, update and delete, and fills the index from the
    /// existing rows:
    ///
    /// ```swift
    /// try db.create(virtualTable: "book_ft", using: FTS5()) { t in
    ///     t.synchronize(withTable: "book")
    ///     t.column("title")
    /// }
    /// // CREATE VIRTUAL TABLE "book_ft" USING fts5("title", content='book', content_rowid='id')
    /// // CREATE TRIGGER "__book_ft_ai" AFTER INSERT ON "book" BEGIN
    /// //   INSERT INTO "book_ft"("rowid", "title") VALUES (new."id", new."title"); END
    /// // CREATE TRIGGER "__book_ft_ad" AFTER DELETE ON "book" BEGIN
    /// //   INSERT INTO "book_ft"("book_ft", "rowid", "title") VALUES ('delete', old."id", old."title"); END
    /// // CREATE TRIGGER "__book_ft_au" AFTER UPDATE ON "book" BEGIN ... END
    /// // INSERT INTO "book_ft"("book_ft") VALUES ('rebuild')
    /// ```
    ///
    /// The content table needs a rowid (it cannot be `WITHOUT ROWID`); its
    /// INTEGER PRIMARY KEY, if any, becomes `content_rowid`. Dropping the
    /// full-text table with ``Database/drop(table:ifExists:)`` drops the triggers too.
    ///
    /// - parameter tableName: the content table.
    public func synchronize(withTable tableName: String) {
        contentTable = tableName
    }

    /// The statements that create the table: CREATE VIRTUAL TABLE, then, for
    /// a synchronized table, its triggers and the rebuild command.
    func statements(_ db: Database) throws -> [String] {
        guard !columns.isEmpty else {
            throw DatabaseError.misuse("the FTS5 table \(name) must have at least one column")
        }
        var arguments = columns.map { $0.name.quotedDatabaseIdentifier + ($0.isIndexed ? "" : " UNINDEXED") }
        if let tokenizer {
            arguments.append("tokenize=" + DatabaseValue.text(try tokenizer.optionValue()).sqlLiteral)
        }
        var content = content
        var contentRowID = contentRowID
        var synchronization: [String] = []
        if let contentTable {
            if options.contains(.temporary) {
                throw DatabaseError.misuse(
                    "the temporary FTS5 table \(name) cannot be synchronized with \(contentTable): "
                        + "SQLite cannot rebuild the index of a temporary table")
            }
            guard try db.tableExists(contentTable) else { throw Database.noSuchTable(contentTable) }
            let withoutRowID = try Bool.fetchOne(
                db, sql: "SELECT wr FROM pragma_table_list(?) WHERE type = 'table'", arguments: [contentTable]) ?? false
            if withoutRowID {
                throw DatabaseError.misuse(
                    "the FTS5 table \(name) cannot be synchronized with \(contentTable), a WITHOUT ROWID table: "
                        + "FTS5 indexes rows by rowid")
            }
            // SQLite's own error for a missing column comes from the rebuild
            // command, as a bare "SQL logic error": check them first.
            let contentColumns = Set(try db.columns(in: contentTable).map { $0.name.asciiLowercased })
            for column in columns where !contentColumns.contains(column.name.asciiLowercased) {
                throw DatabaseError.misuse(
                    "the FTS5 table \(name) cannot be synchronized with \(contentTable): \(contentTable) has no column \(column.name)")
            }
            // An INTEGER PRIMARY KEY is the rowid under its own name.
            let primaryKey = try db.primaryKey(contentTable)
            let rowIDColumn = primaryKey.isHiddenRowID ? nil : primaryKey.rowIDColumn
            content = contentTable
            contentRowID = rowIDColumn
            synchronization = synchronizationStatements(contentTable: contentTable, rowID: rowIDColumn ?? "rowid")
        }
        if let content { arguments.append("content=" + DatabaseValue.text(content).sqlLiteral) }
        if let contentRowID { arguments.append("content_rowid=" + DatabaseValue.text(contentRowID).sqlLiteral) }
        if let prefixes, !prefixes.isEmpty {
            arguments.append("prefix=" + DatabaseValue.text(prefixes.sorted().map(String.init).joined(separator: " ")).sqlLiteral)
        }
        var create = "CREATE VIRTUAL TABLE "
        if options.contains(.ifNotExists) { create += "IF NOT EXISTS " }
        if options.contains(.temporary) { create += "temp." }
        create += name.quotedDatabaseIdentifier + " USING fts5(" + arguments.joined(separator: ", ") + ")"
        return [create] + synchronization
    }

    /// The triggers that keep the index in step with `contentTable`, and the
    /// command that indexes its existing rows
    /// (<https://www.sqlite.org/fts5.html#the_rebuild_command>). The
    /// triggers are named as GRDB names them, so that tables created by
    /// either library are dropped alike.
    private func synchronizationStatements(contentTable: String, rowID: String) -> [String] {
        let table = name.quotedDatabaseIdentifier
        let indexed = ["rowid"] + columns.map(\.name)
        let targetColumns = "(" + indexed.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        let deleteColumns = "(" + ([name] + indexed).map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
        let sourceColumns = [rowID] + columns.map(\.name)
        func values(_ row: String) -> String {
            sourceColumns.map { "\(row)." + $0.quotedDatabaseIdentifier }.joined(separator: ", ")
        }
        let delete = DatabaseValue.text("delete").sqlLiteral
        let insertNew = "INSERT INTO \(table)\(targetColumns) VALUES (\(values("new")));"
        let deleteOld = "INSERT INTO \(table)\(deleteColumns) VALUES (\(delete), \(values("old")));"
        let ifNotExists = options.contains(.ifNotExists) ? "IF NOT EXISTS " : ""
        let on = " ON " + contentTable.quotedDatabaseIdentifier + " BEGIN "
        return [
            "CREATE TRIGGER \(ifNotExists)" + Self.triggerName(name, "ai").quotedDatabaseIdentifier + " AFTER INSERT" + on
                + insertNew + " END",
            "CREATE TRIGGER \(ifNotExists)" + Self.triggerName(name, "ad").quotedDatabaseIdentifier + " AFTER DELETE" + on
                + deleteOld + " END",
            "CREATE TRIGGER \(ifNotExists)" + Self.triggerName(name, "au").quotedDatabaseIdentifier + " AFTER UPDATE" + on
                + deleteOld + " " + insertNew + " END",
            "INSERT INTO \(table)(\(table)) VALUES (\(DatabaseValue.text("rebuild").sqlLiteral))",
        ]
    }

    /// `__<table>_ai`, `__<table>_ad`, `__<table>_au`: the synchronization
    /// triggers of a full-text table.
    static func triggerName(_ table: String, _ suffix: String) -> String {
        Database.synchronizationTriggerName(table, suffix)
    }
}

/// A column of an FTS5 table, added with ``FTS5TableDefinition/column(_:)``.
public final class FTS5ColumnDefinition {
    /// The column name.
    public let name: String
    private(set) var isIndexed = true

    init(name: String) {
        self.name = name
    }

    /// Stores the column without indexing it: `"name" UNINDEXED`. Its values
    /// are returned by queries, and never matched
    /// (<https://www.sqlite.org/fts5.html#the_unindexed_column_option>).
    ///
    /// - returns: the column.
    @discardableResult
    public func notIndexed() -> Self {
        isIndexed = false
        return self
    }
}
