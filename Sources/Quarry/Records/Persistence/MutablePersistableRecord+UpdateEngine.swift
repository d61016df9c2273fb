// The update engine: one record's UPDATE by primary key, of all columns or
// some, with its callbacks (see MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
}
