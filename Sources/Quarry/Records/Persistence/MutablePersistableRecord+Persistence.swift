// Persistence methods of records: insert, update, updateChanges, save, upsert, delete.
//
// Each method encodes the record into a PersistenceContainer, then runs a
// statement plan cached per connection by (record type, operation, column
// list): the SQL is built and compiled once, and values are bound by position.

import Foundation

extension MutablePersistableRecord {
    // MARK: - Encoding

    /// The values of the record, encoded with this connection's layout for the type.
    func persistenceContainer(_ db: Database) throws -> PersistenceContainer {
        var container = PersistenceContainer()
        container.encodingLayout = db.recordCache.encodingLayout(for: Self.self)
        try encode(to: &container)
        try container.checkConversion()
        container.encodingLayout = nil
        return container
    }

    static func schema(_ db: Database) throws -> TableSchema {
        try db.recordCache.schema(for: databaseTableName, in: db)
    }

    /// The schema, for a write: throws viewNotWritable when the table is a
    /// view that SQLite would refuse the statement on (a check of the cached
    /// schema, no query).
    static func schema(_ db: Database, writing statement: PersistenceStatement) throws -> TableSchema {
        let schema = try db.recordCache.schema(for: databaseTableName, in: db)
        guard schema.accepts(statement) else {
            throw RecordError.viewNotWritable(
                recordType: String(describing: Self.self), databaseViewName: databaseTableName, statement: statement.rawValue)
        }
        return schema
    }

    static func statementKey(_ kind: RecordStatementKey.Kind, _ conflict: ConflictResolution = .abort) -> RecordStatementKey {
        RecordStatementKey(type: ObjectIdentifier(Self.self), kind: kind, conflict: conflict)
    }

    // MARK: - Insert

    /// Inserts the record.
    ///
    /// ```swift
    /// var player = Player(id: nil, name: "Arthur", score: 100)
    /// try player.insert(db)
    /// // INSERT INTO "player" ("id", "name", "score") VALUES (?, ?, ?)
    /// ```
    ///
    /// Generated columns are never written, and a `NULL` for a column that has
    /// a `DEFAULT` is left out so that the default applies. After the insert,
    /// ``didInsert(_:)`` receives the rowid. With `onConflict: .ignore`, a row
    /// that was not inserted calls neither `didInsert` nor `didSave`.
    ///
    /// - parameters:
    ///   - db: the database connection.
    ///   - conflictResolution: the `OR` policy (<https://www.sqlite.org/lang_conflict.html>);
    ///     nil uses ``MutablePersistableRecord/persistenceConflictPolicy``.
    public mutating func insert(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws {
        try withSaveCallbacks(db) { try $0.performInsert(db, conflictResolution, clause: nil) }
    }

    /// Inserts a copy of the record and returns it, with its id set.
    public func inserted(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws -> Self {
        var record = self
        try record.insert(db, onConflict: conflictResolution)
        return record
    }

    /// The columns an INSERT writes: not generated, and not NULL for a column with a DEFAULT.
    static func insertedColumnIndexes(_ container: PersistenceContainer, _ schema: TableSchema) -> [Int]? {
        if schema.generatedColumns.isEmpty && schema.columnsWithDefault.isEmpty { return nil }
        var indexes: [Int] = []
        for (index, column) in container.columns.enumerated() {
            let lowercased = column.asciiLowercased
            if schema.generatedColumns.contains(lowercased) { continue }
            if container.databaseValues[index].isNull && schema.columnsWithDefault.contains(lowercased) { continue }
            indexes.append(index)
        }
        return indexes.count == container.columns.count ? nil : indexes
    }

    /// The plan of an INSERT or UPSERT of `container`.
    func insertPlan(
        _ db: Database, _ container: PersistenceContainer, _ schema: TableSchema,
        _ kind: RecordStatementKey.Kind, _ conflict: ConflictResolution, returning: String
    ) throws -> StatementPlan {
        var key = Self.statementKey(kind, conflict)
        key.returning = returning
        let writtenIndexes = Self.insertedColumnIndexes(container, schema)
        // When some columns are left out, the plan depends on which: key it by them.
        let cacheColumns = writtenIndexes.map { $0.map { container.columns[$0] } } ?? container.columns
        return try db.recordCache.plan(key, columns: cacheColumns, db: db) {
            let indexes = writtenIndexes ?? Array(container.columns.indices)
            let columns = indexes.map { container.columns[$0] }
            var upsertUpdating: [String]?
            if kind == .upsert {
                let keyColumns = Set(schema.primaryKey.map { $0.asciiLowercased })
                let updated = columns.filter { !keyColumns.contains($0.asciiLowercased) }
                upsertUpdating = updated.isEmpty ? columns : updated
            }
            // PostgreSQL's DO UPDATE needs a conflict target: the primary key.
            let sql = RecordStatementSQL.insert(
                into: Self.databaseTableName, columns: columns, conflict: conflict, upsertUpdating: upsertUpdating,
                returning: returning.isEmpty ? nil : returning,
                upsertTarget: db.sqlDialect.features.contains(.upsertRequiresConflictTarget) ? schema.primaryKey : [], dialect: db.sqlDialect)
            return PlanSource(sql: sql, bindings: indexes)
        }
    }

    /// The plan of an INSERT of `container` followed by the `ON CONFLICT`
    /// clause of a controlled upsert, and the values the clause binds (after
    /// the container's).
    func insertPlan(
        _ db: Database, _ container: PersistenceContainer, _ schema: TableSchema, clause: UpsertClause, returning: String
    ) throws -> (plan: StatementPlan, clauseValues: [DatabaseValue]) {
        let indexes = Self.insertedColumnIndexes(container, schema) ?? Array(container.columns.indices)
        let columns = indexes.map { container.columns[$0] }
        if columns.isEmpty {
            throw DatabaseError.misuse("an upsert of \(Self.self) needs at least one column to insert (SQLite has no upsert after DEFAULT VALUES)")
        }
        let context = SQLGenerationContext(db: db)
        let clauseSQL = try context.upsertClauseSQL(
            clause, table: Self.databaseTableName, insertedColumns: columns, primaryKey: schema.primaryKey)
        let clauseValues = context.arguments
        var key = Self.statementKey(.upsert, .abort)
        key.returning = returning
        key.extra = clauseSQL
        let plan = try db.recordCache.plan(key, columns: columns, db: db) {
            let sql = RecordStatementSQL.insert(
                into: Self.databaseTableName, columns: columns, conflict: .abort, upsertUpdating: nil,
                returning: returning.isEmpty ? nil : returning, conflictClause: clauseSQL, dialect: db.sqlDialect)
            return PlanSource(sql: sql, bindings: indexes + Array(container.columns.count..<(container.columns.count + clauseValues.count)))
        }
        return (plan, clauseValues)
    }

    /// The plan of the INSERT of `container`: under the `ON CONFLICT` clause
    /// of a controlled upsert when there is one (whose values are appended
    /// to `values`), otherwise as `kind` with `conflict`.
    @inline(__always)
    func insertPlan(
        _ db: Database, _ container: PersistenceContainer, _ schema: TableSchema, clause: UpsertClause?,
        otherwise kind: RecordStatementKey.Kind, _ conflict: ConflictResolution, returning: String,
        values: inout [DatabaseValue]
    ) throws -> StatementPlan {
        guard let clause else { return try insertPlan(db, container, schema, kind, conflict, returning: returning) }
        let controlled = try insertPlan(db, container, schema, clause: clause, returning: returning)
        values += controlled.clauseValues
        return controlled.plan
    }

    // MARK: - Update

    /// Updates all columns of the row that has the record's primary key.
    ///
    /// ```swift
    /// try player.update(db)
    /// // UPDATE "player" SET "name" = ?, "score" = ? WHERE "id" = ?
    /// ```
    ///
    /// Throws ``RecordError/recordNotFound(databaseTableName:key:)`` when no
    /// row has this primary key (or the key is `NULL`).
    public func update(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws {
        var record = self
        try record.withSaveCallbacks(db) { try $0.performUpdate(db, columns: nil, conflictResolution) }
    }

    /// Updates the given columns of the row that has the record's primary key.
    ///
    /// ```swift
    /// try player.update(db, columns: ["score"])
    /// // UPDATE "player" SET "score" = ? WHERE "id" = ?
    /// ```
    ///
    /// Column names are compared case-insensitively; names the record does
    /// not encode are ignored.
    public func update(
        _ db: Database, onConflict conflictResolution: ConflictResolution? = nil, columns: some Collection<String>
    ) throws {
        var record = self
        let subset = Set(columns.map { $0.asciiLowercased })
        try record.withSaveCallbacks(db) { try $0.performUpdate(db, columns: subset, conflictResolution) }
    }

    /// The plan of an UPDATE of `container`.
    func updatePlan(
        _ db: Database, _ container: PersistenceContainer, _ schema: TableSchema,
        columns subset: Set<String>?, _ conflict: ConflictResolution, returning: String
    ) throws -> StatementPlan {
        var key = Self.statementKey(.update, conflict)
        key.returning = returning
        if let subset { key.extra = subset.sorted().joined(separator: "\u{0}") }
        return try db.recordCache.plan(key, columns: container.columns, db: db) {
            let keyIndexes = try Self.keyIndexes(container, schema)
            let keyColumns = Set(schema.primaryKey.map { $0.asciiLowercased })
            var setIndexes = container.columns.indices.filter { index in
                let column = container.columns[index].asciiLowercased
                return !keyColumns.contains(column) && schema.isWritable(column)
                    && (subset == nil || subset?.contains(column) == true)
            }
            // Nothing to set but the key: set the key to itself, which still
            // tells whether the row exists.
            if setIndexes.isEmpty { setIndexes = keyIndexes }
            let sql = RecordStatementSQL.update(
                Self.databaseTableName, setting: setIndexes.map { container.columns[$0] },
                keyColumns: keyIndexes.map { container.columns[$0] }, conflict: conflict,
                returning: returning.isEmpty ? nil : returning, dialect: db.sqlDialect)
            return PlanSource(
                sql: sql, bindings: setIndexes + keyIndexes, keyIndexes: keyIndexes,
                assignedColumns: Set(setIndexes.map { container.columns[$0] }))
        }
    }

    /// The container indexes of the primary key columns; throws if one is missing.
    static func keyIndexes(_ container: PersistenceContainer, _ schema: TableSchema) throws -> [Int] {
        guard !schema.primaryKey.isEmpty else {
            let reason = schema.isView
                ? "a view has no primary key; write through it with updateAll or deleteAll on a request"
                : "the table has no primary key"
            throw RecordError.invalidKey(databaseTableName: databaseTableName, reason: reason)
        }
        return try schema.primaryKey.map { column in
            guard let index = container.index(ofColumn: column) else {
                throw RecordError.missingPrimaryKey(databaseTableName: databaseTableName, column: column)
            }
            return index
        }
    }

    /// Throws recordNotFound when a key value is NULL: no row can match it.
    func checkKey(_ container: PersistenceContainer, _ schema: TableSchema, _ plan: StatementPlan) throws {
        for index in plan.keyIndexes where container.databaseValues[index].isNull {
            throw Self.notFound(container, schema, plan)
        }
    }

    static func notFound(_ container: PersistenceContainer, _ schema: TableSchema, _ plan: StatementPlan) -> RecordError {
        var key: [String: DatabaseValue] = [:]
        for index in plan.keyIndexes { key[container.columns[index]] = container.databaseValues[index] }
        return .recordNotFound(databaseTableName: databaseTableName, key: key)
    }

    /// Updates the columns whose values differ from `old`; does nothing (no
    /// statement at all) when none differ. Returns whether it updated.
    ///
    /// ```swift
    /// let old = player
    /// player.score += 10
    /// try player.updateChanges(db, from: old)   // UPDATE "player" SET "score" = ? WHERE "id" = ?
    /// ```
    @discardableResult
    public func updateChanges(_ db: Database, from old: Self) throws -> Bool {
        let changed = try changedColumns(from: old).map(\.column)
        guard !changed.isEmpty else { return false }
        try update(db, columns: changed)
        return true
    }

    /// Modifies the record with `modify`, then updates the columns that changed.
    ///
    /// ```swift
    /// try player.updateChanges(db) { $0.score += 10 }
    /// ```
    @discardableResult
    public mutating func updateChanges(_ db: Database, modify: (inout Self) throws -> Void) throws -> Bool {
        let old = self
        try modify(&self)
        return try updateChanges(db, from: old)
    }

    // MARK: - Save

    /// Updates the record if its primary key is set and a row has it, inserts it otherwise.
    ///
    /// ```swift
    /// try player.save(db)   // UPDATE, or INSERT when the id is nil or not found
    /// ```
    public mutating func save(_ db: Database, onConflict conflictResolution: ConflictResolution? = nil) throws {
        try withSaveCallbacks(db) { try $0.performSave(db, conflictResolution) }
    }

    func hasNonNullPrimaryKey(_ db: Database) throws -> Bool {
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db)
        for column in schema.primaryKey {
            guard let value = container.databaseValue(forColumn: column), !value.isNull else { return false }
        }
        return !schema.primaryKey.isEmpty
    }

    // MARK: - Upsert

    /// Inserts the record, or updates the row it conflicts with.
    ///
    /// ```swift
    /// try player.upsert(db)
    /// // INSERT INTO "player" ("id", "email", "score") VALUES (?, ?, ?)
    /// // ON CONFLICT DO UPDATE SET "email" = excluded."email", "score" = excluded."score"
    /// // RETURNING "rowid"
    /// ```
    ///
    /// A conflict on any uniqueness constraint (primary key or unique index)
    /// updates every column except the primary key
    /// (<https://www.sqlite.org/lang_upsert.html>). ``didInsert(_:)`` receives
    /// the rowid of the inserted or updated row.
    public mutating func upsert(_ db: Database) throws {
        try withSaveCallbacks(db) { try $0.performUpsert(db, clause: nil) }
    }

    // MARK: - Delete

    /// Deletes the row that has the record's primary key; returns whether a row was deleted.
    ///
    /// ```swift
    /// try player.delete(db)   // DELETE FROM "player" WHERE "id" = ?
    /// ```
    @discardableResult
    public func delete(_ db: Database) throws -> Bool {
        // With no selection, the engine never calls `fetch`.
        try performDelete(db, selection: nil) { _, _ in true }
    }

    func deletePlan(
        _ db: Database, _ container: PersistenceContainer, _ schema: TableSchema, returning: String
    ) throws -> StatementPlan {
        var key = Self.statementKey(.delete)
        key.returning = returning
        return try db.recordCache.plan(key, columns: container.columns, db: db) {
            let keyIndexes = try Self.keyIndexes(container, schema)
            let sql = RecordStatementSQL.delete(
                from: Self.databaseTableName, keyColumns: keyIndexes.map { container.columns[$0] },
                returning: returning.isEmpty ? nil : returning)
            return PlanSource(sql: sql, bindings: keyIndexes, keyIndexes: keyIndexes)
        }
    }

    /// Whether a row has the record's primary key.
    public func exists(_ db: Database) throws -> Bool {
        let container = try persistenceContainer(db)
        let schema = try Self.schema(db)
        let keyIndexes = try Self.keyIndexes(container, schema)
        return try Self.exists(db, keyColumns: keyIndexes.map { container.columns[$0] },
                               values: keyIndexes.map { container.databaseValues[$0] })
    }
}
