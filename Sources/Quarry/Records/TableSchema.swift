// TableSchema: what the record layer needs to know about a table — its
// columns, primary key, generated columns, unique keys and triggers — read
// from the schema once and cached per connection by RecordCache.

import CSQLite

/// The schema facts of one table that persistence depends on.
struct TableSchema {
    /// The table name, as the user spelled it.
    let name: String
    /// All column names, including generated columns, in order.
    let columns: [String]
    /// Lowercased names of generated columns: never written.
    let generatedColumns: Set<String>
    /// Lowercased names of columns with a DEFAULT: a NULL for them is left out
    /// of INSERT so that the default applies.
    let columnsWithDefault: Set<String>
    /// The primary key columns, in key order; `["rowid"]` for a rowid table
    /// without a declared primary key.
    let primaryKey: [String]
    /// Whether the table has a rowid (it is not `WITHOUT ROWID`).
    let hasRowID: Bool
    /// The column that holds the rowid: the INTEGER PRIMARY KEY column,
    /// `rowid` when the key is hidden, nil for a WITHOUT ROWID table.
    let rowIDColumn: String?
    /// Lowercased column sets that identify at most one row: the primary key
    /// and the non-partial unique indexes.
    let uniqueKeys: [Set<String>]
    /// Whether triggers exist on the table (RETURNING then misses their effects).
    let hasTriggers: Bool

    /// Reads the schema of `table` (<https://www.sqlite.org/pragma.html#pragma_table_xinfo>).
    init(table: String, db: Database) throws {
        var columns: [String] = []
        var generated: Set<String> = []
        var withDefault: Set<String> = []
        var keyColumns: [(position: Int64, name: String, type: String)] = []
        let info = try db.makeStatement(
            sql: "SELECT name, type, dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?)")
        try info.setArguments([table])
        try info.forEachRow {
            let name = try info.decode(String.self, at: 0)
            let type = try info.decodeIfPresent(String.self, at: 1) ?? ""
            columns.append(name)
            if try info.decode(Bool.self, at: 2) { withDefault.insert(name.lowercased()) }
            let position = try info.decode(Int64.self, at: 3)
            if position > 0 { keyColumns.append((position, name, type)) }
            let hidden = try info.decode(Int64.self, at: 4)
            if hidden == 2 || hidden == 3 { generated.insert(name.lowercased()) }
        }
        guard !columns.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table)")
        }
        let hasRowID: Bool
        do {
            _ = try db.makeStatement(sql: "SELECT rowid FROM \(table.quotedDatabaseIdentifier)")
            hasRowID = true
        } catch {
            hasRowID = false
        }
        keyColumns.sort { $0.position < $1.position }
        self.name = table
        self.columns = columns
        self.generatedColumns = generated
        self.columnsWithDefault = withDefault
        self.hasRowID = hasRowID
        if keyColumns.isEmpty {
            primaryKey = hasRowID ? ["rowid"] : []
            rowIDColumn = hasRowID ? "rowid" : nil
        } else {
            primaryKey = keyColumns.map(\.name)
            if hasRowID, keyColumns.count == 1, keyColumns[0].type.uppercased() == "INTEGER" {
                rowIDColumn = keyColumns[0].name
            } else {
                rowIDColumn = hasRowID ? "rowid" : nil
            }
        }
        var uniqueKeys: [Set<String>] = [Set(primaryKey.map { $0.lowercased() })]
        let indexes = try db.makeStatement(
            sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND partial = 0")
        try indexes.setArguments([table])
        var indexNames: [String] = []
        try indexes.forEachRow { indexNames.append(try indexes.decode(String.self, at: 0)) }
        let indexInfo = try db.makeStatement(sql: "SELECT name FROM pragma_index_info(?)")
        for indexName in indexNames {
            try indexInfo.setArguments([indexName])
            var indexColumns: Set<String> = []
            var hasExpression = false
            try indexInfo.forEachRow {
                if let column = try indexInfo.decodeIfPresent(String.self, at: 0) {
                    indexColumns.insert(column.lowercased())
                } else {
                    hasExpression = true
                }
            }
            if !hasExpression { uniqueKeys.append(indexColumns) }
        }
        self.uniqueKeys = uniqueKeys
        let triggers = try db.makeStatement(sql: """
            SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
            UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE
            """)
        try triggers.setArguments([table, table])
        hasTriggers = try triggers.firstRow { true } ?? false
    }

    /// Whether a column is written by INSERT and UPDATE.
    func isWritable(_ column: String) -> Bool {
        generatedColumns.isEmpty || !generatedColumns.contains(column.lowercased())
    }

    /// Whether `columns` is the primary key or a unique index.
    func isUniqueKey(_ columns: [String]) -> Bool {
        let set = Set(columns.map { $0.lowercased() })
        return uniqueKeys.contains(set)
    }
}
