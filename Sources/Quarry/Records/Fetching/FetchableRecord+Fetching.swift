// Fetching records: with SQL (any FetchableRecord), and from their table
// (FetchableRecord & TableRecord): all rows, one row, by primary or unique key,
// and as sets for Hashable records.

import Foundation

extension FetchableRecord {
    /// A cursor over the records of a prepared statement.
    public static func fetchCursor(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Self> {
        try StatementCursor(statement: statement, arguments: arguments, decode: reader(for: statement))
    }

    /// All records of a prepared statement.
    public static func fetchAll(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try statement.bindArguments(arguments)
        let read = reader(for: statement)
        var records: [Self] = []
        try statement.forEachRow { records.append(try read(statement)) }
        return records
    }

    /// The first record of a prepared statement, or nil.
    public static func fetchOne(
        _ statement: Statement, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try statement.bindArguments(arguments)
        let read = reader(for: statement)
        return try statement.firstRow { try read(statement) }
    }

    /// A cursor over the records of `sql`, read one at a time.
    ///
    /// ```swift
    /// let players = try Player.fetchCursor(db, sql: "SELECT * FROM player ORDER BY score DESC")
    /// while let player = try players.next() { ... }
    /// ```
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> StatementCursor<Self> {
        try db.prepared(sql: sql, arguments: arguments).fetchCursor(recordReading)
    }

    /// All records of `sql`.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [100])
    /// ```
    public static func fetchAll(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> [Self] {
        try db.prepared(sql: sql, arguments: arguments).fetchAll(recordReading)
    }

    /// The first record of `sql`, or nil.
    public static func fetchOne(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Self? {
        try db.prepared(sql: sql, arguments: arguments).fetchOne(recordReading)
    }

    /// Reads records with the readers cached on the statement's rows
    /// (Core/RowSource.swift).
    static var recordReading: RowReading<Self> {
        RowReading { reader(for: $0) }
    }
}

extension FetchableRecord where Self: TableRecord {
    /// `SELECT <selection> FROM "table"`.
    static var selectAllSQL: String { RecordStatementSQL.select(selectionSQL, from: databaseTableName) }

    /// A cursor over all records of the table.
    ///
    /// ```swift
    /// let players = try Player.fetchCursor(db)   // SELECT * FROM "player"
    /// ```
    public static func fetchCursor(_ db: Database) throws -> StatementCursor<Self> {
        try fetchCursor(db, sql: selectAllSQL)
    }

    /// All records of the table.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db)   // SELECT * FROM "player"
    /// ```
    public static func fetchAll(_ db: Database) throws -> [Self] {
        try fetchAll(db, sql: selectAllSQL)
    }

    /// A record of the table, or nil if it is empty.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db)   // SELECT * FROM "player" LIMIT 1
    /// ```
    public static func fetchOne(_ db: Database) throws -> Self? {
        try fetchOne(db, sql: selectAllSQL + " LIMIT 1")
    }

    /// The record with this primary key, or nil.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: 1)   // SELECT * FROM "player" WHERE "id" = ?
    /// ```
    ///
    /// Throws ``RecordError/invalidKey(databaseTableName:reason:)`` when the
    /// primary key has several columns: use a key dictionary then.
    public static func fetchOne(_ db: Database, key: (some DatabaseValueConvertible)?) throws -> Self? {
        try fetchOne(db, resolved: resolveKey(db, key))
    }

    /// The record with this primary key or unique key, or nil.
    ///
    /// ```swift
    /// let player = try Player.fetchOne(db, key: ["email": "arthur@example.com"])
    /// // SELECT * FROM "player" WHERE "email" = ?
    /// let entry = try PlaylistTrack.fetchOne(db, key: ["PlaylistId": 1, "TrackId": 3402])
    /// ```
    ///
    /// Throws ``RecordError/notUniqueKey(databaseTableName:columns:)`` when the
    /// columns are neither the primary key nor a unique index, since they could
    /// match several rows.
    public static func fetchOne(_ db: Database, key: [String: (any DatabaseValueConvertible)?]) throws -> Self? {
        try fetchOne(db, resolved: resolveKey(db, key))
    }

    /// The records with these primary keys, in no particular order; keys with
    /// no row are skipped.
    ///
    /// ```swift
    /// let players = try Player.fetchAll(db, keys: [1, 2, 3])
    /// // SELECT * FROM "player" WHERE "id" IN (?, ?, ?)
    /// ```
    public static func fetchAll<Key: DatabaseValueConvertible>(_ db: Database, keys: some Sequence<Key>) throws -> [Self] {
        let resolved = try resolveKey(db, Key?.none)
        let column = resolved.columns[0]
        var values: [DatabaseValue] = []
        for key in keys {
            let value = try RecordValueFormat.keyValue(statically: key, of: Self.self, column: column)
            if !value.isNull { values.append(value) }
        }
        var records: [Self] = []
        // Chunks keep the parameter count well under SQLITE_MAX_VARIABLE_NUMBER.
        let chunkSize = 500
        var start = 0
        while start < values.count {
            let chunk = Array(values[start..<min(start + chunkSize, values.count)])
            let sql = RecordStatementSQL.select(selectionSQL, from: databaseTableName, column: column, valueCount: chunk.count)
            let arguments = StatementArguments(databaseValues: chunk)
            records += try fetchAll(db, sql: sql, arguments: arguments)
            start += chunkSize
        }
        return records
    }

    static func fetchOne(_ db: Database, resolved: ResolvedKey) throws -> Self? {
        guard let values = resolved.values else { return nil }
        let plan = try keyPlan(db, .fetchByKey, resolved.columns) { RecordStatementSQL.select(selectionSQL, from: databaseTableName, keyColumns: $0) }
        return try plan.fetchOne(values, recordReading)
    }
}

extension FetchableRecord where Self: Hashable {
    /// The distinct records of `sql`.
    ///
    /// ```swift
    /// let players = try Player.fetchSet(db, sql: "SELECT * FROM player WHERE score > ?", arguments: [100])
    /// ```
    public static func fetchSet(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> Set<Self> {
        Set(try fetchAll(db, sql: sql, arguments: arguments))
    }
}

extension FetchableRecord where Self: TableRecord & Hashable {
    /// The distinct records of the table.
    ///
    /// ```swift
    /// let players = try Player.fetchSet(db)   // SELECT * FROM "player"
    /// ```
    public static func fetchSet(_ db: Database) throws -> Set<Self> {
        try fetchSet(db, sql: selectAllSQL)
    }

    /// The records with these primary keys; keys with no row are skipped.
    ///
    /// ```swift
    /// let players = try Player.fetchSet(db, keys: [1, 2, 3])
    /// // SELECT * FROM "player" WHERE "id" IN (?, ?, ?)
    /// ```
    public static func fetchSet<Key: DatabaseValueConvertible>(_ db: Database, keys: some Sequence<Key>) throws -> Set<Self> {
        Set(try fetchAll(db, keys: keys))
    }
}
