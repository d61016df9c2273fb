// RETURNING: insertAndFetch, updateAndFetch, saveAndFetch, upsertAndFetch,
// deleteAndFetch, and the write engines they share with insert, update, save,
// upsert and delete.
//
// SQLite's RETURNING (3.35+, <https://www.sqlite.org/lang_returning.html>)
// reports the row as the statement wrote it, before AFTER triggers run. So,
// for a table with triggers (looked up once per table and connection, see
// TableSchema), the engines write without RETURNING and read the row again by
// rowid or primary key. Tables without triggers pay for one statement only.

import CSQLite
import Foundation

extension MutablePersistableRecord {
    /// `*` or the quoted columns.
    static func returningSQL(_ selection: [String]) -> String {
        RecordStatementSQL.selectionList(selection)
    }

    /// Reads the row again after a write, for tables with triggers.
    static func reread<T: FetchableRecord>(
        _ db: Database, _ schema: TableSchema, rowID: Int64?, container: PersistenceContainer,
        selection: [String], as type: T.Type
    ) throws -> T {
        let columns: [String]
        let values: [DatabaseValue]
        if let rowID, schema.hasRowID {
            columns = ["rowid"]
            values = [.integer(rowID)]
        } else {
            let indexes = try keyIndexes(container, schema)
            columns = indexes.map { container.columns[$0] }
            values = indexes.map { container.databaseValues[$0] }
        }
        let sql = RecordStatementSQL.select(returningSQL(selection), from: databaseTableName, keyColumns: columns)
        let arguments = StatementArguments(databaseValues: values)
        let record = try T.fetchOne(db, sql: sql, arguments: arguments)
        guard let record else {
            throw RecordError.recordNotFound(
                databaseTableName: databaseTableName, key: Dictionary(zip(columns, values), uniquingKeysWith: { $1 }))
        }
        return record
    }

    // MARK: - Engines

    /// The misuse error of an `around…` callback that did not call its
    /// closure, called it twice, or swallowed the error it threw (then the
    /// write did not happen, and must not be reported as done).
    static func callbackMisuse(_ callback: String) -> DatabaseError {
        .misuse("\(callback) of \(Self.self) must call its closure exactly once, and rethrow its error: the write did not complete")
    }

    /// willSave, aroundSave { body }, didSave. `body` returns nil when an
    /// `OR IGNORE` skipped the row: didSave is not called then.
    ///
    /// Not generic over a result type, so that the hot path of `insert` and
    /// `update` asks the runtime for no tuple or optional metadata per record
    /// (the record type is generic there, so nothing is specialized).
    mutating func withSaveCallbacks(_ db: Database, _ body: (inout Self) throws -> PersistenceSuccess?) throws {
        try willSave(db)
        var called = false
        // Set when `body` returned: a callback that swallows its error must
        // not turn a failed write into a success.
        var completed = false
        var saved: PersistenceSuccess?
        try aroundSave(db) {
            if called { throw Self.callbackMisuse("aroundSave") }
            called = true
            saved = try body(&self)
            completed = true
            return saved ?? PersistenceSuccess(persistenceContainer: PersistenceContainer())
        }
        guard completed else { throw Self.callbackMisuse("aroundSave") }
        if let saved { didSave(saved) }
    }

    /// willSave, aroundSave { body }, didSave, and the value `body` fetched.
    ///
    /// This and the `perform…` engines are inlined into the public methods:
    /// there their result types (`(PersistenceContainer, Row?)?` for a plain
    /// insert) are concrete, so the runtime is not asked for tuple and
    /// optional metadata on every record, which it is in an unspecialized
    /// generic function (measured: insert 406 → 362 ms per 100k records,
    /// benchmark workload 1).
    @inline(__always)
    mutating func withSaveCallbacks<R>(
        _ db: Database, _ body: (inout Self) throws -> (PersistenceSuccess, R)?
    ) throws -> R? {
        var result: R?
        try withSaveCallbacks(db) { (record: inout Self) -> PersistenceSuccess? in
            guard let done = try body(&record) else { return nil }
            result = done.1
            return done.0
        }
        return result
    }

    /// willInsert, aroundInsert { INSERT }, didInsert, and the fetched value
    /// when `selection` is not nil; nil if an `OR IGNORE` skipped the row.
    @inline(__always)
    mutating func performInsert<T: FetchableRecord>(
        _ db: Database, _ conflict: ConflictResolution?, fetch selection: [String]?, as type: T.Type,
        clause: UpsertClause? = nil
    ) throws -> (saved: PersistenceSuccess, fetched: T?)? {
        guard let selection else {
            return try performInsert(db, conflict, clause: clause).map { ($0, nil) }
        }
        var fetched: T?
        let done = try performInsert(db, conflict, clause: clause, selection: selection) {
            try Self.readReturnedRow($0, $1, db, idInLastColumn: $2, into: &fetched)
        }
        guard let (inserted, schema) = done else { return nil }
        if schema.hasTriggers {
            fetched = try Self.reread(
                db, schema, rowID: inserted.rowID, container: inserted.persistenceContainer, selection: selection, as: T.self)
        }
        // didSave sees the inserted values, the new rowid included, as GRDB's does.
        return (PersistenceSuccess(inserted), fetched)
    }

    /// The `fetch` of the insert and upsert engines for a selection read as
    /// `T`: runs the plan, puts the returned row in `fetched`, and tells
    /// whether a row came back, and the new id in its last column.
    static func readReturnedRow<T: FetchableRecord>(
        _ plan: StatementPlan, _ values: [DatabaseValue], _ db: Database, idInLastColumn: Bool, into fetched: inout T?
    ) throws -> (written: Bool, id: Int64?) {
        let row = try plan.firstRow(values, db, as: T.self, idInLastColumn: idInLastColumn)
        fetched = row?.fetched
        return (written: row != nil, id: idInLastColumn ? row?.id : nil)
    }

    /// willInsert, aroundInsert { INSERT }, didInsert, without fetching; nil
    /// if an `OR IGNORE` skipped the row.
    ///
    /// Not generic over a fetched type (see the engine below): `insert`,
    /// `save` and `upsert` call this one, and ask the runtime for no
    /// optional or tuple metadata per record.
    @inline(__always)
    mutating func performInsert(
        _ db: Database, _ conflict: ConflictResolution?, clause: UpsertClause?
    ) throws -> PersistenceSuccess? {
        // With no RETURNING selection, the engine never calls `fetch`.
        try performInsert(db, conflict, clause: clause, selection: nil, fetch: { _, _, _ in (written: true, id: nil) })
            .map { PersistenceSuccess($0.inserted) }
    }

    /// The insert engine: willInsert, aroundInsert { INSERT }, didInsert.
    /// Returns nil if an `OR IGNORE` skipped the row, and the schema the
    /// statement was planned with (a caller reads the row again when the
    /// table has triggers).
    ///
    /// The statement returns `selection` only when the table has no triggers
    /// (triggers may change the row after RETURNING). Then `fetch` runs the
    /// plan instead of the engine and reads the returned row (the new id in
    /// its last column on a server): it returns whether a row was written
    /// and that id. `fetch` is a closure of a concrete type, so that the engine
    /// is generic over the record type only.
    @inline(__always)
    mutating func performInsert(
        _ db: Database, _ conflict: ConflictResolution?, clause: UpsertClause?, selection: [String]?,
        fetch: (_ plan: StatementPlan, _ values: [DatabaseValue], _ idInLastColumn: Bool) throws -> (written: Bool, id: Int64?)
    ) throws -> (inserted: InsertionSuccess, schema: TableSchema)? {
        let conflict = conflict ?? Self.persistenceConflictPolicy.conflictResolutionForInsert
        try db.sqlDialect.checkConflictResolution(conflict, insert: true)
        try willInsert(db)
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db, writing: clause == nil ? .insert : .upsert)
        // RETURNING the selection, unless triggers may change the row after
        // it (then the caller reads it again); on a server, also the new id,
        // last, since a server has no last inserted rowid.
        let selectionSQL = selection.flatMap { schema.hasTriggers ? nil : Self.returningSQL($0) }
        let idSQL = db.sqlDialect.insertedRowIDReturning(db, rowIDColumn: schema.rowIDColumn)
        var inserted: InsertionSuccess?
        var ignored = false
        try aroundInsert(db) {
            if inserted != nil { throw Self.callbackMisuse("aroundInsert") }
            let returning = [selectionSQL, idSQL].compactMap { $0 }.joined(separator: ", ")
            let plan: StatementPlan
            var values = container.databaseValues
            if let clause {
                // INSERT … ON CONFLICT … DO NOTHING, or DO UPDATE.
                let controlled = try insertPlan(db, container, schema, clause: clause, returning: returning)
                plan = controlled.plan
                values += controlled.clauseValues
            } else {
                plan = try insertPlan(db, container, schema, .insert, conflict, returning: returning)
            }
            var returnedID: Int64?
            if selectionSQL != nil {
                let result = try fetch(plan, values, idSQL != nil)
                returnedID = result.id
                ignored = !result.written
            } else if idSQL != nil {
                returnedID = try plan.returnedID(values, db)
                ignored = returnedID == nil
            } else {
                try plan.execute(values, db)
                ignored = (clause != nil || conflict == .ignore) && db.changesCount == 0
            }
            let success = InsertionSuccess(
                rowID: returnedID ?? db.lastInsertedRowID, rowIDColumn: schema.rowIDColumn, persistenceContainer: container)
            inserted = success
            return success
        }
        guard let inserted else { throw Self.callbackMisuse("aroundInsert") }
        if ignored { return nil }
        didInsert(inserted)
        return (inserted, schema)
    }

    /// willUpdate, aroundUpdate { UPDATE }, didUpdate, and the fetched value
    /// when `selection` is not nil.
    @inline(__always)
    func performUpdate<T: FetchableRecord>(
        _ db: Database, columns: Set<String>?, _ conflict: ConflictResolution?, fetch selection: [String]?,
        as type: T.Type
    ) throws -> (saved: PersistenceSuccess, fetched: T?) {
        guard let selection else {
            return (try performUpdate(db, columns: columns, conflict), nil)
        }
        var fetched: T?
        let saved = try performUpdate(db, columns: columns, conflict, selection: selection) { plan, container, schema, returns in
            if returns {
                fetched = try plan.firstRow(container.databaseValues, db, as: T.self, idInLastColumn: false)?.fetched
                return fetched != nil
            }
            fetched = try Self.reread(db, schema, rowID: nil, container: container, selection: selection, as: T.self)
            return true
        }
        return (saved, fetched)
    }

    /// willUpdate, aroundUpdate { UPDATE }, didUpdate, without fetching.
    /// Not generic over a fetched type: see `performInsert(_:_:clause:)`.
    @inline(__always)
    func performUpdate(_ db: Database, columns: Set<String>?, _ conflict: ConflictResolution?) throws -> PersistenceSuccess {
        // With no selection, the engine never calls `fetch`.
        try performUpdate(db, columns: columns, conflict, selection: nil, fetch: { _, _, _, _ in true })
    }

    /// The update engine: willUpdate, aroundUpdate { UPDATE }, didUpdate.
    ///
    /// When `selection` is not nil, `fetch` reads the updated row, inside
    /// aroundUpdate: from the RETURNING clause when `returns` is true (it
    /// then returns whether a row came back), or again after the UPDATE when
    /// the table has triggers (which may change the row after RETURNING).
    @inline(__always)
    func performUpdate(
        _ db: Database, columns: Set<String>?, _ conflict: ConflictResolution?, selection: [String]?,
        fetch: (_ plan: StatementPlan, _ container: PersistenceContainer, _ schema: TableSchema, _ returns: Bool) throws -> Bool
    ) throws -> PersistenceSuccess {
        let conflict = conflict ?? Self.persistenceConflictPolicy.conflictResolutionForUpdate
        try db.sqlDialect.checkConflictResolution(conflict, insert: false)
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db, writing: .update)
        let returning = selection.map { schema.hasTriggers ? "" : Self.returningSQL($0) } ?? ""
        let plan = try updatePlan(db, container, schema, columns: columns, conflict, returning: returning)
        let updatedColumns = plan.assignedColumns
        try willUpdate(db, columns: updatedColumns)
        var updated: PersistenceSuccess?
        try aroundUpdate(db, columns: updatedColumns) {
            if updated != nil { throw Self.callbackMisuse("aroundUpdate") }
            try checkKey(container, schema, plan)
            if !returning.isEmpty {
                if try !fetch(plan, container, schema, true) { throw Self.notFound(container, schema, plan) }
            } else {
                try plan.execute(container.databaseValues, db)
                if db.changesCount == 0 { throw Self.notFound(container, schema, plan) }
                if selection != nil { _ = try fetch(plan, container, schema, false) }
            }
            let success = PersistenceSuccess(persistenceContainer: container)
            updated = success
            return success
        }
        guard let updated else { throw Self.callbackMisuse("aroundUpdate") }
        didUpdate(updated)
        return updated
    }

    /// Update when the primary key is set and found, insert otherwise.
    @inline(__always)
    mutating func performSave<T: FetchableRecord>(
        _ db: Database, _ conflict: ConflictResolution?, fetch selection: [String]?, as type: T.Type
    ) throws -> (saved: PersistenceSuccess, fetched: T?)? {
        if try hasNonNullPrimaryKey(db) {
            do {
                return try performUpdate(db, columns: nil, conflict, fetch: selection, as: T.self)
            } catch RecordError.recordNotFound {
                // Insert below.
            }
        }
        return try performInsert(db, conflict, fetch: selection, as: T.self)
    }

    /// Update when the primary key is set and found, insert otherwise;
    /// without fetching. Not generic over a fetched type: see
    /// `performInsert(_:_:clause:)`.
    @inline(__always)
    mutating func performSave(_ db: Database, _ conflict: ConflictResolution?) throws -> PersistenceSuccess? {
        if try hasNonNullPrimaryKey(db) {
            do {
                return try performUpdate(db, columns: nil, conflict)
            } catch RecordError.recordNotFound {
                // Insert below.
            }
        }
        return try performInsert(db, conflict, clause: nil)
    }

    /// willInsert, aroundInsert { INSERT … ON CONFLICT DO UPDATE }, didInsert,
    /// and the fetched value when `selection` is not nil; nil when a DO
    /// NOTHING, or a DO UPDATE whose WHERE is false, wrote no row.
    @inline(__always)
    mutating func performUpsert<T: FetchableRecord>(
        _ db: Database, fetch selection: [String]?, as type: T.Type, clause: UpsertClause? = nil
    ) throws -> (saved: PersistenceSuccess, fetched: T?)? {
        guard let selection else {
            return try performUpsert(db, clause: clause).map { ($0, nil) }
        }
        var fetched: T?
        let done = try performUpsert(db, clause: clause, selection: selection) {
            try Self.readReturnedRow($0, $1, db, idInLastColumn: $2, into: &fetched)
        }
        guard let (inserted, schema) = done else { return nil }
        if schema.hasTriggers {
            fetched = try Self.reread(
                db, schema, rowID: schema.hasRowID ? inserted.rowID : nil, container: inserted.persistenceContainer,
                selection: selection, as: T.self)
        }
        // didSave sees the values as sent (the upsert's rowid is not written into them).
        return (PersistenceSuccess(persistenceContainer: inserted.written.sent), fetched)
    }

    /// The upsert, without fetching. Not generic over a fetched type: see
    /// `performInsert(_:_:clause:)`.
    @inline(__always)
    mutating func performUpsert(_ db: Database, clause: UpsertClause?) throws -> PersistenceSuccess? {
        // With no RETURNING selection, the engine never calls `fetch`.
        try performUpsert(db, clause: clause, selection: nil, fetch: { _, _, _ in (written: true, id: nil) })
            .map { PersistenceSuccess(persistenceContainer: $0.inserted.written.sent) }
    }

    /// The upsert engine: willInsert, aroundInsert { INSERT … ON CONFLICT DO
    /// UPDATE }, didInsert. `selection` and `fetch` work as in the insert
    /// engine (`performInsert(_:_:clause:selection:fetch:)`).
    @inline(__always)
    mutating func performUpsert(
        _ db: Database, clause: UpsertClause?, selection: [String]?,
        fetch: (_ plan: StatementPlan, _ values: [DatabaseValue], _ idInLastColumn: Bool) throws -> (written: Bool, id: Int64?)
    ) throws -> (inserted: InsertionSuccess, schema: TableSchema)? {
        try willInsert(db)
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db, writing: .upsert)
        // The id comes last in RETURNING: the fetched value reads the columns
        // before it. SQLite returns the rowid; a server, its integer key.
        let idSQL = schema.hasRowID ? "rowid" : db.sqlDialect.insertedRowIDReturning(db, rowIDColumn: schema.rowIDColumn)
        let selectionSQL = selection.flatMap { schema.hasTriggers ? nil : Self.returningSQL($0) }
        let returning = [selectionSQL, idSQL].compactMap { $0 }.joined(separator: ", ")
        let plan: StatementPlan
        var values = container.databaseValues
        if let clause {
            let controlled = try insertPlan(db, container, schema, clause: clause, returning: returning)
            plan = controlled.plan
            values += controlled.clauseValues
        } else {
            plan = try insertPlan(db, container, schema, .upsert, .abort, returning: returning)
        }
        var inserted: InsertionSuccess?
        // A DO NOTHING, or a DO UPDATE whose WHERE is false, writes no row.
        var skipped = false
        try aroundInsert(db) {
            if inserted != nil { throw Self.callbackMisuse("aroundInsert") }
            var rowID: Int64?
            var returnedRow = false
            if selectionSQL != nil {
                let result = try fetch(plan, values, idSQL != nil)
                returnedRow = result.written
                rowID = result.id
            } else if idSQL != nil {
                rowID = try plan.returnedID(values, db)
                returnedRow = rowID != nil
            } else {
                try plan.execute(values, db)
            }
            skipped = clause != nil && (returning.isEmpty ? db.changesCount == 0 : !returnedRow)
            let success = InsertionSuccess(
                rowID: rowID ?? 0, rowIDColumn: schema.rowIDColumn, persistenceContainer: container)
            inserted = success
            return success
        }
        guard let inserted else { throw Self.callbackMisuse("aroundInsert") }
        if skipped { return nil }
        didInsert(inserted)
        return (inserted, schema)
    }

    /// willDelete, aroundDelete { DELETE }, didDelete, and the deleted row
    /// when `selection` is not nil.
    func performDelete<T: FetchableRecord>(
        _ db: Database, fetch selection: [String]?, as type: T.Type
    ) throws -> (deleted: Bool, fetched: T?) {
        var fetched: T?
        let deleted = try performDelete(db, selection: selection) { plan, container in
            fetched = try plan.firstRow(container.databaseValues, db, as: T.self, idInLastColumn: false)?.fetched
            return fetched != nil
        }
        return (deleted, fetched)
    }

    /// The delete engine: willDelete, aroundDelete { DELETE }, didDelete;
    /// whether a row was deleted. When `selection` is not nil, the DELETE
    /// returns it, and `fetch` reads the returned row (and returns whether
    /// there was one). Not generic over a fetched type: see
    /// `performInsert(_:_:clause:)`.
    func performDelete(
        _ db: Database, selection: [String]?,
        fetch: (_ plan: StatementPlan, _ container: PersistenceContainer) throws -> Bool
    ) throws -> Bool {
        try willDelete(db)
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db, writing: .delete)
        let plan = try deletePlan(db, container, schema, returning: selection.map { Self.returningSQL($0) } ?? "")
        var deleted: Bool?
        try aroundDelete(db) {
            if deleted != nil { throw Self.callbackMisuse("aroundDelete") }
            if selection != nil {
                deleted = try fetch(plan, container)
            } else {
                try plan.execute(container.databaseValues, db)
                deleted = db.changesCount > 0
            }
            return deleted ?? false
        }
        guard let deleted else { throw Self.callbackMisuse("aroundDelete") }
        didDelete(deleted: deleted)
        return deleted
    }

    // MARK: - Public API, chosen selection

    /// Inserts the record and returns the given columns of the inserted row,
    /// as the database stored them (defaults, generated columns, trigger effects).
    ///
    /// ```swift
    /// let row = try player.insertAndFetch(db, selection: ["id", "created_at"], as: Row.self)
    /// // INSERT INTO "player" ("id", "name") VALUES (?, ?) RETURNING "id", "created_at"
    /// ```
    ///
    /// An empty selection returns all columns. Throws
    /// ``RecordError/recordNotFound(databaseTableName:key:)`` when
    /// `onConflict: .ignore` skipped the row.
    public mutating func insertAndFetch<T: FetchableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil,
        selection: [String], as type: T.Type
    ) throws -> T {
        let fetched = try withSaveCallbacks(db) { try $0.performInsert(db, conflictResolution, fetch: selection, as: T.self) }
        guard let fetched = fetched ?? nil else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }

    /// Updates the record and returns the given columns of the updated row.
    ///
    /// ```swift
    /// let row = try player.updateAndFetch(db, selection: ["updated_at"], as: Row.self)
    /// // UPDATE "player" SET "name" = ? WHERE "id" = ? RETURNING "updated_at"
    /// ```
    public func updateAndFetch<T: FetchableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil,
        selection: [String], as type: T.Type
    ) throws -> T {
        var record = self
        let fetched = try record.withSaveCallbacks(db) {
            try $0.performUpdate(db, columns: nil, conflictResolution, fetch: selection, as: T.self)
        }
        guard let fetched = fetched ?? nil else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }

    /// Saves (updates or inserts) the record and returns the given columns of the written row.
    public mutating func saveAndFetch<T: FetchableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil,
        selection: [String], as type: T.Type
    ) throws -> T {
        let fetched = try withSaveCallbacks(db) { try $0.performSave(db, conflictResolution, fetch: selection, as: T.self) }
        guard let fetched = fetched ?? nil else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }

    /// Upserts the record and returns the given columns of the inserted or updated row.
    public mutating func upsertAndFetch<T: FetchableRecord>(
        _ db: Database, selection: [String], as type: T.Type
    ) throws -> T {
        let fetched = try withSaveCallbacks(db) { try $0.performUpsert(db, fetch: selection, as: T.self) }
        guard let fetched = fetched ?? nil else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }

    /// Deletes the record and returns the given columns of the deleted row,
    /// or nil if no row had its primary key.
    ///
    /// ```swift
    /// let row = try player.deleteAndFetch(db, selection: ["id"], as: Row.self)
    /// // DELETE FROM "player" WHERE "id" = ? RETURNING "id"
    /// ```
    public func deleteAndFetch<T: FetchableRecord>(_ db: Database, selection: [String], as type: T.Type) throws -> T? {
        try performDelete(db, fetch: selection, as: T.self).fetched
    }
}

extension MutablePersistableRecord {
    // MARK: - Public API, another record type

    /// Inserts the record and returns the inserted row as another record
    /// type, with that type's ``TableRecord/databaseSelection``, as GRDB's
    /// `insertAndFetch(_:onConflict:as:)` does: a partial record in, the
    /// full record out.
    ///
    /// ```swift
    /// var draft = PlayerDraft(name: "Arthur")
    /// let player = try draft.insertAndFetch(db, as: Player.self)
    /// // INSERT INTO "player" ("name") VALUES (?) RETURNING *
    /// ```
    public mutating func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, as type: T.Type
    ) throws -> T {
        try insertAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, as: T.self)
    }

    /// Updates the record and returns the updated row as another record type.
    public func updateAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, as type: T.Type
    ) throws -> T {
        try updateAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, as: T.self)
    }

    /// Saves (updates or inserts) the record and returns the written row as
    /// another record type.
    public mutating func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, as type: T.Type
    ) throws -> T {
        try saveAndFetch(db, onConflict: conflictResolution, selection: T.databaseSelection, as: T.self)
    }

    /// Upserts the record and returns the inserted or updated row as another
    /// record type.
    public mutating func upsertAndFetch<T: FetchableRecord & TableRecord>(_ db: Database, as type: T.Type) throws -> T {
        try upsertAndFetch(db, selection: T.databaseSelection, as: T.self)
    }
}

extension PersistableRecord {
    /// Inserts the record (a constant, possibly) and returns the inserted
    /// row as another record type.
    @_disfavoredOverload
    public func insertAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, as type: T.Type
    ) throws -> T {
        var record = self
        return try record.insertAndFetch(db, onConflict: conflictResolution, as: T.self)
    }

    /// Saves the record (a constant, possibly) and returns the written row
    /// as another record type.
    @_disfavoredOverload
    public func saveAndFetch<T: FetchableRecord & TableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, as type: T.Type
    ) throws -> T {
        var record = self
        return try record.saveAndFetch(db, onConflict: conflictResolution, as: T.self)
    }

    /// Upserts the record (a constant, possibly) and returns the inserted or
    /// updated row as another record type.
    @_disfavoredOverload
    public func upsertAndFetch<T: FetchableRecord & TableRecord>(_ db: Database, as type: T.Type) throws -> T {
        var record = self
        return try record.upsertAndFetch(db, as: T.self)
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    // MARK: - Public API, whole record

    /// Inserts the record and returns it as the database stored it: column
    /// defaults, generated columns and the effects of triggers included.
    ///
    /// ```swift
    /// let stored = try player.insertAndFetch(db)
    /// // INSERT INTO "player" ("id", "name") VALUES (?, ?) RETURNING *
    /// ```
    public mutating func insertAndFetch(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil
    ) throws -> Self {
        try insertAndFetch(db, onConflict: conflictResolution, selection: Self.databaseSelection, as: Self.self)
    }

    /// Updates the record and returns it as the database stored it.
    ///
    /// ```swift
    /// let fresh = try player.updateAndFetch(db)   // UPDATE … RETURNING *
    /// ```
    public func updateAndFetch(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws -> Self {
        try updateAndFetch(db, onConflict: conflictResolution, selection: Self.databaseSelection, as: Self.self)
    }

    /// Saves the record and returns it as the database stored it.
    public mutating func saveAndFetch(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil
    ) throws -> Self {
        try saveAndFetch(db, onConflict: conflictResolution, selection: Self.databaseSelection, as: Self.self)
    }

    /// Upserts the record and returns it as the database stored it.
    public mutating func upsertAndFetch(_ db: Database) throws -> Self {
        try upsertAndFetch(db, selection: Self.databaseSelection, as: Self.self)
    }

    /// Deletes the record and returns the deleted row, or nil if there was none.
    public func deleteAndFetch(_ db: Database) throws -> Self? {
        try deleteAndFetch(db, selection: Self.databaseSelection, as: Self.self)
    }
}
