// The non-mutating persistence methods of PersistableRecord: insert, save,
// upsert and their AndFetch forms on a `let` value, as in GRDB.
//
// Each one writes a copy of the record through the mutating method of
// MutablePersistableRecord. They are disfavored overloads: on a variable,
// Swift picks the mutating method, which writes the new rowid back into the
// value itself; on a constant, the mutating method does not apply and these
// run instead.

extension PersistableRecord {
    /// Inserts the record, which can be a constant.
    ///
    /// ```swift
    /// let player = Player(id: 1, name: "Arthur", score: 100)
    /// try player.insert(db)
    /// // INSERT INTO "player" ("id", "name", "score") VALUES (?, ?, ?)
    /// ```
    ///
    /// The callbacks run on a copy of the record (see ``PersistableRecord``).
    @_disfavoredOverload
    public func insert(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws {
        var record = self
        try record.insert(db, onConflict: conflictResolution)
    }

    /// Updates the record if its primary key is set and a row has it, inserts
    /// it otherwise; the record can be a constant.
    @_disfavoredOverload
    public func save(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws {
        var record = self
        try record.save(db, onConflict: conflictResolution)
    }

    /// Inserts the record, or updates the row it conflicts with; the record
    /// can be a constant (see ``MutablePersistableRecord/upsert(_:)``).
    @_disfavoredOverload
    public func upsert(_ db: Database) throws {
        var record = self
        try record.upsert(db)
    }

    /// Inserts the record (a constant, possibly) and returns the given columns
    /// of the inserted row.
    @_disfavoredOverload
    public func insertAndFetch<T: FetchableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil,
        selection: [String], as type: T.Type
    ) throws -> T {
        var record = self
        return try record.insertAndFetch(db, onConflict: conflictResolution, selection: selection, as: T.self)
    }

    /// Saves the record (a constant, possibly) and returns the given columns
    /// of the written row.
    @_disfavoredOverload
    public func saveAndFetch<T: FetchableRecord>(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil,
        selection: [String], as type: T.Type
    ) throws -> T {
        var record = self
        return try record.saveAndFetch(db, onConflict: conflictResolution, selection: selection, as: T.self)
    }

    /// Upserts the record (a constant, possibly) and returns the given
    /// columns of the inserted or updated row.
    @_disfavoredOverload
    public func upsertAndFetch<T: FetchableRecord>(_ db: Database, selection: [String], as type: T.Type) throws -> T {
        var record = self
        return try record.upsertAndFetch(db, selection: selection, as: T.self)
    }
}

extension PersistableRecord where Self: FetchableRecord {
    /// Inserts the record (a constant, possibly) and returns it as the
    /// database stored it.
    ///
    /// ```swift
    /// let stored = try Player(id: nil, name: "Arthur", score: 0).insertAndFetch(db)
    /// // INSERT INTO "player" ("id", "name", "score") VALUES (?, ?, ?) RETURNING *
    /// ```
    @_disfavoredOverload
    public func insertAndFetch(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws -> Self {
        var record = self
        return try record.insertAndFetch(db, onConflict: conflictResolution)
    }

    /// Saves the record (a constant, possibly) and returns it as the database stored it.
    @_disfavoredOverload
    public func saveAndFetch(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws -> Self {
        var record = self
        return try record.saveAndFetch(db, onConflict: conflictResolution)
    }

    /// Upserts the record (a constant, possibly) and returns it as the database stored it.
    @_disfavoredOverload
    public func upsertAndFetch(_ db: Database) throws -> Self {
        var record = self
        return try record.upsertAndFetch(db)
    }
}
