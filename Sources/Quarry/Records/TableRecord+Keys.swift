// Primary and unique keys of TableRecord types: counting, existence and
// deletion by key. Fetching by key is in FetchableRecord+Fetching.swift.
//
// Statements by key are cached per connection by (record type, operation, key
// columns), so that fetching or deleting thousands of rows one key at a time
// compiles each statement once.

import Foundation

/// A normalized key: columns, and their values (nil when a value is NULL, so
/// that no row can match).
struct ResolvedKey {
    var columns: [String]
    var values: [DatabaseValue]?
}

extension TableRecord {
    /// The single-column primary key of the table, for a key given as one value.
    static func resolveKey(_ db: Database, _ value: (some DatabaseValueConvertible)?) throws -> ResolvedKey {
        let schema = try db.recordCache.schema(for: databaseTableName, in: db)
        guard schema.primaryKey.count == 1 else {
            throw RecordError.invalidKey(
                databaseTableName: databaseTableName,
                reason: schema.primaryKey.isEmpty
                    ? "the table has no primary key"
                    : "the primary key has \(schema.primaryKey.count) columns (\(schema.primaryKey.joined(separator: ", "))); "
                        + "use a key dictionary such as [\(schema.primaryKey.map { "\"\($0)\": …" }.joined(separator: ", "))]")
        }
        guard let value else { return ResolvedKey(columns: schema.primaryKey, values: nil) }
        // In the format the record stores its key (a UUID as text, say).
        let databaseValue = try RecordValueFormat.keyValue(statically: value, of: Self.self, column: schema.primaryKey[0])
        return ResolvedKey(columns: schema.primaryKey, values: databaseValue.isNull ? nil : [databaseValue])
    }

    /// A key given as a dictionary: it must be the primary key or a unique index.
    static func resolveKey(_ db: Database, _ key: [String: (any DatabaseValueConvertible)?]) throws -> ResolvedKey {
        guard !key.isEmpty else {
            throw RecordError.invalidKey(databaseTableName: databaseTableName, reason: "the key has no column")
        }
        let schema = try db.recordCache.schema(for: databaseTableName, in: db)
        let sorted = key.sorted { $0.key.asciiLowercased < $1.key.asciiLowercased }
        guard schema.isUniqueKey(sorted.map(\.key)) else {
            throw RecordError.notUniqueKey(databaseTableName: databaseTableName, columns: sorted.map(\.key))
        }
        // Spelled as the table spells them: SQLite compares column names
        // without case, PostgreSQL compares quoted names exactly.
        let columns = sorted.map { schema.columnName(matching: $0.key) }
        var values: [DatabaseValue] = []
        for (column, value) in sorted {
            guard let value else { return ResolvedKey(columns: columns, values: nil) }
            let databaseValue = try RecordValueFormat.keyValue(value, of: Self.self, column: column)
            if databaseValue.isNull { return ResolvedKey(columns: columns, values: nil) }
            values.append(databaseValue)
        }
        return ResolvedKey(columns: columns, values: values)
    }

    /// The cached statement of a by-key operation.
    static func keyPlan(
        _ db: Database, _ kind: RecordStatementKey.Kind, _ columns: [String], sql: ([String]) -> String
    ) throws -> StatementPlan {
        let key = RecordStatementKey(type: ObjectIdentifier(Self.self), kind: kind, conflict: .abort)
        return try db.recordCache.plan(key, columns: columns, db: db) {
            PlanSource(sql: sql(columns), bindings: Array(columns.indices))
        }
    }

    static func exists(_ db: Database, keyColumns: [String], values: [DatabaseValue]) throws -> Bool {
        if values.contains(where: \.isNull) { return false }
        let plan = try keyPlan(db, .existsByKey, keyColumns) {
            RecordStatementSQL.select("1", from: databaseTableName, keyColumns: $0, limitOne: true)
        }
        return try plan.returnsRow(values, db)
    }

    static func deleteOne(_ db: Database, resolved: ResolvedKey) throws -> Bool {
        guard let values = resolved.values else { return false }
        let plan = try keyPlan(db, .deleteByKey, resolved.columns) {
            RecordStatementSQL.delete(from: databaseTableName, keyColumns: $0, returning: nil)
        }
        try plan.execute(values, db)
        return db.changesCount > 0
    }

    // MARK: - Public API

    /// The number of rows in the table.
    ///
    /// ```swift
    /// let count = try Player.fetchCount(db)   // SELECT COUNT(*) FROM "player"
    /// ```
    public static func fetchCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: RecordStatementSQL.select("COUNT(*)", from: databaseTableName)) ?? 0
    }

    /// Whether a row has this primary key.
    ///
    /// ```swift
    /// try Player.exists(db, key: 1)   // SELECT 1 FROM "player" WHERE "id" = ? LIMIT 1
    /// ```
    ///
    /// Throws ``RecordError/invalidKey(databaseTableName:reason:)`` when the
    /// primary key has several columns.
    public static func exists(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Bool {
        let resolved = try resolveKey(db, key)
        guard let values = resolved.values else { return false }
        return try exists(db, keyColumns: resolved.columns, values: values)
    }

    /// Whether a row has this primary key or unique key.
    ///
    /// ```swift
    /// try PlaylistTrack.exists(db, key: ["PlaylistId": 1, "TrackId": 3402])
    /// ```
    ///
    /// Throws ``RecordError/notUniqueKey(databaseTableName:columns:)`` when the
    /// columns are neither the primary key nor a unique index.
    public static func exists(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        let resolved = try resolveKey(db, key)
        guard let values = resolved.values else { return false }
        return try exists(db, keyColumns: resolved.columns, values: values)
    }

    /// Deletes all rows; returns the number of deleted rows.
    ///
    /// ```swift
    /// try Player.deleteAll(db)   // DELETE FROM "player"
    /// ```
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: RecordStatementSQL.delete(from: databaseTableName, keyColumns: [], returning: nil))
        return db.changesCount
    }

    /// Deletes the row with this primary key; returns whether a row was deleted.
    ///
    /// ```swift
    /// try Player.deleteOne(db, key: 1)   // DELETE FROM "player" WHERE "id" = ?
    /// ```
    @discardableResult
    public static func deleteOne(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Bool {
        try deleteOne(db, resolved: resolveKey(db, key))
    }

    /// Deletes the row with this primary key or unique key; returns whether a row was deleted.
    @discardableResult
    public static func deleteOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteOne(db, resolved: resolveKey(db, key))
    }

    /// Deletes the rows with these primary keys; returns the number of deleted rows.
    ///
    /// ```swift
    /// try Player.deleteAll(db, keys: [1, 2, 3])   // DELETE FROM "player" WHERE "id" = ?, once per key
    /// ```
    @discardableResult
    public static func deleteAll<Key: DatabaseValueConvertible>(_ db: Database, keys: some Sequence<Key>) throws -> Int {
        var count = 0
        for key in keys where try deleteOne(db, key: key) { count += 1 }
        return count
    }
}
