// find(_:key:): fetching a record that must exist, by primary or unique key,
// with an error naming the table and the key when it does not.

extension FetchableRecord where Self: TableRecord {
    /// The record with this primary key; throws if no row has it.
    ///
    /// ```swift
    /// let player = try Player.find(db, key: 1)   // SELECT * FROM "player" WHERE "id" = ?
    /// ```
    ///
    /// Use it when the row must exist, so that a missing row is an error;
    /// `fetchOne(_:key:)` returns nil instead.
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)``, which
    ///   names the table and the key (`record not found in table "player"
    ///   with key [id: 42]`); ``RecordError/invalidKey(databaseTableName:reason:)``
    ///   when the primary key has several columns.
    public static func find(_ db: Database, key: some DatabaseValueConvertible) throws -> Self {
        let resolved = try resolveKey(db, key)
        if let record = try fetchOne(db, resolved: resolved) { return record }
        throw notFound(resolved)
    }

    /// The record with this primary key or unique key; throws if no row has it.
    ///
    /// ```swift
    /// let player = try Player.find(db, key: ["email": "arthur@example.com"])
    /// // SELECT * FROM "player" WHERE "email" = ?
    /// ```
    ///
    /// - throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when
    ///   no row matches; ``RecordError/notUniqueKey(databaseTableName:columns:)``
    ///   when the columns are neither the primary key nor a unique index.
    public static func find(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        let resolved = try resolveKey(db, key)
        if let record = try fetchOne(db, resolved: resolved) { return record }
        // A NULL value matches no row; report the key as it was given.
        var given: [String: DatabaseValue] = [:]
        for (column, value) in key { given[column] = try RecordValueFormat.keyValue(value, of: Self.self, column: column) }
        throw RecordError.recordNotFound(databaseTableName: databaseTableName, key: given)
    }

    /// The error of a single-value key that matches no row.
    private static func notFound(_ resolved: ResolvedKey) -> RecordError {
        var key: [String: DatabaseValue] = [:]
        for (index, column) in resolved.columns.enumerated() {
            key[column] = resolved.values.flatMap { index < $0.count ? $0[index] : nil } ?? .null
        }
        return .recordNotFound(databaseTableName: databaseTableName, key: key)
    }
}
