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
        for entries in plans.values { for entry in entries { entry.plan.statement.finalize() } }
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
    func plan(
        _ key: RecordStatementKey, columns: [String], db: Database, makePlan: () throws -> PlanSource
    ) throws -> StatementPlan {
        if let entries = plans[key] {
            // Array == compares buffer identity first: the Codable encoder's
            // shared column list makes this O(1).
            for entry in entries where entry.columns == columns {
                if !entry.plan.statement.isBusy { return entry.plan }
                var fresh = entry.plan
                fresh.statement = try db.makeStatement(sql: entry.plan.statement.sql)
                return fresh
            }
        }
        let source = try makePlan()
        let plan = StatementPlan(
            statement: try db.makeStatement(sql: source.sql), bindings: source.bindings, keyIndexes: source.keyIndexes,
            assignedColumns: source.assignedColumns)
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
struct StatementPlan {
    var statement: Statement
    var bindings: [Int]
    var keyIndexes: [Int]
    /// The columns an UPDATE sets, told to `willUpdate` and `aroundUpdate`;
    /// empty for other plans. Made once per plan: hashing them for each
    /// record measured a fifth of an update's time.
    var assignedColumns: Set<String>

    /// Binds `values[bindings[i]]` to parameter i + 1.
    @inline(__always)
    func bind(_ values: [DatabaseValue]) throws {
        sqlite3_reset(statement.sqliteStatement)
        var parameter: Int32 = 1
        for index in bindings {
            try statement.bind(values[index], at: parameter)
            parameter += 1
        }
    }

    /// Binds the values and steps through all rows.
    func execute(_ values: [DatabaseValue]) throws {
        try bind(values)
        try statement.forEachRow {}
    }
}
