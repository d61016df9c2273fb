// The save engine: an update, or an insert when the record has no primary
// key value or no row has it (see MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
}
