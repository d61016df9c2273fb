// The delete engine: one record's DELETE by primary key, with its callbacks
// (see MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
}
