// The insert engine: one record's INSERT (with RETURNING when asked for, or
// the id on a backend without rowids), its callbacks, and its id written back
// (see MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
        let idSQL = db.catalog.insertedRowIDReturning(db, rowIDColumn: schema.rowIDColumn)
        // Without an array and a join per insert: most inserts return nothing.
        let returning: String
        switch (selectionSQL, idSQL) {
        case (nil, nil): returning = ""
        case (let selected?, nil): returning = selected
        case (nil, let id?): returning = id
        case (let selected?, let id?): returning = selected + ", " + id
        }
        let inserted = try aroundInsertOnce(db) {
            // With a clause: INSERT … ON CONFLICT … DO NOTHING, or DO UPDATE.
            var values = container.databaseValues
            let plan = try insertPlan(
                db, container, schema, clause: clause, otherwise: .insert, conflict, returning: returning, values: &values)
            let (returnedRow, returnedID) = try Self.runInsert(
                plan, values, db, selects: selectionSQL != nil, returnsID: idSQL != nil, fetch: fetch)
            let ignored = returnedRow.map { !$0 } ?? ((clause != nil || conflict == .ignore) && db.changesCount == 0)
            let success = InsertionSuccess(
                rowID: returnedID ?? db.lastInsertedRowID, rowIDColumn: schema.rowIDColumn, persistenceContainer: container)
            return (success, ignored)
        }
        guard let inserted else { return nil }
        didInsert(inserted)
        return (inserted, schema)
    }
}
