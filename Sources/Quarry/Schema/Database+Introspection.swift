// Database+Introspection: reading the schema — which tables exist, their
// columns, primary key, foreign keys and indexes, and foreign key violations.
//
// Table names are bound as arguments of SQLite's table-valued pragma functions
// (https://www.sqlite.org/pragma.html#pragfunc), never spliced into SQL.
// Schema names compare case-insensitively, as SQLite identifiers do. Each
// public method asks the connection's dialect (SQLDialect.swift): SQLite's
// calls the `sqlite…` methods below; a server's reads its catalogs.

extension Database {
    /// Whether a table exists, in the main database or the temp schema.
    ///
    /// ```swift
    /// if try !db.tableExists("player") { … }
    /// ```
    public func tableExists(_ name: String) throws -> Bool {
        try schemaObjectExists(type: .table, name: name)
    }

    /// Whether a view exists, in the main database or the temp schema.
    public func viewExists(_ name: String) throws -> Bool {
        try schemaObjectExists(type: .view, name: name)
    }

    /// Whether a trigger exists, in the main database or the temp schema.
    public func triggerExists(_ name: String) throws -> Bool {
        try schemaObjectExists(type: .trigger, name: name)
    }

    /// Whether an index exists, in the main database or the temp schema.
    public func indexExists(_ name: String) throws -> Bool {
        try schemaObjectExists(type: .index, name: name)
    }

    private func schemaObjectExists(type: SchemaObjectKind, name: String) throws -> Bool {
        try catalog.schemaObjectExists(self, kind: type, name: name)
    }

    /// SQLite's answer to ``SQLDialect/schemaObjectExists(_:kind:name:)``.
    func sqliteSchemaObjectExists(type: String, name: String) throws -> Bool {
        return try Int.fetchOne(
            self,
            sql: """
                SELECT 1 FROM sqlite_master WHERE type = ? AND name = ? COLLATE NOCASE
                UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = ? AND name = ? COLLATE NOCASE
                """,
            arguments: [type, name, type, name]) != nil
    }

    /// Whether triggers exist on a table, in the main or the temporary schema
    /// (<https://www.sqlite.org/schematab.html>).
    public func hasTriggers(on table: String) throws -> Bool {
        try catalog.hasTriggers(self, on: table)
    }

    /// SQLite's answer to ``SQLDialect/hasTriggers(_:on:)``.
    func sqliteHasTriggers(on table: String) throws -> Bool {
        return try Int.fetchOne(
            self,
            sql: """
                SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
                UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
                """,
            arguments: [table, table]) != nil
    }

    /// The columns of a table or view, in order, generated columns included
    /// (<https://www.sqlite.org/pragma.html#pragma_table_xinfo>).
    ///
    /// ```swift
    /// let columns = try db.columns(in: "player")
    /// columns.map(\.name) // ["id", "name", "score"]
    /// ```
    ///
    /// Throws if the table does not exist.
    public func columns(in table: String) throws -> [ColumnInfo] {
        try catalog.columns(self, in: table)
    }

    /// SQLite's answer to ``SQLDialect/columns(_:in:)``.
    func sqliteColumns(in table: String) throws -> [ColumnInfo] {
        let rows = try Row.fetchAll(
            self,
            sql: "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?) WHERE hidden <> 1",
            arguments: [table])
        guard !rows.isEmpty else { throw Database.noSuchTable(table) }
        return try rows.map { row in
            let hidden: Int = try row["hidden"]
            return ColumnInfo(
                name: try row["name"], type: try row["type"] ?? "", isNotNull: try row["notnull"],
                defaultValueSQL: try row["dflt_value"], primaryKeyIndex: try row["pk"],
                isGenerated: hidden == 2 || hidden == 3)
        }
    }

    /// The primary key of a table.
    ///
    /// ```swift
    /// try db.primaryKey("player").columns      // ["id"]
    /// try db.primaryKey("player").rowIDColumn  // "id" for INTEGER PRIMARY KEY
    /// ```
    ///
    /// Throws if the table does not exist.
    public func primaryKey(_ table: String) throws -> PrimaryKeyInfo {
        try catalog.primaryKey(self, table: table)
    }

    /// SQLite's answer to ``SQLDialect/primaryKey(_:table:)``.
    func sqlitePrimaryKey(_ table: String) throws -> PrimaryKeyInfo {
        let keyColumns = try columns(in: table)
            .filter { $0.primaryKeyIndex > 0 }
            .sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        let withoutRowID = try Bool.fetchOne(
            self, sql: "SELECT wr FROM pragma_table_list(?) WHERE type = 'table'", arguments: [table]) ?? false
        if keyColumns.isEmpty {
            return PrimaryKeyInfo(columns: ["rowid"], rowIDColumn: "rowid", isHiddenRowID: true)
        }
        // Only a column declared exactly INTEGER is an alias of the rowid
        // (https://www.sqlite.org/lang_createtable.html#rowid).
        let isRowIDAlias = !withoutRowID && keyColumns.count == 1 && keyColumns[0].type.uppercased() == "INTEGER"
        return PrimaryKeyInfo(
            columns: keyColumns.map(\.name), rowIDColumn: isRowIDAlias ? keyColumns[0].name : nil,
            isHiddenRowID: false)
    }

    /// The foreign keys of a table (<https://www.sqlite.org/pragma.html#pragma_foreign_key_list>).
    ///
    /// ```swift
    /// let keys = try db.foreignKeys(on: "player")
    /// keys[0].destinationTable   // "team"
    /// keys[0].originColumns      // ["team_id"]
    /// keys[0].destinationColumns // ["id"]
    /// ```
    ///
    /// Throws if the table does not exist.
    public func foreignKeys(on table: String) throws -> [ForeignKeyInfo] {
        try catalog.foreignKeys(self, on: table)
    }

    /// SQLite's answer to ``SQLDialect/foreignKeys(_:on:)``.
    func sqliteForeignKeys(on table: String) throws -> [ForeignKeyInfo] {
        guard try tableExists(table) else { throw Database.noSuchTable(table) }
        let rows = try Row.fetchAll(
            self,
            sql: """
                SELECT id, "table", "from", "to", on_update, on_delete
                FROM pragma_foreign_key_list(?) ORDER BY id, seq
                """,
            arguments: [table])
        var keys: [ForeignKeyInfo] = []
        var index = 0
        while index < rows.count {
            let id: Int = try rows[index]["id"]
            var origin: [String] = []
            var destination: [String?] = []
            let first = rows[index]
            while index < rows.count, try rows[index]["id"] as Int == id {
                origin.append(try rows[index]["from"])
                destination.append(try rows[index]["to"])
                index += 1
            }
            let destinationTable: String = try first["table"]
            var destinationColumns = destination.compactMap { $0 }
            if destinationColumns.count != origin.count {
                destinationColumns = try tableExists(destinationTable) ? try primaryKey(destinationTable).columns : []
            }
            keys.append(ForeignKeyInfo(
                id: id, destinationTable: destinationTable, originColumns: origin,
                destinationColumns: destinationColumns,
                onDelete: ForeignKeyAction(rawValue: try first["on_delete"]) ?? .noAction,
                onUpdate: ForeignKeyAction(rawValue: try first["on_update"]) ?? .noAction))
        }
        return keys
    }

    /// The indexes of a table, including those SQLite creates for UNIQUE and
    /// PRIMARY KEY constraints (<https://www.sqlite.org/pragma.html#pragma_index_list>).
    ///
    /// Throws if the table does not exist.
    public func indexes(on table: String) throws -> [IndexInfo] {
        try catalog.indexes(self, on: table)
    }

    /// SQLite's answer to ``SQLDialect/indexes(_:on:)``.
    func sqliteIndexes(on table: String) throws -> [IndexInfo] {
        guard try tableExists(table) else { throw Database.noSuchTable(table) }
        let list = try Row.fetchAll(
            self, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name",
            arguments: [table])
        return try list.map { row in
            let name: String = try row["name"]
            let columns = try Optional<String>.fetchAll(
                self, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [name])
            let origin: String = try row["origin"]
            return IndexInfo(
                name: name, columns: columns.map { $0 ?? "" }, isUnique: try row["unique"],
                origin: IndexInfo.Origin(rawValue: origin) ?? .createIndex, isPartial: try row["partial"])
        }
    }

    /// The rows that refer to missing rows through a foreign key, in one table
    /// or in the whole database (<https://www.sqlite.org/pragma.html#pragma_foreign_key_check>).
    ///
    /// The check runs whether or not foreign keys are enforced on the
    /// connection, so it finds the violations left behind while they were off.
    ///
    /// ```swift
    /// for violation in try db.foreignKeyViolations() {
    ///     print(violation) // row 3 of "track" refers to a missing row of "album"
    /// }
    /// ```
    public func foreignKeyViolations(in table: String? = nil) throws -> [ForeignKeyViolation] {
        // PostgreSQL never leaves violations behind: its foreign keys are always enforced.
        try require(.foreignKeyCheck, "foreignKeyViolations(in:)")
        let rows: [Row]
        if let table {
            guard try tableExists(table) else { throw Database.noSuchTable(table) }
            rows = try Row.fetchAll(
                self, sql: "SELECT \"table\", rowid, parent, fkid FROM pragma_foreign_key_check(?)", arguments: [table])
        } else {
            rows = try Row.fetchAll(self, sql: "SELECT \"table\", rowid, parent, fkid FROM pragma_foreign_key_check()")
        }
        return try rows.map { row in
            ForeignKeyViolation(
                originTable: try row["table"], originRowID: try row["rowid"], destinationTable: try row["parent"],
                foreignKeyID: try row["fkid"])
        }
    }

    package static func noSuchTable(_ table: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
    }
}
