// RecordCache: per-connection caches of the record layer.
//
// Each connection keeps:
// - the schema of the tables records touch (TableSchema), invalidated when
//   the schema changes (Core/Database+SchemaVersion.swift), so that a
//   connection of a pool sees the schema changes of the writer;
// - compiled persistence and by-key statements, keyed by (record type,
//   operation) and then by column list, so that an insert or a fetch by
//   primary key neither rebuilds SQL text nor hashes it: with the column list
//   of the Codable encoder shared across records, the lookup is a dictionary
//   probe on a small key and an array identity comparison;
// - the encoding layout of each Encodable record type (PersistenceEncoder).
//
// The caches live on the connection, used by one thread at a time, so they
// need no lock.


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
    /// `Database.schemaChangeCount` when the caches were last checked.
    private var checkedSchemaChangeCount: UInt64 = 0
    private var plans: [RecordStatementKey: [(columns: [String], plan: StatementPlan)]] = [:]
    /// Encoding layouts by record type (see PersistenceEncoder.swift).
    var encodingLayouts: [ObjectIdentifier: EncodingLayout] = [:]

    /// The last schema, plan and encoding layout handed out: a record type
    /// used in a loop (inserts, fetches by key) finds them with a few
    /// comparisons, no hashing of the table name, the statement key or the
    /// type. Cleared with the dictionaries they shortcut.
    private var lastSchema: (table: String, schema: TableSchema)?
    private var lastPlan: (key: RecordStatementKey, columns: [String], plan: StatementPlan)?
    private var lastEncodingLayout: (type: ObjectIdentifier, layout: EncodingLayout)?

    /// Releases the compiled statements; called when the connection closes.
    func finalizeStatements() {
        for entries in plans.values { for entry in entries { entry.plan.statement.finalize() } }
        plans.removeAll()
        tables.removeAll()
        (lastSchema, lastPlan) = (nil, nil)
    }

    /// The schema of `table`, read once per schema version.
    func schema(for table: String, in db: Database) throws -> TableSchema {
        try checkSchemaVersion(db)
        // Keyed by the name as spelled: a record type always spells it the same
        // way, and this avoids lowercasing (an allocation) on every call.
        if let lastSchema, lastSchema.table == table { return lastSchema.schema }
        if let schema = tables[table] {
            lastSchema = (table, schema)
            return schema
        }
        let schema = try TableSchema(table: table, db: db)
        tables[table] = schema
        lastSchema = (table, schema)
        return schema
    }

    /// Drops the cached schemas and plans when the schema changed since they
    /// were made (`Database.checkSchemaVersion()`, in Core).
    func checkSchemaVersion(_ db: Database) throws {
        try db.checkSchemaVersion()
        if checkedSchemaChangeCount != db.schemaChangeCount {
            tables.removeAll()
            plans.removeAll()
            (lastSchema, lastPlan) = (nil, nil)
            checkedSchemaChangeCount = db.schemaChangeCount
        }
    }

    /// The cached plan for `key` and `columns`, made by `makePlan()` the first time.
    func plan(
        _ key: RecordStatementKey, columns: [String], db: Database, makePlan: () throws -> PlanSource
    ) throws -> StatementPlan {
        // Array == compares buffer identity first: the Codable encoder's
        // shared column list makes this O(1).
        if let lastPlan, lastPlan.key == key, lastPlan.columns == columns {
            return try available(lastPlan.plan, db)
        }
        if let entries = plans[key] {
            for entry in entries where entry.columns == columns {
                lastPlan = (key, columns, entry.plan)
                return try available(entry.plan, db)
            }
        }
        let source = try makePlan()
        let plan = StatementPlan(
            statement: try db.connection.preparePlan(db, sql: source.sql, parameterCount: source.bindings.count),
            sql: source.sql, bindings: source.bindings, keyIndexes: source.keyIndexes,
            assignedColumns: source.assignedColumns)
        if plans[key, default: []].count >= 64 {
            // A record type with unbounded column-set variety: keep memory bounded.
            plans[key]?.removeFirst()
            lastPlan = nil
        }
        plans[key, default: []].append((columns, plan))
        lastPlan = (key, columns, plan)
        return plan
    }

    /// `plan`, or a fresh copy of it while a cursor iterates its statement.
    private func available(_ plan: StatementPlan, _ db: Database) throws -> StatementPlan {
        guard plan.statement.isBusy else { return plan }
        return StatementPlan(
            statement: try db.connection.preparePlan(db, sql: plan.sql, parameterCount: plan.bindings.count),
            sql: plan.sql, bindings: plan.bindings, keyIndexes: plan.keyIndexes, assignedColumns: plan.assignedColumns)
    }

    /// The encoding layout of a record type on this connection.
    func encodingLayout(for type: Any.Type) -> EncodingLayout {
        let key = ObjectIdentifier(type)
        if let lastEncodingLayout, lastEncodingLayout.type == key { return lastEncodingLayout.layout }
        let layout: EncodingLayout
        if let known = encodingLayouts[key] {
            layout = known
        } else {
            layout = EncodingLayout()
            encodingLayouts[key] = layout
        }
        lastEncodingLayout = (key, layout)
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

/// A prepared persistence statement and the values it binds: SQLite's
/// compiled `Statement`, or a server's statement (DatabaseConnection.swift).
/// The methods below are written once, over the seam.
///
/// A class: each write gets its plan from the cache, and handing out one
/// reference costs one retain, where a struct of five reference-counted
/// fields cost five (measured on the insert workload).
final class StatementPlan {
    let statement: any PreparedStatement
    /// The SQL the plan was made from (`?` parameters).
    let sql: String
    let bindings: [Int]
    let keyIndexes: [Int]
    /// The columns an UPDATE sets, told to `willUpdate` and `aroundUpdate`;
    /// empty for other plans. Made once per plan: hashing them for each
    /// record measured a fifth of an update's time.
    let assignedColumns: Set<String>

    init(statement: any PreparedStatement, sql: String, bindings: [Int], keyIndexes: [Int], assignedColumns: Set<String>) {
        self.statement = statement
        self.sql = sql
        self.bindings = bindings
        self.keyIndexes = keyIndexes
        self.assignedColumns = assignedColumns
    }

    /// Binds the values and runs the statement to its end.
    func execute(_ values: [DatabaseValue], _ db: Database) throws {
        try statement.bind(values, bindings: bindings)
        try statement.forEachRow {}
    }

    /// Binds the values and tells whether the statement returns a row.
    func returnsRow(_ values: [DatabaseValue], _ db: Database) throws -> Bool {
        try statement.bind(values, bindings: bindings)
        return try statement.fetchOne(RowReading { _ in { _ in true } }) ?? false
    }

    /// Binds the values and reads the first row with `reading`, or returns nil.
    func fetchOne<T>(_ values: [DatabaseValue], _ reading: RowReading<T>) throws -> T? {
        try statement.bind(values, bindings: bindings)
        return try statement.fetchOne(reading)
    }

    /// Binds the values and decodes the first row as `T`, or returns nil.
    ///
    /// With `idInLastColumn`, the last column is left out of `T` and read as
    /// the integer id of the written row (RETURNING …, "id").
    func firstRow<T: FetchableRecord>(
        _ values: [DatabaseValue], _ db: Database, as type: T.Type, idInLastColumn: Bool
    ) throws -> (fetched: T, id: Int64)? {
        guard idInLastColumn else {
            return try fetchOne(values, T.recordReading).map { ($0, 0) }
        }
        let sql = statement.sql
        let reading = RowReading<(fetched: T, id: Int64)> { source in
            let last = source.columnCount - 1
            let read = T.reader(for: source, columnCount: last)
            return { source in (try read(source), try Self.id(source, at: Int32(last), sql)) }
        }
        return try fetchOne(values, reading)
    }

    /// Binds the values, runs the statement, and returns the integer its
    /// first row holds in its first column (RETURNING "id"), or nil when it
    /// returns no row.
    func returnedID(_ values: [DatabaseValue], _ db: Database) throws -> Int64? {
        try statement.bind(values, bindings: bindings)
        let sql = statement.sql
        let read = try statement.reader(RowReading<Int64> { _ in { try Self.id($0, at: 0, sql) } })
        var id: Int64?
        try statement.forEachRow { id = try read() }
        return id
    }

    /// The integer id in column `index` of the current row of `source`, or a
    /// misuse error.
    static func id(_ source: any RowSource, at index: Int32, _ sql: String) throws -> Int64 {
        if let id = source.integer(at: index) { return id }
        return try id(source.databaseValue(at: index), sql)
    }

    /// The integer id the statement `sql` returned, or a misuse error.
    static func id(_ value: DatabaseValue, _ sql: String) throws -> Int64 {
        guard case .integer(let id) = value else {
            throw DatabaseError.misuse("the statement returned \(value) as the id of the written row, not an integer", sql: sql)
        }
        return id
    }
}
