// RETURNING: insertAndFetch, updateAndFetch, saveAndFetch, upsertAndFetch
// and deleteAndFetch, which return the written row as the database stored it
// (defaults, generated columns, trigger effects). They run the same write
// engines as insert, update, save, upsert and delete
// (MutablePersistableRecord+WriteEngine.swift).

import Foundation

extension MutablePersistableRecord {
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
        try db.require(.returning, "RETURNING (insertAndFetch)")
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
        try db.require(.returning, "RETURNING (updateAndFetch)")
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
        try db.require(.returning, "RETURNING (saveAndFetch)")
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
        try db.require(.returning, "RETURNING (upsertAndFetch)")
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
        try db.require(.returning, "RETURNING (deleteAndFetch)")
        return try performDelete(db, fetch: selection, as: T.self).fetched
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
