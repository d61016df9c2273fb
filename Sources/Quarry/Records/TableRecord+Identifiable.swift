// Identifiable records: fetching, finding, checking and deleting by id, as in
// GRDB. Each method is the by-key method with the id as the primary key value.

extension FetchableRecord where Self: TableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The record with this id, or nil.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, id: 1)   // SELECT * FROM "player" WHERE "id" = ?
    /// ```
    public static func fetchOne(_ db: Database, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// The record with this id; throws ``RecordError/recordNotFound(databaseTableName:key:)``
    /// when no row has it.
    public static func find(_ db: Database, id: ID) throws -> Self {
        try find(db, key: id)
    }

    /// The records with these ids, in no particular order; ids with no row are skipped.
    public static func fetchAll(_ db: Database, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Whether a row has this id.
    public static func exists(_ db: Database, id: ID) throws -> Bool {
        try exists(db, key: id)
    }

    /// Deletes the row with this id; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, id: ID) throws -> Bool {
        try deleteOne(db, key: id)
    }

    /// Deletes the rows with these ids; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll(_ db: Database, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }
}

// MARK: - Optional ids

// Records whose id is optional (`var id: Int64?`, nil until inserted) are
// looked up with non-optional ids.

extension FetchableRecord where Self: TableRecord & Identifiable {
    /// The record with this id, or nil.
    public static func fetchOne<Wrapped: DatabaseValueConvertible>(_ db: Database, id: Wrapped) throws -> Self?
    where ID == Wrapped? {
        try fetchOne(db, key: id)
    }

    /// The record with this id; throws ``RecordError/recordNotFound(databaseTableName:key:)``
    /// when no row has it.
    public static func find<Wrapped: DatabaseValueConvertible>(_ db: Database, id: Wrapped) throws -> Self
    where ID == Wrapped? {
        try find(db, key: id)
    }

    /// The records with these ids, in no particular order; ids with no row are skipped.
    public static func fetchAll<Wrapped: DatabaseValueConvertible>(_ db: Database, ids: some Collection<Wrapped>) throws -> [Self]
    where ID == Wrapped? {
        try fetchAll(db, keys: ids)
    }
}

extension TableRecord where Self: Identifiable {
    /// Whether a row has this id.
    public static func exists<Wrapped: DatabaseValueConvertible>(_ db: Database, id: Wrapped) throws -> Bool
    where ID == Wrapped? {
        try exists(db, key: id)
    }

    /// Deletes the row with this id; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne<Wrapped: DatabaseValueConvertible>(_ db: Database, id: Wrapped) throws -> Bool
    where ID == Wrapped? {
        try deleteOne(db, key: id)
    }

    /// Deletes the rows with these ids; returns the number of deleted rows.
    @discardableResult
    public static func deleteAll<Wrapped: DatabaseValueConvertible>(_ db: Database, ids: some Collection<Wrapped>) throws -> Int
    where ID == Wrapped? {
        try deleteAll(db, keys: ids)
    }
}
