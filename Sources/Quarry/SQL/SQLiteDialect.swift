// SQLiteDialect: SQLite's answers to every SQLDialect requirement
// (SQLDialect.swift): the SQL Quarry writes on an SQLite connection.
//
// What SQLite answers by asking the database (introspection, the
// migrator's lock, limits) is its catalog, SQLiteCatalog.swift.

/// SQLite's SQL, the dialect of every SQLite connection.
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var name: String { "SQLite" }

    // MARK: - Parameters & scanning

    package var lexicalRules: SQLLexicalRules { .sqlite }
    package var features: Set<SQLDialectFeature> { [.bindsKeyListAsJSONArray, .mayHoldGRDBMigrations] }

    /// `?NNN`, SQLite's numbered parameter.
    package func parameter(_ number: Int) -> String { "?\(number)" }

    // MARK: - Quoting & literals

    package func literal(_ value: DatabaseValue, columnType: DatabaseColumnType?) -> String {
        value.sqlLiteral
    }

    // MARK: - Transactions

    package func beginTransactionSQL(_ kind: TransactionKind) -> String { "BEGIN \(kind.rawValue) TRANSACTION" }

    // MARK: - Query clauses

    package var offsetWithoutLimit: String { " LIMIT -1 OFFSET " }
    /// SQLite has the empty list (`x IN ()`).
    package func emptyInList(negated: Bool) -> String? { nil }
    package func likePattern(forGlob pattern: SQLExpression) throws -> String? { nil }

    // MARK: - Functions, dates & JSON translation

    /// SQLite's GLOB and text functions stop at a NUL in the text, so the
    /// trailing bytes are compared:
    /// `substr(CAST(x AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)`.
    package func hasSuffix(_ text: SQLExpression, _ suffix: SQLExpression) -> SQLExpression {
        func bytes(_ expression: SQLExpression) -> SQLExpression {
            SQLExpression(.function("CAST", [SQLExpression(.postfix(expression, "AS BLOB"))], distinct: false))
        }
        let suffixBytes = bytes(suffix)
        let tail = SQLExpression(.function(
            "substr", [bytes(text), SQLExpression(.prefix("-", SQLExpression(.function("length", [suffixBytes], distinct: false))))],
            distinct: false))
        return SQLExpression(.infix("=", tail, suffixBytes))
    }

    package func rewrittenFunctionCall(_ name: String, _ arguments: [SQLExpression]) throws -> SQLExpression? { nil }

    /// A JSON member typed by its Swift type: SQLite's `->>` returns SQL
    /// numbers, so the member is read as is.
    package func functionCallSQL(_ name: String, arguments: [String], distinct: Bool, filter: String) -> String? {
        guard name == SQLExpression.jsonNumberFunction || name == SQLExpression.jsonBooleanFunction, let member = arguments.first
        else { return nil }
        return member + filter
    }

    package func jsonPathExtraction(_ json: SQLExpression, path: String) -> SQLExpression? { nil }

    // MARK: - DDL: column types, columns, tables & indexes

    package func columnTypeSQL(_ type: DatabaseColumnType) -> String { type.rawValue }

    package func primaryKeyClause(autoincrement: Bool, type: DatabaseColumnType?) -> String {
        autoincrement ? "PRIMARY KEY AUTOINCREMENT" : "PRIMARY KEY"
    }

    package func checkColumnDefinition(_ column: String, hasConstraintConflictClauses: Bool, isVirtualGenerated: Bool) throws {}
    package func checkTableOptions(_ table: String, _ options: TableOptions) throws {}

    // MARK: - Upsert & conflict spelling

    package func conflictResolutionPrefix(_ conflict: ConflictResolution) -> String { conflict.sqlPrefix }
    package func checkConflictResolution(_ conflict: ConflictResolution, insert: Bool) throws {}

    // MARK: - Introspection spelling

    package func noSuchTable(_ table: String) -> DatabaseError { Database.noSuchTable(table) }

    /// SQLite's type affinity (rules 1 to 5, in order;
    /// <https://www.sqlite.org/datatype3.html#determination_of_column_affinity>).
    package func storageClasses(ofDeclaredType declaredType: String) -> Set<SchemaStorageClass>? {
        let type = declaredType.uppercased()
        if type.contains("INT") { return [.integer] }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return [.text] }
        if type.contains("BLOB") { return [.blob] }
        if type.isEmpty { return nil }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return [.real] }
        return nil
    }


    // MARK: - The migrator's own tables & lock

    package func createMigrationsTableSQL(_ table: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(table.quotedDatabaseIdentifier) (
            name TEXT NOT NULL PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)
        """
    }

    package var migrationsOrderColumn: String { "rowid" }

    // MARK: - Read-only transactions & statement timeout

    package var statementTimeoutSQL: String? { nil }
    package var beginReadOnlyTransactionSQL: String { "BEGIN DEFERRED TRANSACTION" }
    /// SQLite opens the file read-only (`SQLITE_OPEN_READONLY`).
    package var readOnlySessionSQL: String? { nil }
}
