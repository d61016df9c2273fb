// insertAll and insertAllAndFetch: many records, few statements.
//
// Records are written with multi-row `INSERT INTO "t" (…) VALUES (…), (…)`
// statements (<https://www.sqlite.org/lang_insert.html>), each holding as many
// rows as SQLite's limit on bound parameters allows for the number of columns
// (<https://www.sqlite.org/limits.html#max_variable_number>), and at most
// `maxRowsPerStatement`. Consecutive records that write the same columns share
// a statement; a NULL for a column with a DEFAULT leaves the column out, as
// `insert` does, so such a record starts a new statement.
//
// Ids. `didInsert` needs each record's rowid, but a multi-row INSERT reports
// only the last one, and SQLite does not promise any order for the rows of
// RETURNING (<https://www.sqlite.org/lang_returning.html>). So the rowids are
// predicted before the statement runs, from how SQLite chooses them
// (<https://www.sqlite.org/autoinc.html>): the rows of VALUES are inserted in
// order; a row with an explicit rowid keeps it; a row whose rowid is NULL gets
// one more than the largest rowid in the table at that moment (with
// AUTOINCREMENT, also more than the largest it ever had, in sqlite_sequence).
// The prediction starts from the table's largest rowid, read before the
// statement, and is checked after it: the statement must have inserted every
// row, its last rowid must be the predicted last one, and for
// insertAllAndFetch the RETURNING rows must carry exactly the predicted rowids
// (they are put back in the records' order by rowid).
//
// The prediction cannot hold when a trigger may write to the table, when
// OR REPLACE may delete rows while it inserts, when OR IGNORE may skip rows,
// or when the largest rowid is reached (SQLite then picks rowids at random).
// Those cases run one statement per record. Everything runs in a savepoint:
// either all records are inserted, or none.
//
// On a database server (PostgreSQL) there is no rowid to predict. The
// statement ends with `RETURNING "id"` (the one-column integer key the server
// fills; after the selection for insertAllAndFetch), and the returned ids go
// to the records in order: PostgreSQL returns the rows of a multi-row
// `INSERT … VALUES` in the order of VALUES. Its documentation does not promise
// that order in so many words, but the executor inserts the rows of VALUES one
// by one and returns each as it goes, and Django's `bulk_create` relies on the
// same behaviour to set the primary keys of the objects it creates on
// PostgreSQL. This is an assumption: the number of returned rows is checked,
// their order cannot be. A statement holds at most 65,535 bound values
// (PostgreSQL's protocol counts them in 16 bits). `ON CONFLICT DO NOTHING`
// (`.ignore`) returns no row for a skipped record, which would shift the ids:
// it runs one statement per record, as do tables with triggers (a BEFORE
// trigger may skip a row too, and RETURNING misses what AFTER triggers change).

extension MutablePersistableRecord {
    /// At most this many rows go in one INSERT statement: beyond a few
    /// hundred rows, a longer statement saves nothing measurable.
    static var maxRowsPerStatement: Int { 1000 }

    /// Inserts records with multi-row INSERT statements, and returns them with
    /// their ids set, in the order of `records`.
    ///
    /// ```swift
    /// let players = [Player(id: nil, name: "Arthur"), Player(id: nil, name: "Barbara")]
    /// let inserted = try Player.insertAll(db, players)
    /// // INSERT INTO "player" ("id", "name") VALUES (?, ?), (?, ?)
    /// inserted.map(\.id)   // [1, 2]
    /// ```
    ///
    /// This is the fastest way to load many records. All records are
    /// inserted, or none: the method runs in a savepoint, and an error (a
    /// constraint violation, say) undoes the records it already inserted.
    ///
    /// Each statement holds as many rows as SQLite's limit on bound values
    /// allows (<https://www.sqlite.org/limits.html#max_variable_number>), up to
    /// 1,000; on PostgreSQL, as many as 65,535 bound values allow, up to
    /// 1,000, and the new ids come back through `RETURNING`, in the records'
    /// order. As ``insert(_:onConflict:)`` does, a `NULL` for a column with a
    /// `DEFAULT` leaves the column out so that the default applies (on
    /// PostgreSQL, a `NULL` id of an identity column too); records that leave
    /// out other columns than the previous record go in another statement.
    ///
    /// `willSave`, `willInsert`, `didInsert` and `didSave` are called for each
    /// record; `aroundSave` and `aroundInsert` are not, since one statement
    /// writes many records. Insert records one by one when their type relies
    /// on those two.
    ///
    /// With `onConflict: .ignore` or `.replace`, or on a table with triggers,
    /// each record gets its own statement (SQLite could not tell which rowid
    /// went to which record), still in one savepoint. Skipped records are
    /// left out of the result. PostgreSQL has no `.replace`, and throws.
    ///
    /// - parameters:
    ///   - db: the database connection.
    ///   - records: the records to insert.
    ///   - conflictResolution: the `OR` policy (<https://www.sqlite.org/lang_conflict.html>);
    ///     nil uses ``MutablePersistableRecord/persistenceConflictPolicy``.
    /// - returns: the inserted records, with the rowids they got.
    @discardableResult
    public static func insertAll(
        _ db: Database, _ records: some Sequence<Self>, onConflict conflictResolution: ConflictResolution? = nil
    ) throws -> [Self] {
        try performInsertAll(db, records, conflictResolution, fetch: nil, as: Row.self).records
    }

    /// The engine of insertAll and insertAllAndFetch (see the top of this
    /// file): the inserted records and, with a selection, their fetched rows.
    static func performInsertAll<T: FetchableRecord>(
        _ db: Database, _ records: some Sequence<Self>, _ conflictResolution: ConflictResolution?,
        fetch selection: [String]?, as type: T.Type
    ) throws -> (records: [Self], fetched: [T]) {
        let conflict = conflictResolution ?? persistenceConflictPolicy.conflictResolutionForInsert
        // PostgreSQL has no OR clause: refuse it before any statement.
        try db.sqlDialect.checkConflictResolution(conflict, insert: true)
        var inserted: [Self] = []
        inserted.reserveCapacity(records.underestimatedCount)
        var fetched: [T] = []
        try db.inSavepoint {
            let schema = try schema(db, writing: .insert)
            let predictable = conflict != .ignore && conflict != .replace && !schema.hasTriggers
            // RETURNING rows are matched to records by rowid on SQLite, by
            // position on a server (see the top of this file).
            guard predictable, selection == nil || schema.hasRowID || db.catalog.matchesReturnedRowsByPosition(db) else {
                for var record in records {
                    let done = try record.withSaveCallbacks(db) { try $0.performInsert(db, conflict, fetch: selection, as: T.self) }
                    guard let done else { continue }
                    inserted.append(record)
                    if let done { fetched.append(done) }
                }
                return .commit
            }
            // Records are appended to `inserted` as they come; the batch
            // keeps their containers until its statement runs.
            var batch = InsertBatch<Self>(schema: schema, conflict: conflict, selection: selection)
            for record in records {
                inserted.append(record)
                let index = inserted.count - 1
                try inserted[index].willSave(db)
                try inserted[index].willInsert(db)
                let container = try inserted[index].persistenceContainer(db)
                let written = insertedColumnIndexes(container, schema)
                if !batch.accepts(container, written) {
                    try batch.flush(db, records: &inserted, fetched: &fetched)
                    try batch.start(db, container, written, at: index)
                }
                batch.pending.append(container)
            }
            try batch.flush(db, records: &inserted, fetched: &fetched)
            return .commit
        }
        return (inserted, fetched)
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Inserts records with multi-row INSERT statements (see
    /// ``MutablePersistableRecord/insertAll(_:_:onConflict:)``), and returns
    /// the rows as the database stored them (defaults, generated columns), in
    /// the order of `records`.
    ///
    /// ```swift
    /// let stored = try Player.insertAllAndFetch(db, players)
    /// // INSERT INTO "player" ("id", "name") VALUES (?, ?), (?, ?) RETURNING *, rowid
    /// ```
    ///
    /// On PostgreSQL the statement returns `RETURNING *, "id"`, the rows in
    /// the records' order.
    ///
    /// On a `WITHOUT ROWID` table (SQLite matches the rows to the records by
    /// rowid), or a table with triggers, each record gets its own statement.
    ///
    /// - parameters:
    ///   - db: the database connection.
    ///   - records: the records to insert.
    ///   - conflictResolution: the `OR` policy (<https://www.sqlite.org/lang_conflict.html>);
    ///     nil uses ``MutablePersistableRecord/persistenceConflictPolicy``.
    /// - returns: the stored rows; rows skipped by `onConflict: .ignore` are left out.
    public static func insertAllAndFetch(
        _ db: Database, _ records: some Sequence<Self>, onConflict conflictResolution: ConflictResolution? = nil
    ) throws -> [Self] {
        try db.require(.returning, "RETURNING (insertAllAndFetch)")
        return try performInsertAll(db, records, conflictResolution, fetch: databaseSelection, as: Self.self).fetched
    }
}

/// The records of one multi-row INSERT being gathered by insertAll: they all
/// write the same columns.
struct InsertBatch<Record: MutablePersistableRecord> {
    let schema: TableSchema
    let conflict: ConflictResolution
    /// The RETURNING selection of insertAllAndFetch, nil for insertAll.
    let selection: [String]?
    /// The containers of the records waiting for the statement; the records
    /// are `records[firstIndex...]` in `flush`.
    var pending: [PersistenceContainer] = []
    private var firstIndex = 0
    /// The column names of the containers of the batch (shared by all records
    /// of a Codable type, which makes the comparison an identity check).
    private var containerColumns: [String] = []
    /// The container indexes written, nil for all.
    private var written: [Int]?
    /// The index of the rowid column in the containers, if they hold it.
    private var rowIDIndex: Int?
    private var rowsPerStatement = 0

    init(schema: TableSchema, conflict: ConflictResolution, selection: [String]?) {
        self.schema = schema
        self.conflict = conflict
        self.selection = selection
    }

    /// Whether a record with this container can join the pending statement.
    func accepts(_ container: PersistenceContainer, _ written: [Int]?) -> Bool {
        !pending.isEmpty && pending.count < rowsPerStatement && container.columns == containerColumns
            && written == self.written
    }

    /// Starts a new statement for records like this container.
    mutating func start(_ db: Database, _ container: PersistenceContainer, _ written: [Int]?, at index: Int) throws {
        firstIndex = index
        containerColumns = container.columns
        self.written = written
        rowIDIndex = nil
        if let rowIDColumn = schema.rowIDColumn, let index = container.index(ofColumn: rowIDColumn),
            written?.contains(index) ?? true
        {
            rowIDIndex = index
        }
        let columnCount = written?.count ?? container.columns.count
        let variableLimit = Self.boundValueLimit(db)
        // No column (DEFAULT VALUES): one row per statement.
        rowsPerStatement = columnCount == 0 ? 1 : max(1, min(Record.maxRowsPerStatement, variableLimit / columnCount))
    }

    /// The most values one statement of `db` binds, as its dialect says
    /// (`DatabaseConnection.boundValueLimit`).
    static func boundValueLimit(_ db: Database) -> Int {
        db.connection.boundValueLimit
    }

    /// Runs the pending records' INSERT, then their didInsert and didSave,
    /// and appends their fetched rows to `fetched`.
    mutating func flush<T: FetchableRecord>(_ db: Database, records: inout [Record], fetched: inout [T]) throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        if db.catalog.matchesReturnedRowsByPosition(db) {
            // No rowids to predict: RETURNING rows are matched by position.
            try flushMatchingByPosition(db, records: &records, fetched: &fetched)
            return
        }
        if pending.count > 1, let rowIDs = try predictedRowIDs(db) {
            try insert(pending.indices, db, rowIDs: rowIDs, fetched: &fetched)
            // A WITHOUT ROWID table has no rowid: the records get the last
            // inserted one, as with `insert`.
            let lastRowID = db.lastInsertedRowID
            for index in pending.indices {
                finish(index, rowID: rowIDs.isEmpty ? lastRowID : rowIDs[index], records: &records)
            }
        } else {
            // One statement per record: each rowid is the last inserted one.
            for index in pending.indices {
                try insert(index..<(index + 1), db, rowIDs: nil, fetched: &fetched)
                finish(index, rowID: db.lastInsertedRowID, records: &records)
            }
        }
    }

    /// Runs the pending records' INSERT with `RETURNING` of the selection and
    /// of the id column, and gives each record the id of the returned row at
    /// its position (see the top of this file): on a backend without rowids.
    private mutating func flushMatchingByPosition<T: FetchableRecord>(
        _ db: Database, records: inout [Record], fetched: inout [T]
    ) throws {
        let first = pending[0]
        let indexes = written ?? Array(first.columns.indices)
        let columns = indexes.map { first.columns[$0] }
        let idSQL = schema.rowIDColumn?.quotedDatabaseIdentifier
        let returning = [selection.map { RecordStatementSQL.selectionList($0) }, idSQL].compactMap { $0 }
            .joined(separator: ", ")
        let rowCount = pending.count
        var key = RecordStatementKey(type: ObjectIdentifier(Record.self), kind: .insertAll, conflict: conflict)
        key.returning = returning
        key.extra = String(rowCount)
        let plan = try db.recordCache.plan(key, columns: columns, db: db) {
            let sql = RecordStatementSQL.insert(
                into: Record.databaseTableName, columns: columns, conflict: conflict, upsertUpdating: nil,
                returning: returning.isEmpty ? nil : returning, rowCount: rowCount, dialect: db.sqlDialect)
            // One parameter per value: the server rewrite checks the count.
            return PlanSource(sql: sql, bindings: Array(0..<(columns.isEmpty ? 0 : rowCount * columns.count)))
        }
        var values: [DatabaseValue] = []
        values.reserveCapacity(rowCount * columns.count)
        for container in pending {
            if let written {
                for index in written { values.append(container.databaseValues[index]) }
            } else {
                values.append(contentsOf: container.databaseValues)
            }
        }
        try plan.statement.bind(values, bindings: plan.bindings)
        let sql = plan.statement.sql
        // Each returned row: the selection's record, from the columns before
        // the id, and the id, last.
        let hasSelection = selection != nil
        let rows = try plan.statement.fetchAll(RowReading<(fetched: T?, id: Int64?)> { source in
            let idColumn = idSQL == nil ? nil : Int32(source.columnCount - 1)
            let read = hasSelection ? T.reader(for: source, columnCount: idColumn.map(Int.init)) : nil
            return { source in
                (try read?(source), try idColumn.map { try StatementPlan.id(source, at: $0, sql) })
            }
        })
        let count = returning.isEmpty ? db.changesCount : rows.count
        guard count == rowCount else {
            throw DatabaseError.misuse(
                "insertAll of \(Record.self) inserted \(count) rows of \(rowCount) in \(Record.databaseTableName.quotedDatabaseIdentifier)",
                sql: sql)
        }
        for index in 0..<rowCount {
            // Without RETURNING of an id (a key the backend does not fill),
            // the records get the last inserted rowid, as with `insert`.
            var rowID = db.lastInsertedRowID
            if !rows.isEmpty {
                if let record = rows[index].fetched { fetched.append(record) }
                if let id = rows[index].id { rowID = id }
            }
            finish(index, rowID: rowID, records: &records)
        }
    }

    /// Calls didInsert and didSave on the record of pending container `index`.
    private mutating func finish(_ index: Int, rowID: Int64, records: inout [Record]) {
        // Moved out: the pending list does not keep a second reference to it.
        let container = pending[index]
        pending[index] = PersistenceContainer()
        let success = InsertionSuccess(rowID: rowID, rowIDColumn: schema.rowIDColumn, persistenceContainer: container)
        records[firstIndex + index].didInsert(success)
        records[firstIndex + index].didSave(PersistenceSuccess(success))
    }

    /// The rowids SQLite will give the pending records, in order (see the top
    /// of this file); nil when they cannot be predicted. Empty for a `WITHOUT
    /// ROWID` table, which has none.
    private func predictedRowIDs(_ db: Database) throws -> [Int64]? {
        guard schema.hasRowID else { return [] }
        var rowIDs: [Int64] = []
        rowIDs.reserveCapacity(pending.count)
        var largest: Int64?
        for container in pending {
            switch rowIDIndex.map({ container.databaseValues[$0] }) ?? .null {
            case .integer(let rowID):
                rowIDs.append(rowID)
                if let current = largest { largest = max(current, rowID) }
            case .null:
                var current = try largest ?? largestRowID(db, before: rowIDs)
                // At the largest rowid, SQLite picks one at random (or fails with AUTOINCREMENT).
                guard current < Int64.max else { return nil }
                current += 1
                rowIDs.append(current)
                largest = current
            default:
                // A rowid given as text or real: SQLite converts it, or fails.
                return nil
            }
        }
        return rowIDs
    }

    /// The largest rowid once the explicit `rowIDs` are inserted: the table's
    /// largest (and, with AUTOINCREMENT, the largest it ever had) and theirs.
    private func largestRowID(_ db: Database, before rowIDs: [Int64]) throws -> Int64 {
        let table = schema.name.quotedDatabaseIdentifier
        let statement = try db.cachedStatement(sql: "SELECT max(rowid) FROM \(table)")
        var largest = try statement.firstRow { statement.int64(at: 0) } ?? 0
        if schema.isAutoIncrement {
            let sequence = try db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = ? COLLATE NOCASE")
            sequence.resetForBinding()
            try sequence.bind(.text(schema.name), at: 1)
            let used = try sequence.firstRow { sequence.int64(at: 0) } ?? 0
            largest = max(largest, used)
        }
        return rowIDs.reduce(largest, max)
    }

    /// Inserts the records of `range` with one statement, checks the
    /// predicted rowids, and appends the RETURNING rows to `fetched` in the
    /// records' order (when there is a selection).
    private func insert<T: FetchableRecord>(
        _ range: Range<Int>, _ db: Database, rowIDs: [Int64]?, fetched: inout [T]
    ) throws {
        let first = pending[range.lowerBound]
        let indexes = written ?? Array(first.columns.indices)
        let columns = indexes.map { first.columns[$0] }
        let returning = selection.map { RecordStatementSQL.selectionList($0) + ", rowid" } ?? ""
        var key = RecordStatementKey(type: ObjectIdentifier(Record.self), kind: .insertAll, conflict: conflict)
        key.returning = returning
        key.extra = String(range.count)
        let plan = try db.recordCache.plan(key, columns: columns, db: db) {
            let sql = RecordStatementSQL.insert(
                into: Record.databaseTableName, columns: columns, conflict: conflict, upsertUpdating: nil,
                returning: returning.isEmpty ? nil : returning, rowCount: range.count)
            return PlanSource(sql: sql, bindings: [])
        }
        // Backend conditional: the hot path binds SQLite's statement directly,
        // value by value, with no flattened copy of the values; `flush` comes
        // here only on SQLite, whose rowids it predicts.
        guard let statement = plan.statement as? Statement else {
            throw DatabaseError.misuse("a multi-row insert of \(Record.self) matched by rowid runs on SQLite only")
        }
        // Hot path: bind every value of every record, in order.
        statement.resetForBinding()
        var parameter: Int32 = 1
        for index in range {
            let values = pending[index].databaseValues
            if let written {
                for valueIndex in written {
                    try statement.bind(values[valueIndex], at: parameter)
                    parameter += 1
                }
            } else {
                for value in values {
                    try statement.bind(value, at: parameter)
                    parameter += 1
                }
            }
        }
        if selection != nil {
            var byRowID: [Int64: T] = [:]
            let read = T.reader(for: statement, columnCount: statement.columnCount - 1)
            let rowIDColumn = Int32(statement.columnCount - 1)
            try statement.forEachRow {
                byRowID[statement.int64(at: rowIDColumn)] = try read(statement)
            }
            let rowIDs = rowIDs ?? [db.lastInsertedRowID]
            let ordered = rowIDs.compactMap { byRowID[$0] }
            guard ordered.count == range.count, byRowID.count == range.count else {
                throw Self.unpredictedRowIDs()
            }
            fetched.append(contentsOf: ordered)
        } else {
            try statement.forEachRow {}
        }
        guard db.changesCount == range.count, rowIDs?.last.map({ $0 == db.lastInsertedRowID }) ?? true else {
            throw Self.unpredictedRowIDs()
        }
    }

    /// The error of a multi-row insert whose rowids are not those predicted;
    /// the savepoint of insertAll then undoes it.
    private static func unpredictedRowIDs() -> DatabaseError {
        .misuse(
            "insertAll of \(Record.self) could not tell which rowid SQLite gave to each row of "
                + "\(Record.databaseTableName.quotedDatabaseIdentifier); nothing was inserted")
    }
}
