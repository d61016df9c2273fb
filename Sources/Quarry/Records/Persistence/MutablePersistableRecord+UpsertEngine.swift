// The upsert engine: one record's INSERT … ON CONFLICT DO UPDATE, with its
// callbacks and its id written back (see MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
        let idSQL = schema.hasRowID ? "rowid" : db.catalog.insertedRowIDReturning(db, rowIDColumn: schema.rowIDColumn)
        let selectionSQL = selection.flatMap { schema.hasTriggers ? nil : Self.returningSQL($0) }
        let returning = [selectionSQL, idSQL].compactMap { $0 }.joined(separator: ", ")
        var values = container.databaseValues
        let plan = try insertPlan(
            db, container, schema, clause: clause, otherwise: .upsert, .abort, returning: returning, values: &values)
        let inserted = try aroundInsertOnce(db) {
            let (returnedRow, rowID) = try Self.runInsert(
                plan, values, db, selects: selectionSQL != nil, returnsID: idSQL != nil, fetch: fetch)
            // A DO NOTHING, or a DO UPDATE whose WHERE is false, writes no row.
            let skipped = clause != nil && (returnedRow.map { !$0 } ?? (db.changesCount == 0))
            let success = InsertionSuccess(rowID: rowID ?? 0, rowIDColumn: schema.rowIDColumn, persistenceContainer: container)
            return (success, skipped)
        }
        guard let inserted else { return nil }
        didInsert(inserted)
        return (inserted, schema)
    }
}
