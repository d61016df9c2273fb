// upsertAll: many upserts, few statements.
//
// Records are written with multi-row `INSERT INTO "t" (…) VALUES (…), (…)
// ON CONFLICT (…) DO UPDATE SET … [WHERE …]` statements
// (https://www.sqlite.org/lang_upsert.html), chunked as insertAll chunks its
// inserts (MutablePersistableRecord+InsertAll.swift): as many rows as the
// limit on bound values allows, at most `maxRowsPerStatement`, records that
// write the same columns sharing a statement. The values of the conflict
// clause (its assignments and condition) are bound once, after the rows'.
//
// Ids. An upsert updates existing rows, whose rowids cannot be predicted as
// insertAll predicts those of new rows; and neither SQLite nor PostgreSQL
// promises the order of the rows of RETURNING. So the statement returns the
// columns of the conflict target with the id (the rowid on SQLite, the
// integer key a server fills), and each returned row goes to the record that
// sent the same key. A record with no row back was skipped by the `where:`
// condition. Records match by the values they sent: when the database
// returns a key in another form (a column that converts what it stores, an
// integer into a TEXT column), the chunk is rolled back (it runs in a
// savepoint of its own) and its records are upserted one statement each.
//
// Within one statement each conflict key appears once: PostgreSQL refuses a
// statement that updates a row twice ("ON CONFLICT DO UPDATE command cannot
// affect row a second time"), and a key sent twice could not tell its
// returned row apart. A record whose key is already in the statement starts
// the next one, so that records later in the sequence see the rows written
// by earlier ones, on both databases, as one upsert per record would.
//
// One statement per record: without a conflict target on SQLite (the
// conflict may then be on any unique key, and the returned row could not be
// matched), on a table with triggers (as insertAll), and for a record that
// does not send every column of the target, or sends NULL in one (NULLs never
// conflict, so the key would not tell rows apart).


extension MutablePersistableRecord {
    /// The engine of upsertAll: the records written (inserted or updated),
    /// in order; records skipped by the clause's condition are left out.
    static func performUpsertAll(_ db: Database, _ records: some Sequence<Self>, clause: UpsertClause) throws -> [Self] {
        var all: [Self] = []
        all.reserveCapacity(records.underestimatedCount)
        var written: [Bool] = []
        try db.inSavepoint {
            let schema = try schema(db, writing: .upsert)
            var batch = try UpsertBatch<Self>(db, schema: schema, clause: clause)
            for record in records {
                all.append(record)
                written.append(false)
                let index = all.count - 1
                try all[index].willSave(db)
                try all[index].willInsert(db)
                let container = try all[index].persistenceContainer(db)
                try batch.add(container, at: index, db, records: &all, written: &written)
            }
            try batch.flush(db, records: &all, written: &written)
            return .commit
        }
        return zip(all, written).compactMap { $1 ? $0 : nil }
    }
}

/// The records of one multi-row upsert being gathered by upsertAll: they
/// write the same columns, and their conflict keys differ.
struct UpsertBatch<Record: MutablePersistableRecord> {
    private struct Pending {
        let index: Int
        let container: PersistenceContainer
        let key: [DatabaseValue]
    }

    private let schema: TableSchema
    private let clause: UpsertClause
    /// The columns that match a returned row to its record: the conflict
    /// target, or the primary key on PostgreSQL (its DO UPDATE targets it
    /// when the clause names none). Empty when rows cannot be matched.
    private let keyColumns: [String]
    /// The id in RETURNING: `rowid` on SQLite, the integer key on a server.
    private let idSQL: String?
    private var pending: [Pending] = []
    private var pendingKeys: Set<[DatabaseValue]> = []
    private var containerColumns: [String] = []
    /// The container indexes the pending records write, nil for all.
    private var writtenColumnIndexes: [Int]?
    private var rowsPerStatement = 0
    /// The container indexes and names of the columns the pending records write.
    private var indexes: [Int] = []
    private var columns: [String] = []
    /// The conflict clause for these columns, and the values it binds.
    private var clauseSQL = ""
    private var clauseValues: [DatabaseValue] = []

    init(_ db: Database, schema: TableSchema, clause: UpsertClause) throws {
        self.schema = schema
        self.clause = clause
        var keyColumns = clause.conflictTarget
        if keyColumns.isEmpty, db.sqlDialect.features.contains(.upsertRequiresConflictTarget) { keyColumns = schema.primaryKey }
        self.keyColumns = schema.hasTriggers ? [] : keyColumns
        idSQL = schema.hasRowID ? "rowid" : db.catalog.insertedRowIDReturning(db, rowIDColumn: schema.rowIDColumn)
    }

    /// Adds a record's container, running the pending statement first when
    /// the record cannot join it.
    mutating func add(
        _ container: PersistenceContainer, at index: Int, _ db: Database, records: inout [Record], written: inout [Bool]
    ) throws {
        let writtenIndexes = Record.insertedColumnIndexes(container, schema)
        let key = matchingKey(container, writtenIndexes)
        let joins = !pending.isEmpty && pending.count < rowsPerStatement && container.columns == containerColumns
            && writtenIndexes == writtenColumnIndexes && key.map { !pendingKeys.contains($0) } ?? false
        if !joins {
            try flush(db, records: &records, written: &written)
            try start(db, container, writtenIndexes)
        }
        pending.append(Pending(index: index, container: container, key: key ?? []))
        if let key { pendingKeys.insert(key) }
        // A record that cannot be matched by key runs alone.
        if key == nil { try flush(db, records: &records, written: &written) }
    }

    /// The values of the key columns the container writes; nil when one is
    /// not written, or NULL.
    private func matchingKey(_ container: PersistenceContainer, _ writtenIndexes: [Int]?) -> [DatabaseValue]? {
        guard !keyColumns.isEmpty else { return nil }
        var key: [DatabaseValue] = []
        for column in keyColumns {
            guard let index = container.index(ofColumn: column), writtenIndexes?.contains(index) ?? true else { return nil }
            let value = container.databaseValues[index]
            if value.isNull { return nil }
            key.append(value)
        }
        return key
    }

    private mutating func start(_ db: Database, _ container: PersistenceContainer, _ writtenIndexes: [Int]?) throws {
        containerColumns = container.columns
        writtenColumnIndexes = writtenIndexes
        indexes = writtenIndexes ?? Array(container.columns.indices)
        columns = indexes.map { container.columns[$0] }
        if columns.isEmpty {
            throw DatabaseError.misuse(
                "an upsert of \(Record.self) needs at least one column to insert (SQLite has no upsert after DEFAULT VALUES)")
        }
        let context = SQLGenerationContext(db: db)
        clauseSQL = try context.upsertClauseSQL(
            clause, table: Record.databaseTableName, insertedColumns: columns, primaryKey: schema.primaryKey)
        clauseValues = context.arguments
        let variableLimit = InsertBatch<Record>.boundValueLimit(db)
        // The clause binds its values once, after the rows'.
        rowsPerStatement = max(1, min(Record.maxRowsPerStatement, (variableLimit - clauseValues.count) / columns.count))
    }

    /// Runs the pending records' upsert, then their didInsert and didSave.
    mutating func flush(_ db: Database, records: inout [Record], written: inout [Bool]) throws {
        guard !pending.isEmpty else { return }
        defer {
            pending.removeAll(keepingCapacity: true)
            pendingKeys.removeAll(keepingCapacity: true)
        }
        if pending.count == 1 {
            try upsert(pending[...], db, records: &records, written: &written)
            return
        }
        // Matched by key in a savepoint of its own: if the returned keys are
        // not those sent, the chunk is undone and its records run one by one.
        var matched = false
        try db.inSavepoint {
            matched = try upsert(pending[...], db, records: &records, written: &written)
            return matched ? .commit : .rollback
        }
        if !matched {
            for position in pending.indices {
                try upsert(pending[position...position], db, records: &records, written: &written)
            }
        }
    }

    /// Upserts `chunk` with one statement. Returns false, with no callback
    /// called, when the returned rows of a multi-row chunk do not match the
    /// keys sent.
    @discardableResult
    private func upsert(
        _ chunk: ArraySlice<Pending>, _ db: Database, records: inout [Record], written: inout [Bool]
    ) throws -> Bool {
        guard !chunk.isEmpty else { return true }
        let isMultiRow = chunk.count > 1
        let returned = (isMultiRow ? keyColumns.map(\.quotedDatabaseIdentifier) : []) + (idSQL.map { [$0] } ?? [])
        let sql = RecordStatementSQL.insert(
            into: Record.databaseTableName, columns: columns, conflict: .abort, upsertUpdating: nil,
            returning: returned.isEmpty ? nil : returned.joined(separator: ", "), conflictClause: clauseSQL,
            rowCount: chunk.count, dialect: db.sqlDialect)
        var values: [DatabaseValue] = []
        values.reserveCapacity(chunk.count * columns.count + clauseValues.count)
        for item in chunk {
            for index in indexes { values.append(item.container.databaseValues[index]) }
        }
        values += clauseValues
        let arguments = StatementArguments(databaseValues: values)
        // The id of each written record's row, by position in the chunk.
        var ids: [Int: Int64] = [:]
        if returned.isEmpty {
            try db.execute(sql: sql, arguments: arguments)
            if db.changesCount > 0 { ids[chunk.startIndex] = 0 }
        } else if !isMultiRow {
            if let row = try Row.fetchAll(db, sql: sql, arguments: arguments).first {
                ids[chunk.startIndex] = try id(row, sql)
            }
        } else {
            var positions: [[DatabaseValue]: Int] = [:]
            for position in chunk.indices { positions[chunk[position].key] = position }
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                let key = Array(row.databaseValues.prefix(keyColumns.count))
                guard let position = positions[key], ids[position] == nil else { return false }
                ids[position] = try id(row, sql)
            }
        }
        for position in chunk.indices {
            guard let rowID = ids[position] else { continue }  // skipped by the condition
            let item = chunk[position]
            let success = InsertionSuccess(rowID: rowID, rowIDColumn: schema.rowIDColumn, persistenceContainer: item.container)
            records[item.index].didInsert(success)
            // didSave sees the values as sent, as after `upsert`.
            records[item.index].didSave(PersistenceSuccess(persistenceContainer: item.container))
            written[item.index] = true
        }
        return true
    }

    /// The id in the last column of a returned row, or 0 without one.
    private func id(_ row: Row, _ sql: String) throws -> Int64 {
        guard idSQL != nil, let value = row.databaseValues.last else { return 0 }
        return try StatementPlan.id(value, sql)
    }
}
