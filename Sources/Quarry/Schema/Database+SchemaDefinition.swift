// Database+SchemaDefinition: creating, altering and dropping tables and indexes.
//
// Full-text tables are created by FullTextSearch/Database+FTS5.swift;
// `drop(table:)` drops them with their synchronization triggers.
//
// Views and triggers are created from requests and SQL literals in
// QueryInterface/SchemaDefinition+Views.swift and SchemaDefinition+Triggers.swift,
// and dropped in Database+Views.swift. Every identifier is quoted with
// `quotedDatabaseIdentifier`; SQL fragments (checks, defaults, conditions)
// come from the application's code.

extension Database {
    /// Creates a table (<https://www.sqlite.org/lang_createtable.html>).
    ///
    /// ```swift
    /// try db.create(table: "player") { t in
    ///     t.autoIncrementedPrimaryKey("id")
    ///     t.column("name", .text).notNull()
    ///     t.column("score", .integer).notNull().defaults(to: 0)
    /// }
    /// // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT,
    /// //   "name" TEXT NOT NULL, "score" INTEGER NOT NULL DEFAULT 0)
    /// ```
    ///
    /// The table and the indexes of ``ColumnDefinition/indexed()`` and
    /// ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``
    /// columns are created together: if one statement fails, none is kept.
    public func create(
        table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void
    ) throws {
        let definition = TableDefinition(name: name, options: options)
        try body(definition)
        try executeAtomically(try definition.statements(self))
    }

    /// Changes the columns of a table (<https://www.sqlite.org/lang_altertable.html>);
    /// see ``AlterTableDefinition``. The changes are applied together, or not at all.
    public func alter(table name: String, body: (AlterTableDefinition) throws -> Void) throws {
        let definition = AlterTableDefinition(name: name)
        try body(definition)
        try executeAtomically(try definition.statements(sqlDialect))
    }

    /// Renames a table: `ALTER TABLE "name" RENAME TO "newName"`.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE \(name.quotedDatabaseIdentifier) RENAME TO \(newName.quotedDatabaseIdentifier)")
    }

    /// Drops a table and its indexes and triggers: `DROP TABLE "name"`
    /// (<https://www.sqlite.org/lang_droptable.html>).
    ///
    /// ```swift
    /// try db.drop(table: "player")                  // DROP TABLE "player"
    /// try db.drop(table: "player", ifExists: true)  // DROP TABLE IF EXISTS "player"
    /// ```
    ///
    /// With foreign keys enabled, dropping a table deletes its rows first, so
    /// it fails if other tables still refer to them.
    ///
    /// An FTS5 table synchronized with a content table (see
    /// ``FTS5TableDefinition/synchronize(withTable:)``) is dropped with the
    /// triggers that update it, which belong to the content table.
    ///
    /// - parameters:
    ///   - name: the table name.
    ///   - ifExists: when true, a missing table is not an error (the
    ///     default, false, throws as GRDB does).
    public func drop(table name: String, ifExists: Bool = false) throws {
        // Backend conditional: only a backend with FTS5 tables has their
        // synchronization triggers to drop (a capability, not a spelling).
        let triggers = connection.supports(.fullTextSearch5) ? try synchronizationTriggers(ofVirtualTable: name) : []
        var statements = triggers.map { "DROP TRIGGER \($0.quotedDatabaseIdentifier)" }
        statements.append("DROP TABLE \(ifExists ? "IF EXISTS " : "")\(name.quotedDatabaseIdentifier)")
        try executeAtomically(statements)
    }

    /// Creates an index (<https://www.sqlite.org/lang_createindex.html>).
    ///
    /// ```swift
    /// try db.create(index: "player_on_email", on: "player", columns: ["email"],
    ///               unique: true, condition: "email IS NOT NULL")
    /// // CREATE UNIQUE INDEX "player_on_email" ON "player"("email") WHERE email IS NOT NULL
    /// ```
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - table: the indexed table.
    ///   - columns: the indexed columns, in order.
    ///   - options: `.ifNotExists` and other ``IndexOptions``.
    ///   - unique: `UNIQUE`: no two rows share the same values of `columns`.
    ///   - condition: the SQL condition of a partial index
    ///     (<https://www.sqlite.org/partialindex.html>); it must come from
    ///     your code, never from user input.
    public func create(
        index name: String, on table: String, columns: [String], options: IndexOptions = [],
        unique: Bool = false, condition: String? = nil
    ) throws {
        guard !columns.isEmpty else {
            throw DatabaseError.misuse("index \(name) on \(table) must have at least one column")
        }
        try execute(sql: Database.createIndexSQL(
            name: name, table: table, columns: columns, ifNotExists: options.contains(.ifNotExists),
            unique: unique || options.contains(.unique), condition: condition))
    }

    /// Creates an index named after its table and columns, as GRDB names it:
    /// `index_<table>_on_<column>_<column>`.
    ///
    /// ```swift
    /// try db.create(indexOn: "player", columns: ["team_id", "score"], options: [.unique, .ifNotExists])
    /// // CREATE UNIQUE INDEX IF NOT EXISTS "index_player_on_team_id_score" ON "player"("team_id", "score")
    /// ```
    public func create(
        indexOn table: String, columns: [String], options: IndexOptions = [], condition: String? = nil
    ) throws {
        try create(
            index: Database.defaultIndexName(table, columns), on: table, columns: columns, options: options,
            condition: condition)
    }

    /// Drops an index (<https://www.sqlite.org/lang_dropindex.html>).
    ///
    /// ```swift
    /// try db.drop(index: "player_on_email")                  // DROP INDEX "player_on_email"
    /// try db.drop(index: "player_on_email", ifExists: true)  // DROP INDEX IF EXISTS "player_on_email"
    /// ```
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - ifExists: when true, a missing index is not an error (the
    ///     default, false, throws as GRDB does).
    public func drop(index name: String, ifExists: Bool = false) throws {
        try execute(sql: "DROP INDEX \(ifExists ? "IF EXISTS " : "")\(name.quotedDatabaseIdentifier)")
    }

    /// Drops the index that ``create(indexOn:columns:options:condition:)``
    /// created on these columns.
    public func drop(indexOn table: String, columns: [String]) throws {
        try drop(index: Database.defaultIndexName(table, columns))
    }

    /// `index_<table>_on_<column>_<column>`.
    static func defaultIndexName(_ table: String, _ columns: [String]) -> String {
        "index_\(table)_on_\(columns.joined(separator: "_"))"
    }

    /// `CREATE [TEMPORARY] <kind> [IF NOT EXISTS] "name"`: the opening of the
    /// CREATE statements of tables, views and triggers.
    static func createClause(_ kind: String, _ name: String, temporary: Bool, ifNotExists: Bool) -> String {
        "CREATE " + (temporary ? "TEMPORARY " : "") + kind + (ifNotExists ? " IF NOT EXISTS " : " ")
            + name.quotedDatabaseIdentifier
    }

    static func createIndexSQL(
        name: String, table: String, columns: [String], ifNotExists: Bool, unique: Bool, condition: String?
    ) -> String {
        var sql = unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
        if ifNotExists { sql += "IF NOT EXISTS " }
        sql += name.quotedDatabaseIdentifier + " ON " + table.quotedDatabaseIdentifier
        sql += "(" + TableDefinition.columnList(columns) + ")"
        if let condition { sql += " WHERE " + condition }
        return sql
    }

    /// Runs statements in a savepoint, so that they apply together or not at all.
    func executeAtomically(_ statements: [String]) throws {
        if statements.count == 1 {
            try execute(sql: statements[0])
            return
        }
        try inSavepoint {
            for sql in statements { try execute(sql: sql) }
            return .commit
        }
    }
}

extension Database {
    /// `__<table>_ai`, `__<table>_ad`, `__<table>_au`: the triggers that keep
    /// a virtual table (an FTS5 table, FullTextSearch/FTS5TableDefinition.swift)
    /// in sync with its content table.
    static func synchronizationTriggerName(_ table: String, _ suffix: String) -> String {
        "__\(table)_\(suffix)"
    }

    /// The synchronization triggers of `table`, if it is a virtual table
    /// created synchronized with a content table; none otherwise.
    func synchronizationTriggers(ofVirtualTable table: String) throws -> [String] {
        let names = ["ai", "ad", "au"].map { Self.synchronizationTriggerName(table, $0) }
        return try String.fetchAll(
            self,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?) \
                AND EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE \
                AND sql LIKE 'CREATE VIRTUAL TABLE%')
                """,
            arguments: [names[0], names[1], names[2], table])
    }
}
