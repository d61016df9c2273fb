// TableSchema: what the record layer needs to know about a table — its
// columns, primary key, generated columns, unique keys and triggers; for a
// view, which statements its INSTEAD OF triggers accept — read from the
// schema once and cached per connection by RecordCache.

/// The schema facts of one table that persistence depends on.
///
/// An immutable class: every record write reads the cached schema of its
/// table, and copying a struct of nine strings and collections retained and
/// released each of them.
final class TableSchema: Sendable {
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
    /// Whether the rowid column is declared `AUTOINCREMENT`
    /// (<https://www.sqlite.org/autoinc.html>): new rowids then also exceed
    /// every rowid the table ever had, kept in `sqlite_sequence`.
    let isAutoIncrement: Bool
    /// Whether the name is a view (<https://www.sqlite.org/lang_createview.html>).
    let isView: Bool
    /// For a view, the statements that an INSTEAD OF trigger handles
    /// (<https://www.sqlite.org/lang_createtrigger.html#instead_of_triggers>):
    /// SQLite refuses the others.
    let viewWrites: Set<PersistenceStatement>

    /// Reads the schema of `table`.
    convenience init(table: String, db: Database) throws {
        if db.catalog.tablesHaveRowID(db) {
            try self.init(sqliteTable: table, db: db)
        } else {
            try self.init(serverTable: table, db: db)
        }
    }

    /// Reads the schema of `table` on a database server, from the
    /// introspection of its dialect (QuarryPostgres: PostgreSQLDialect+Introspection.swift). A server table has
    /// no rowid: the id of an inserted row comes back through `RETURNING` of
    /// `rowIDColumn`, the one-column integer key the server fills (identity
    /// or serial). The server decides which writes a view accepts (PostgreSQL
    /// updates simple views itself), so none is refused here.
    private init(serverTable table: String, db: Database) throws {
        let columnInfos = try db.columns(in: table)
        let primaryKey = try db.primaryKey(table)
        name = table
        columns = columnInfos.map(\.name)
        generatedColumns = Set(columnInfos.filter(\.isGenerated).map { $0.name.asciiLowercased })
        columnsWithDefault = Set(columnInfos.filter { $0.defaultValueSQL != nil }.map { $0.name.asciiLowercased })
        self.primaryKey = primaryKey.columns
        hasRowID = false
        rowIDColumn = primaryKey.rowIDColumn
        isView = try db.viewExists(table)
        var uniqueKeys: [Set<String>] = primaryKey.columns.isEmpty ? [] : [Set(primaryKey.columns.map { $0.asciiLowercased })]
        for index in isView ? [] : try db.indexes(on: table) where index.isUnique && !index.isPartial {
            if !index.columns.contains("") { uniqueKeys.append(Set(index.columns.map { $0.asciiLowercased })) }
        }
        self.uniqueKeys = uniqueKeys
        hasTriggers = try db.hasTriggers(on: table)
        isAutoIncrement = false
        viewWrites = isView ? [.insert, .update, .delete] : []
    }

    /// Reads the schema of `table` on SQLite (<https://www.sqlite.org/pragma.html#pragma_table_xinfo>).
    private init(sqliteTable table: String, db: Database) throws {
        let columnInfos = try db.columns(in: table)
        let hasRowID: Bool
        do {
            _ = try db.makeStatement(sql: RecordStatementSQL.select("rowid", from: table))
            hasRowID = true
        } catch {
            hasRowID = false
        }
        let keyColumns = columnInfos.filter { $0.primaryKeyIndex > 0 }.sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
        self.name = table
        self.columns = columnInfos.map(\.name)
        self.generatedColumns = Set(columnInfos.filter(\.isGenerated).map { $0.name.asciiLowercased })
        self.columnsWithDefault = Set(columnInfos.filter { $0.defaultValueSQL != nil }.map { $0.name.asciiLowercased })
        self.hasRowID = hasRowID
        if keyColumns.isEmpty {
            primaryKey = hasRowID ? ["rowid"] : []
            rowIDColumn = hasRowID ? "rowid" : nil
        } else {
            primaryKey = keyColumns.map(\.name)
            // Only a column declared exactly INTEGER is an alias of the rowid
            // (https://www.sqlite.org/lang_createtable.html#rowid).
            if hasRowID, keyColumns.count == 1, keyColumns[0].type.uppercased() == "INTEGER" {
                rowIDColumn = keyColumns[0].name
            } else {
                rowIDColumn = hasRowID ? "rowid" : nil
            }
        }
        let isView = try db.viewExists(table)
        var uniqueKeys: [Set<String>] = [Set(primaryKey.map { $0.asciiLowercased })]
        for index in isView ? [] : try db.indexes(on: table) where index.isUnique && !index.isPartial {
            // An index on an expression has an empty column name: it is no key of columns.
            if !index.columns.contains("") { uniqueKeys.append(Set(index.columns.map { $0.asciiLowercased })) }
        }
        self.uniqueKeys = uniqueKeys
        hasTriggers = try db.hasTriggers(on: table)
        if let rowIDColumn, rowIDColumn.asciiLowercased != "rowid" {
            isAutoIncrement = db.isAutoIncrement(column: rowIDColumn, table: table)
        } else {
            isAutoIncrement = false
        }
        self.isView = isView
        viewWrites = isView ? Self.viewWrites(table, columns: columns, db) : []
    }

    /// The statements SQLite accepts on a view: those its INSTEAD OF
    /// triggers handle. SQLite compiles a write on a view only when a trigger
    /// handles it ("cannot modify … because it is a view" otherwise), so each
    /// statement is compiled, never run. The UPDATE sets every column, so that
    /// any `UPDATE OF` trigger counts.
    private static func viewWrites(_ view: String, columns: [String], _ db: Database) -> Set<PersistenceStatement> {
        guard !columns.isEmpty else { return [] }
        let name = view.quotedDatabaseIdentifier
        let columnList = columns.map(\.quotedDatabaseIdentifier)
        let probes: [(PersistenceStatement, String)] = [
            (.insert, "INSERT INTO \(name) (\(columnList.joined(separator: ", "))) VALUES (\(columns.map { _ in "NULL" }.joined(separator: ", ")))"),
            (.update, "UPDATE \(name) SET \(columnList.map { "\($0) = NULL" }.joined(separator: ", "))"),
            (.delete, "DELETE FROM \(name)"),
        ]
        var accepted: Set<PersistenceStatement> = []
        for (statement, sql) in probes where (try? db.makeStatement(sql: sql)) != nil {
            accepted.insert(statement)
        }
        return accepted
    }

    /// Whether `statement` may run: always on a table, only with an
    /// INSTEAD OF trigger on a view (never an upsert, which SQLite refuses on views).
    func accepts(_ statement: PersistenceStatement) -> Bool {
        !isView || viewWrites.contains(statement)
    }

    /// Whether a column is written by INSERT and UPDATE.
    func isWritable(_ column: String) -> Bool {
        generatedColumns.isEmpty || !generatedColumns.contains(column.asciiLowercased)
    }

    /// The table's spelling of `column`, compared without case; `column`
    /// itself when the table has no such column.
    func columnName(matching column: String) -> String {
        if columns.contains(column) { return column }
        let lowercased = column.asciiLowercased
        return columns.first { $0.asciiLowercased == lowercased } ?? column
    }

    /// Whether `columns` is the primary key or a unique index.
    func isUniqueKey(_ columns: [String]) -> Bool {
        let set = Set(columns.map { $0.asciiLowercased })
        return uniqueKeys.contains(set)
    }
}

/// The statements of record persistence, for the refusal of writes on views.
enum PersistenceStatement: String, Hashable {
    case insert = "INSERT"
    case update = "UPDATE"
    case delete = "DELETE"
    /// INSERT … ON CONFLICT, which SQLite refuses on views ("cannot UPSERT a view").
    case upsert = "UPSERT"
}
