// SQLiteDialect: SQLite's answers to every SQLDialect requirement
// (SQLDialect.swift): the SQL Quarry writes on an SQLite connection.
//
// A few requirements depend on the connection rather than on SQL alone
// (whether the connection reports the last inserted rowid, its bound value
// limit): they also serve a database server that speaks SQLite's SQL, the
// test suite's stand-in server, which has neither.
//
// SQLite's introspection, through its pragmas, stays in
// Schema/Database+Introspection.swift, which these requirements call.

import CSQLite

/// SQLite's SQL, the dialect of every SQLite connection.
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var name: String { "SQLite" }

    /// SQLite has every capability: nothing to suggest.
    package func alternative(to capability: DatabaseCapability) -> String? { nil }

    // MARK: - Parameters & scanning

    package var lexicalRules: SQLLexicalRules { .sqlite }

    /// `?NNN`: a server that speaks SQLite's SQL (the tests' stand-in).
    package func parameter(_ number: Int) -> String { "?\(number)" }

    // MARK: - Quoting & literals

    package func literal(_ value: DatabaseValue, columnType: DatabaseColumnType?) -> String {
        value.sqlLiteral
    }

    // MARK: - Transactions

    package func beginTransactionSQL(_ kind: TransactionKind) -> String { "BEGIN \(kind.rawValue) TRANSACTION" }

    // MARK: - Query clauses

    package var bindsKeyListAsJSONArray: Bool { true }
    package var offsetWithoutLimit: String { " LIMIT -1 OFFSET " }
    package var groupsBySelectionPosition: Bool { false }
    package var requiresDerivedTableAlias: Bool { false }
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
    package var allowsNullsOrderingInIndexes: Bool { false }
    package var parenthesizesIndexExpressions: Bool { false }
    package var hasFullTextTables: Bool { true }

    // MARK: - Upsert & conflict spelling

    package func conflictResolutionPrefix(_ conflict: ConflictResolution) -> String { conflict.sqlPrefix }
    package func insertConflictClause(_ conflict: ConflictResolution) -> String { "" }
    package func checkConflictResolution(_ conflict: ConflictResolution, insert: Bool) throws {}
    package var upsertRequiresConflictTarget: Bool { false }
    package var qualifiesUpsertColumns: Bool { false }

    // MARK: - Inserted rows

    /// A server that speaks SQLite's SQL (the tests' stand-in) keeps rowids
    /// to itself.
    package func tablesHaveRowID(_ db: Database) -> Bool { db.connection.supports(.lastInsertedRowID) }

    /// An SQLite connection reports the last inserted rowid; a server that
    /// speaks SQLite's SQL does not.
    package func insertedRowIDReturning(_ db: Database, rowIDColumn: String?) -> String? {
        db.connection.supports(.lastInsertedRowID) ? nil : rowIDColumn?.quotedDatabaseIdentifier
    }

    package func matchesReturnedRowsByPosition(_ db: Database) -> Bool { !db.connection.supports(.lastInsertedRowID) }

    // MARK: - Introspection catalog queries

    package func schemaObjectExists(_ db: Database, kind: SchemaObjectKind, name: String) throws -> Bool {
        try db.sqliteSchemaObjectExists(type: kind.rawValue, name: name)
    }

    package func hasTriggers(_ db: Database, on table: String) throws -> Bool { try db.sqliteHasTriggers(on: table) }
    package func columns(_ db: Database, in table: String) throws -> [ColumnInfo] { try db.sqliteColumns(in: table) }
    package func primaryKey(_ db: Database, table: String) throws -> PrimaryKeyInfo { try db.sqlitePrimaryKey(table) }
    package func foreignKeys(_ db: Database, on table: String) throws -> [ForeignKeyInfo] { try db.sqliteForeignKeys(on: table) }
    package func indexes(_ db: Database, on table: String) throws -> [IndexInfo] { try db.sqliteIndexes(on: table) }
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

    package var keepsBytesOnlyInBlobColumns: Bool { false }

    // MARK: - The migrator's own tables & lock

    package func createMigrationsTableSQL(_ table: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(table.quotedDatabaseIdentifier) (
            name TEXT NOT NULL PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)
        """
    }

    package var migrationsOrderColumn: String { "rowid" }
    package var mayHoldGRDBMigrations: Bool { true }

    /// Tries `BEGIN IMMEDIATE` without waiting: SQLite does not tell who
    /// holds the write lock, only that someone does.
    package func isWriteLockHeldElsewhere(_ db: Database) throws -> Bool {
        do {
            try db.withoutBusyWait {
                try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                try db.execute(sql: "ROLLBACK TRANSACTION")
            }
            return false
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            return true
        }
    }

    /// `BEGIN IMMEDIATE` has taken the write lock.
    package func lockMigrations(_ db: Database, table: String, timeout: Duration?, willWait: (_ holder: Int?) -> Void) throws {}

    package func foreignKeysCanBeSuspended(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") ?? false
    }

    // MARK: - Read-only transactions & statement timeout

    package var statementTimeoutSQL: String? { nil }
    package var beginReadOnlyTransactionSQL: String { "BEGIN DEFERRED TRANSACTION" }
    /// SQLite opens the file read-only (`SQLITE_OPEN_READONLY`).
    package var readOnlySessionSQL: String? { nil }

    // MARK: - Limits

    /// The connection's limit; a server that speaks SQLite's SQL (the tests'
    /// stand-in) gets SQLite's default limit.
    package func boundValueLimit(_ db: Database) -> Int {
        guard let handle = db.sqliteConnection else { return 32_766 }
        return Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }
}
