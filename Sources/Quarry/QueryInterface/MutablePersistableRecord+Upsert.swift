// Upserts with control over the conflict (https://www.sqlite.org/lang_upsert.html):
// the conflict target, the columns a conflict updates (key-path assignments
// that can read the row that would have been inserted, `excluded`), a WHERE
// on the update, and DO NOTHING. GRDB's spellings where it has them.

/// Which columns an upsert overwrites on a conflict, besides those it assigns.
public struct UpsertUpdateStrategy: Sendable, Equatable {
    let overwritesOtherColumns: Bool

    /// Every inserted column, except the primary key and the conflict target,
    /// is overwritten with its inserted value, unless an assignment says
    /// otherwise (the default).
    public static let allColumns = UpsertUpdateStrategy(overwritesOtherColumns: true)

    /// Only the assigned columns change.
    public static let noColumnUnlessSpecified = UpsertUpdateStrategy(overwritesOtherColumns: false)
}

/// The row an upsert would have inserted, `excluded` in SQL: its columns can
/// be read in the assignments and the condition of the update.
///
/// ```swift
/// try counter.upsert(db, onConflict: ["name"]) { excluded in
///     [\.count += excluded[\.count]]
/// }
/// // INSERT INTO "counter" ("name", "count") VALUES (?, ?)
/// // ON CONFLICT ("name") DO UPDATE SET "count" = "count" + excluded."count"
/// ```
public struct UpsertExcluded<Root>: Sendable {
    /// The inserted value of the column of `keyPath`: `excluded."column"`.
    public subscript<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value> where Root: Decodable {
        QueryExpression(SQLExpression.column(keyPath).qualified(by: .excluded))
    }

    /// The inserted value of a column, by name: `excluded."column"`.
    public subscript(_ column: Column) -> QueryExpression<Root, DatabaseValue> {
        QueryExpression(column.sqlExpression.qualified(by: .excluded))
    }
}

extension MutablePersistableRecord {
    /// The clause of a controlled upsert.
    static func upsertClause(
        _ conflictTarget: [String], _ strategy: UpsertUpdateStrategy,
        _ assignments: ((UpsertExcluded<Self>) -> [ColumnAssignment<Self>])?,
        _ condition: ((UpsertExcluded<Self>) -> QueryExpression<Self, Bool>)?
    ) -> UpsertClause {
        let excluded = UpsertExcluded<Self>()
        return UpsertClause(
            conflictTarget: conflictTarget, doesNothing: false,
            assignments: (assignments?(excluded) ?? []).map(\.assignment),
            overwritesOtherColumns: strategy.overwritesOtherColumns,
            condition: condition?(excluded).sqlExpression)
    }

    /// Inserts the record or, on a conflict with the `conflictTarget`
    /// uniqueness constraint, updates the existing row.
    ///
    /// ```swift
    /// // A counter that adds up.
    /// try pageView.upsert(db, onConflict: ["path"]) { excluded in
    ///     [\.count += excluded[\.count], \.lastSeen <- excluded[\.lastSeen]]
    /// }
    /// // INSERT INTO "pageView" ("path", "count", "lastSeen") VALUES (?, ?, ?)
    /// // ON CONFLICT ("path") DO UPDATE SET "count" = "count" + excluded."count", "lastSeen" = excluded."lastSeen"
    /// // RETURNING "rowid"
    /// ```
    ///
    /// - parameters:
    ///   - db: the connection, in a write.
    ///   - conflictTarget: the columns of the primary key or unique index whose
    ///     conflict turns the insert into an update; empty for any.
    ///   - strategy: `.allColumns` (the default) also overwrites the inserted
    ///     columns that `assignments` does not set (except the primary key and
    ///     the conflict target); `.noColumnUnlessSpecified` changes only the
    ///     assigned columns.
    ///   - assignments: the `SET` of the update. Unqualified key paths are the
    ///     existing row's columns; `excluded[\.column]` is the value that
    ///     would have been inserted.
    ///
    /// ``didInsert(_:)`` receives the rowid of the inserted or updated row.
    public mutating func upsert(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil
    ) throws {
        let clause = Self.upsertClause(conflictTarget, strategy, assignments, nil)
        try withSaveCallbacks(db) { try $0.performUpsert(db, clause: clause) }
    }

    /// Inserts the record or, on a conflict, updates the existing row where
    /// `condition` holds; returns whether a row was inserted or updated.
    ///
    /// ```swift
    /// // Keeps the newest version of a synced row.
    /// let written = try note.upsert(db, onConflict: ["id"], where: { excluded in excluded[\.version] > \.version })
    /// // … ON CONFLICT ("id") DO UPDATE SET … WHERE excluded."version" > "version"
    /// ```
    ///
    /// When the condition is false, the existing row is left unchanged, the
    /// record's id is not changed, and `didInsert`/`didSave` are not called.
    @discardableResult
    public mutating func upsert(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil,
        where condition: @escaping (_ excluded: UpsertExcluded<Self>) -> QueryExpression<Self, Bool>
    ) throws -> Bool {
        let clause = Self.upsertClause(conflictTarget, strategy, assignments, condition)
        return try withSaveCallbacks(db) { try $0.performUpsert(db, fetch: nil, as: Row.self, clause: clause) } != nil
    }

    /// Inserts the record unless it conflicts with the `conflictTarget`
    /// uniqueness constraint: `INSERT … ON CONFLICT (…) DO NOTHING`. Returns
    /// whether the row was inserted.
    ///
    /// ```swift
    /// let isNew = try subscription.insert(db, onConflictDoNothing: ["email"])
    /// // INSERT INTO "subscription" ("email", "since") VALUES (?, ?) ON CONFLICT ("email") DO NOTHING
    /// ```
    ///
    /// Unlike `insert(db, onConflict: .ignore)` (`INSERT OR IGNORE`), other
    /// constraint violations (`NOT NULL`, `CHECK`, another unique index)
    /// still throw.
    @discardableResult
    public mutating func insert(_ db: Database, onConflictDoNothing conflictTarget: [String]) throws -> Bool {
        let clause = UpsertClause(conflictTarget: conflictTarget, doesNothing: true)
        return try withSaveCallbacks(db) { try $0.performInsert(db, nil, fetch: nil, as: Row.self, clause: clause) } != nil
    }

    /// Upserts records with multi-row `INSERT … ON CONFLICT … DO UPDATE`
    /// statements, and returns them with their ids set, in order.
    ///
    /// ```swift
    /// let counted = try PageView.upsertAll(db, views, onConflict: ["path"]) { excluded in
    ///     [\.count += excluded[\.count]]
    /// }
    /// // INSERT INTO "pageView" ("id", "path", "count") VALUES (?, ?, ?), (?, ?, ?)
    /// // ON CONFLICT ("path") DO UPDATE SET "count" = "count" + excluded."count"
    /// // RETURNING "path", rowid
    /// ```
    ///
    /// Each record is upserted as ``upsert(_:onConflict:updating:doUpdate:)``
    /// would, and records later in the sequence see the rows written by
    /// earlier ones. The statements are chunked as ``insertAll(_:_:onConflict:)``
    /// chunks its inserts (up to 1,000 rows each), and run in a savepoint:
    /// all records are upserted, or none.
    ///
    /// A record whose conflict key is already in the statement being gathered
    /// starts the next one: PostgreSQL refuses a statement that updates a row
    /// twice ("ON CONFLICT DO UPDATE command cannot affect row a second
    /// time"), and SQLite gets the same statements. The ids come back through
    /// `RETURNING`, matched to the records by their conflict key. Records get
    /// one statement each without a conflict target on SQLite (the conflict
    /// may then be on any unique key), on a table with triggers, and when
    /// their key holds a `NULL`.
    ///
    /// `willSave`, `willInsert`, `didInsert` and `didSave` are called for
    /// each record; `aroundSave` and `aroundInsert` are not, since one
    /// statement writes many records.
    ///
    /// - parameters:
    ///   - db: the connection, in a write.
    ///   - records: the records to upsert.
    ///   - conflictTarget: the columns of the primary key or unique index whose
    ///     conflict turns an insert into an update; empty for any (on
    ///     PostgreSQL, the primary key).
    ///   - strategy: `.allColumns` (the default) also overwrites the inserted
    ///     columns that `assignments` does not set (except the primary key and
    ///     the conflict target); `.noColumnUnlessSpecified` changes only the
    ///     assigned columns.
    ///   - assignments: the `SET` of the update, as in
    ///     ``upsert(_:onConflict:updating:doUpdate:)``.
    /// - returns: the records, with the ids of their rows.
    @discardableResult
    public static func upsertAll(
        _ db: Database, _ records: some Sequence<Self>, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil
    ) throws -> [Self] {
        try performUpsertAll(db, records, clause: upsertClause(conflictTarget, strategy, assignments, nil))
    }

    /// Upserts records with multi-row statements, updating an existing row
    /// only where `condition` holds; returns the records that were inserted
    /// or updated, with their ids set, in order.
    ///
    /// ```swift
    /// // Keeps the newest version of each synced note.
    /// let written = try Note.upsertAll(db, notes, onConflict: ["uid"], where: { excluded in
    ///     excluded[\.version] > \.version
    /// })
    /// // INSERT INTO "note" ("id", "uid", "body", "version") VALUES (?, ?, ?, ?), (?, ?, ?, ?)
    /// // ON CONFLICT ("uid") DO UPDATE SET "body" = excluded."body", "version" = excluded."version"
    /// // WHERE excluded."version" > "version"
    /// // RETURNING "uid", rowid
    /// ```
    ///
    /// A record whose update the condition refuses leaves its row unchanged,
    /// gets no `didInsert`/`didSave`, and is left out of the result. The
    /// statements are those of ``upsertAll(_:_:onConflict:updating:doUpdate:)``.
    @discardableResult
    public static func upsertAll(
        _ db: Database, _ records: some Sequence<Self>, onConflict conflictTarget: [String] = [],
        updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil,
        where condition: @escaping (_ excluded: UpsertExcluded<Self>) -> QueryExpression<Self, Bool>
    ) throws -> [Self] {
        try performUpsertAll(db, records, clause: upsertClause(conflictTarget, strategy, assignments, condition))
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Upserts the record (``upsert(_:onConflict:updating:doUpdate:)``) and
    /// returns the row as the database stored it.
    ///
    /// ```swift
    /// let total = try pageView.upsertAndFetch(db, onConflict: ["path"]) { excluded in [\.count += excluded[\.count]] }
    /// // … RETURNING *, rowid
    /// ```
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil
    ) throws -> Self {
        try db.require(.returning, "RETURNING (upsertAndFetch)")
        let clause = Self.upsertClause(conflictTarget, strategy, assignments, nil)
        let fetched = try withSaveCallbacks(db) {
            try $0.performUpsert(db, fetch: Self.databaseSelection, as: Self.self, clause: clause)
        }
        guard let fetched = fetched ?? nil else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: [:])
        }
        return fetched
    }

    /// Upserts the record with a condition on the update, and returns the
    /// row as the database stored it, or nil when the condition kept the
    /// existing row unchanged.
    public mutating func upsertAndFetch(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil,
        where condition: @escaping (_ excluded: UpsertExcluded<Self>) -> QueryExpression<Self, Bool>
    ) throws -> Self? {
        try db.require(.returning, "RETURNING (upsertAndFetch)")
        let clause = Self.upsertClause(conflictTarget, strategy, assignments, condition)
        let fetched = try withSaveCallbacks(db) {
            try $0.performUpsert(db, fetch: Self.databaseSelection, as: Self.self, clause: clause)
        }
        return fetched ?? nil
    }
}

extension PersistableRecord {
    /// ``MutablePersistableRecord/upsert(_:onConflict:updating:doUpdate:)``
    /// for records that need no id write-back.
    @_disfavoredOverload
    public func upsert(
        _ db: Database, onConflict conflictTarget: [String] = [], updating strategy: UpsertUpdateStrategy = .allColumns,
        doUpdate assignments: ((_ excluded: UpsertExcluded<Self>) -> [ColumnAssignment<Self>])? = nil
    ) throws {
        var record = self
        try record.upsert(db, onConflict: conflictTarget, updating: strategy, doUpdate: assignments)
    }

    /// ``MutablePersistableRecord/insert(_:onConflictDoNothing:)`` for
    /// records that need no id write-back.
    @_disfavoredOverload
    @discardableResult
    public func insert(_ db: Database, onConflictDoNothing conflictTarget: [String]) throws -> Bool {
        var record = self
        return try record.insert(db, onConflictDoNothing: conflictTarget)
    }
}
