// The write engines of records: what insert, update, save, upsert and delete
// share with their …AndFetch forms (MutablePersistableRecord+Returning.swift):
// the RETURNING selection, reading a written row again, and the around…
// callbacks. Each engine has a file of its own:
// MutablePersistableRecord+InsertEngine.swift, +UpdateEngine, +SaveEngine,
// +UpsertEngine, +DeleteEngine.
//
// SQLite's RETURNING (3.35+, <https://www.sqlite.org/lang_returning.html>)
// reports the row as the statement wrote it, before AFTER triggers run. So,
// for a table with triggers (looked up once per table and connection, see
// TableSchema), the engines write without RETURNING and read the row again by
// rowid or primary key. Tables without triggers pay for one statement only.

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

    /// Runs the INSERT of `plan`: through `fetch` when the statement returns
    /// the selection, reading the returned id alone when it returns only that,
    /// or to its end. Returns whether a row came back (nil when the statement
    /// returns nothing) and the id it returned, if any. Shared by the insert
    /// and upsert engines.
    @inline(__always)
    static func runInsert(
        _ plan: StatementPlan, _ values: [DatabaseValue], _ db: Database, selects: Bool, returnsID: Bool,
        fetch: (_ plan: StatementPlan, _ values: [DatabaseValue], _ idInLastColumn: Bool) throws -> (written: Bool, id: Int64?)
    ) throws -> (returnedRow: Bool?, id: Int64?) {
        if selects {
            let result = try fetch(plan, values, returnsID)
            return (result.written, result.id)
        }
        if returnsID {
            let id = try plan.returnedID(values, db)
            return (id != nil, id)
        }
        try plan.execute(values, db)
        return (nil, nil)
    }

    // MARK: - Callbacks

    /// aroundInsert { `body` }, checking that the callback ran its closure
    /// once: the callbacks of the insert and upsert engines, which call
    /// didInsert after. `body` runs the INSERT and tells whether it wrote no
    /// row (ignored, or skipped by its ON CONFLICT clause); then the result
    /// is nil.
    @inline(__always)
    func aroundInsertOnce(
        _ db: Database, _ body: () throws -> (success: InsertionSuccess, wroteNoRow: Bool)
    ) throws -> InsertionSuccess? {
        var inserted: InsertionSuccess?
        var wroteNoRow = false
        try aroundInsert(db) {
            if inserted != nil { throw Self.callbackMisuse("aroundInsert") }
            let result = try body()
            inserted = result.success
            wroteNoRow = result.wroteNoRow
            return result.success
        }
        guard let inserted else { throw Self.callbackMisuse("aroundInsert") }
        return wroteNoRow ? nil : inserted
    }

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
}
