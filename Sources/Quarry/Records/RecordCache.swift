// RecordCache: per-connection caches of the record layer.
//
// Each connection keeps:
// - the schema of the tables records touch (TableSchema), invalidated when
//   `PRAGMA schema_version` changes, so that a connection of a pool sees the
//   schema changes of the writer;
// - compiled persistence and by-key statements, keyed by (record type,
//   operation) and then by column list, so that an insert or a fetch by
//   primary key neither rebuilds SQL text nor hashes it: with the column list
//   of the Codable encoder shared across records, the lookup is a dictionary
//   probe on a small key and an array identity comparison;
// - the encoding layout of each Encodable record type (PersistenceEncoder).
//
// The caches live on the connection, used by one thread at a time, so they
// need no lock.

import CSQLite

/// What a cached persistence statement does; part of its cache key.
struct RecordStatementKey: Hashable {
    enum Kind: Hashable {
        case insert, insertAll, update, upsert, delete, fetchByKey, existsByKey, deleteByKey
    }
    let type: ObjectIdentifier
    let kind: Kind
    let conflict: ConflictResolution
    /// The SQL of the RETURNING clause, or empty.
    var returning: String = ""
    /// Anything else the SQL depends on (such as the updated column subset).
    var extra: String = ""
}

/// The per-connection caches of the record layer (see the top of this file).
final class RecordCache {
    private var tables: [String: TableSchema] = [:]
    private var schemaVersion: Int64 = -1
    private var schemaVersionStatement: Statement?
    /// The transaction state and `Database.schemaCheckGeneration` of the last check.
    private var checkedInTransaction = false
    private var checkedGeneration: UInt64 = 0
    private var schemaReloadStatement: Statement?
    private var plans: [RecordStatementKey: [(columns: [String], plan: StatementPlan)]] = [:]
    /// Encoding layouts by record type (see PersistenceEncoder.swift).
    var encodingLayouts: [ObjectIdentifier: EncodingLayout] = [:]

    /// Releases the compiled statements; called when the connection closes.
    func finalizeStatements() {
        for entries in plans.values { for entry in entries { entry.plan.statement?.finalize() } }
        plans.removeAll()
        schemaVersionStatement?.finalize()
        schemaVersionStatement = nil
        schemaReloadStatement?.finalize()
        schemaReloadStatement = nil
        tables.removeAll()
    }

    /// The schema of `table`, read once per schema version.
    func schema(for table: String, in db: Database) throws -> TableSchema {
        try checkSchemaVersion(db)
        // Keyed by the name as spelled: a record type always spells it the same
        // way, and this avoids lowercasing (an allocation) on every call.
        if let schema = tables[table] { return schema }
        let schema = try TableSchema(table: table, db: db)
        tables[table] = schema
        return schema
    }

    /// Clears the caches, and the connection's statement cache, when another
    /// statement changed the schema
    /// (<https://www.sqlite.org/pragma.html#pragma_schema_version>): a
    /// statement compiled before the change recompiles itself, and `SELECT *`
    /// may then return other columns than those its cached layouts describe.
    ///
    /// Inside a transaction the check runs once: no other connection can
    /// change the schema the transaction sees, and this connection's own
    /// schema changes move `Database.schemaCheckGeneration`, which makes the
    /// next check run again.
    func checkSchemaVersion(_ db: Database) throws {
        if db.server != nil {
            // A server has no schema version to read: the caches are dropped
            // when this connection changes the schema or rolls back (see
            // Database+Server.swift).
            if checkedGeneration != db.schemaCheckGeneration {
                tables.removeAll()
                plans.removeAll()
                checkedGeneration = db.schemaCheckGeneration
            }
            return
        }
        let inTransaction = sqlite3_get_autocommit(db.sqliteConnection) == 0
        if inTransaction, checkedInTransaction, checkedGeneration == db.schemaCheckGeneration { return }
        let statement = try Self.statement(&schemaVersionStatement, sql: "PRAGMA schema_version", db)
        let version = try statement.firstRow { sqlite3_column_int64(statement.sqliteStatement, 0) } ?? 0
        if version != schemaVersion {
            if schemaVersion != -1 {
                tables.removeAll()
                plans.removeAll()
                db.clearStatementCache()
            }
            // The PRAGMA reads the file, not the connection's copy of the schema,
            // which SQLite reloads only when a statement that reads a table runs:
            // run one, so that the statements compiled next see the new schema.
            try Self.statement(&schemaReloadStatement, sql: "SELECT 1 FROM sqlite_master LIMIT 1", db).execute()
            schemaVersion = version
        }
        // Only a check that succeeded lets the next ones of the transaction skip.
        checkedInTransaction = inTransaction
        checkedGeneration = db.schemaCheckGeneration
    }

    /// The statement kept in `slot`, compiled on first use.
    private static func statement(_ slot: inout Statement?, sql: String, _ db: Database) throws -> Statement {
        if let existing = slot { return existing }
        let statement = try db.makeStatement(sql: sql)
        slot = statement
        return statement
    }

    /// Whether `sqliteStatement` is one of the statements of the schema check,
    /// which are left out of traces and logs: they run before most fetches.
    func isSchemaCheck(_ sqliteStatement: OpaquePointer) -> Bool {
        sqliteStatement == schemaVersionStatement?.sqliteStatement || sqliteStatement == schemaReloadStatement?.sqliteStatement
    }

    /// The cached plan for `key` and `columns`, made by `makePlan()` the first time.
    ///
    /// On a database server the plan holds the SQL rewritten for the server
    /// (`$1…$n`) instead of a compiled statement.
    func plan(
        _ key: RecordStatementKey, columns: [String], db: Database, makePlan: () throws -> PlanSource
    ) throws -> StatementPlan {
        if let entries = plans[key] {
            // Array == compares buffer identity first: the Codable encoder's
            // shared column list makes this O(1).
            for entry in entries where entry.columns == columns {
                guard let statement = entry.plan.statement, statement.isBusy else { return entry.plan }
                var fresh = entry.plan
                fresh.statement = try db.makeStatement(sql: statement.sql)
                return fresh
            }
        }
        let source = try makePlan()
        let plan: StatementPlan
        if let server = db.server {
            // Record SQL has one `?` per binding: the rewrite checks the count.
            let placeholders = StatementArguments(databaseValues: Array(repeating: .null, count: source.bindings.count))
            let statements = try SQLScanner.serverStatements(source.sql, placeholders, dialect: server.dialect)
            guard statements.count == 1, let statement = statements.first else {
                throw DatabaseError.misuse("a record statement must be one statement", sql: source.sql)
            }
            plan = StatementPlan(
                statement: nil, serverSQL: statement.sql, bindings: source.bindings, keyIndexes: source.keyIndexes,
                assignedColumns: source.assignedColumns)
        } else {
            plan = StatementPlan(
                statement: try db.makeStatement(sql: source.sql), serverSQL: "", bindings: source.bindings,
                keyIndexes: source.keyIndexes, assignedColumns: source.assignedColumns)
        }
        if plans[key, default: []].count >= 64 {
            // A record type with unbounded column-set variety: keep memory bounded.
            plans[key]?.removeFirst()
        }
        plans[key, default: []].append((columns, plan))
        return plan
    }

    /// The encoding layout of a record type on this connection.
    func encodingLayout(for type: Any.Type) -> EncodingLayout {
        let key = ObjectIdentifier(type)
        if let layout = encodingLayouts[key] { return layout }
        let layout = EncodingLayout()
        encodingLayouts[key] = layout
        return layout
    }
}

/// The SQL of a plan, and which container values it binds.
struct PlanSource {
    var sql: String
    /// For each `?` in order, the index of the container value (or key value) to bind.
    var bindings: [Int]
    /// The indexes of the primary key values in the container, when relevant.
    var keyIndexes: [Int] = []
    /// The columns an UPDATE sets (see StatementPlan).
    var assignedColumns: Set<String> = []
}

/// A compiled persistence statement and the values it binds.
///
/// On SQLite, `statement` is the compiled statement. On a database server it
/// is nil, and `serverSQL` is the statement the server runs: the methods
/// below run either, so that the record engines are written once.
struct StatementPlan {
    var statement: Statement?
    /// The SQL sent to a server (parameters `$1…$n`); empty on SQLite.
    var serverSQL: String
    var bindings: [Int]
    var keyIndexes: [Int]
    /// The columns an UPDATE sets, told to `willUpdate` and `aroundUpdate`;
    /// empty for other plans. Made once per plan: hashing them for each
    /// record measured a fifth of an update's time.
    var assignedColumns: Set<String>

    /// Binds `values[bindings[i]]` to parameter i + 1 of `statement`.
    @inline(__always)
    func bind(_ values: [DatabaseValue], to statement: Statement) throws {
        sqlite3_reset(statement.sqliteStatement)
        var parameter: Int32 = 1
        for index in bindings {
            try statement.bind(values[index], at: parameter)
            parameter += 1
        }
    }

    /// Binds the values and runs the statement to its end.
    func execute(_ values: [DatabaseValue], _ db: Database) throws {
        guard let statement else {
            _ = try db.executeServerStatement(sql: serverSQL, values: bindings.map { values[$0] })
            return
        }
        try bind(values, to: statement)
        try statement.forEachRow {}
    }

    /// Binds the values and tells whether the statement returns a row.
    func returnsRow(_ values: [DatabaseValue], _ db: Database) throws -> Bool {
        guard let statement else { return try !serverRows(values, db).isEmpty }
        try bind(values, to: statement)
        return try statement.firstRow { true } ?? false
    }

    /// Runs the statement on a server and returns its rows.
    func serverRows(_ values: [DatabaseValue], _ db: Database) throws -> [Row] {
        try db.executeServerStatement(sql: serverSQL, values: bindings.map { values[$0] }).copiedRows()
    }

    /// Binds the values and decodes the first row as `T`, or returns nil.
    ///
    /// With `idInLastColumn`, the last column is left out of `T` and read as
    /// the integer id of the written row (RETURNING …, "id").
    func firstRow<T: FetchableRecord>(
        _ values: [DatabaseValue], _ db: Database, as type: T.Type, idInLastColumn: Bool
    ) throws -> (fetched: T, id: Int64)? {
        guard let statement else {
            guard let row = try serverRows(values, db).first else { return nil }
            guard idInLastColumn else { return (try RowDecodingError.naming(serverSQL, T.rowReader(columnNames: row.columnNames))(row), 0) }
            let names = Array(row.columnNames.dropLast())
            let fetched = try RowDecodingError.naming(serverSQL, T.rowReader(columnNames: names))(
                Row(layout: RowLayout(columnNames: names), databaseValues: Array(row.databaseValues.dropLast())))
            return (fetched, try Self.id(row.databaseValues.last ?? .null, serverSQL))
        }
        try bind(values, to: statement)
        let total = statement.columnCount
        let read = T.reader(for: statement, columnCount: idInLastColumn ? total - 1 : nil)
        return try statement.firstRow {
            let id = idInLastColumn ? sqlite3_column_int64(statement.sqliteStatement, Int32(total - 1)) : 0
            return (try read(statement), id)
        }
    }

    /// Binds the values, runs the statement, and returns the integer its
    /// first row holds in its first column (RETURNING "id"), or nil when it
    /// returns no row.
    func returnedID(_ values: [DatabaseValue], _ db: Database) throws -> Int64? {
        guard let statement else {
            guard let row = try serverRows(values, db).first else { return nil }
            return try Self.id(row.databaseValues.first ?? .null, serverSQL)
        }
        try bind(values, to: statement)
        var id: Int64?
        try statement.forEachRow { id = sqlite3_column_int64(statement.sqliteStatement, 0) }
        return id
    }

    /// The integer id the statement `sql` returned, or a misuse error.
    static func id(_ value: DatabaseValue, _ sql: String) throws -> Int64 {
        guard case .integer(let id) = value else {
            throw DatabaseError.misuse("the statement returned \(value) as the id of the written row, not an integer", sql: sql)
        }
        return id
    }
}
