// DatabaseMigrator+SchemaCheck: migrating, then checking that the migrated
// schema matches the application's record types (Database+SchemaCheck.swift),
// in one call at start-up.

extension DatabaseMigrator {
    /// Applies the registered migrations that are not applied yet, then
    /// checks that the tables match the given record types.
    ///
    /// Call it at start-up, with the record types of the application: a
    /// migration that forgot a column, or a property added without its
    /// migration, then stops the application with one error that lists every
    /// mismatch, instead of failing at the first fetch or insert.
    ///
    /// ```swift
    /// try migrator.migrate(dbPool, checkingSchemaOf: [Player.self, Team.self])
    /// ```
    ///
    /// The check runs after the last migration is committed, in a read
    /// access; see `Database.checkSchema(of:)` for what it compares.
    ///
    /// - throws: the errors of `migrate(_:)` (nothing is
    ///   checked then), or ``SchemaCheckError`` with every mismatch.
    public func migrate(_ writer: any DatabaseWriter, checkingSchemaOf recordTypes: [any (TableRecord & Decodable).Type]) throws {
        try migrate(writer)
        try writer.read { db in try db.checkSchema(of: recordTypes) }
    }

    /// The async variant of `migrate(_:checkingSchemaOf:)`: waits for the
    /// writer without blocking the calling task's thread.
    ///
    /// ```swift
    /// try await migrator.migrate(dbPool, checkingSchemaOf: [Player.self, Team.self])
    /// ```
    public func migrate(
        _ writer: any DatabaseWriter, checkingSchemaOf recordTypes: [any (TableRecord & Decodable).Type]
    ) async throws {
        try await migrate(writer)
        let list = RecordTypeList(types: recordTypes)
        try await writer.read { db in try db.checkSchema(of: list.types) }
    }
}

/// Record types handed to a read access of another thread. A metatype is an
/// immutable, process-wide value, safe to share; Swift does not see
/// `any (TableRecord & Decodable).Type` as Sendable because the protocols do
/// not require `SendableMetatype`, and requiring it would burden every record.
private struct RecordTypeList: @unchecked Sendable {
    let types: [any (TableRecord & Decodable).Type]
}
