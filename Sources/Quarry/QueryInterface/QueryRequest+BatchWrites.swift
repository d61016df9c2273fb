// Batch writes on requests: deleteAll and updateAll, and their RETURNING forms.
//
// See https://www.sqlite.org/lang_delete.html, https://www.sqlite.org/lang_update.html
// and https://www.sqlite.org/lang_returning.html.

extension QueryRequest {
    /// Deletes the rows the request matches, and returns how many were deleted.
    ///
    /// ```swift
    /// try Player.filter(\.score < 0).deleteAll(db)   // DELETE FROM "player" WHERE "score" < ?
    /// ```
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let context = SQLGenerationContext(db: db)
        let sql = try context.deleteSQL(query, returning: nil)
        try execute(db, sql, context.arguments)
        return db.changesCount
    }

    /// Updates the rows the request matches, and returns how many were updated.
    ///
    /// ```swift
    /// try Player.filter(\.teamID == nil).updateAll(db, \.score += 1)
    /// // UPDATE "player" SET "score" = "score" + ? WHERE "team_id" IS NULL
    /// ```
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: ColumnAssignment<Root>...) throws -> Int {
        try updateAll(db, assignments)
    }

    /// Updates the rows the request matches, and returns how many were updated.
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: [ColumnAssignment<Root>]) throws -> Int {
        let context = SQLGenerationContext(db: db)
        let sql = try context.updateSQL(
            query, assignments: assignments.map { $0.assignment }, conflictResolution: nil, returning: nil)
        try execute(db, sql, context.arguments)
        return db.changesCount
    }

    /// Deletes the rows the request matches and returns the chosen columns of
    /// each deleted row: `DELETE ... RETURNING`.
    ///
    /// ```swift
    /// let ids: [Int64] = try Player.filter(\.score < 0).deleteAll(db, returning: \.id)
    /// ```
    public func deleteAll<each Value>(
        _ db: Database, returning keyPaths: repeat KeyPath<Root, each Value>
    ) throws -> [(repeat each Value)] where Root: Decodable {
        let selection = Self.selection(repeat each keyPaths)
        let context = SQLGenerationContext(db: db)
        let sql = try context.deleteSQL(query, returning: selection)
        return try fetchReturning(db, sql, context.arguments, ResultDecoder<(repeat each Value)>.columns(repeat (each Value).self, of: Root.self))
    }

    /// Updates the rows the request matches and returns the chosen columns of
    /// each updated row, with their new values: `UPDATE ... RETURNING`.
    ///
    /// ```swift
    /// let scores = try Player.filter(\.teamID == 1).updateAll(db, [\.score += 1], returning: \.id, \.score)
    /// ```
    public func updateAll<each Value>(
        _ db: Database, _ assignments: [ColumnAssignment<Root>], returning keyPaths: repeat KeyPath<Root, each Value>
    ) throws -> [(repeat each Value)] where Root: Decodable {
        let selection = Self.selection(repeat each keyPaths)
        let context = SQLGenerationContext(db: db)
        let sql = try context.updateSQL(
            query, assignments: assignments.map { $0.assignment }, conflictResolution: nil, returning: selection)
        return try fetchReturning(db, sql, context.arguments, ResultDecoder<(repeat each Value)>.columns(repeat (each Value).self, of: Root.self))
    }

    /// Deletes the rows the request matches and returns them as records:
    /// `DELETE ... RETURNING *`.
    ///
    /// ```swift
    /// let deleted: [Player] = try Player.filter(\.score < 0).deleteAndFetchAll(db)
    /// // DELETE FROM "player" WHERE "score" < ? RETURNING *
    /// ```
    public func deleteAndFetchAll(_ db: Database) throws -> [Root] where Root: FetchableRecord {
        let context = SQLGenerationContext(db: db)
        let sql = try context.deleteSQL(query, returning: [])
        return try fetchReturning(db, sql, context.arguments, .record(recordType: Root.self, tableName: query.tableName))
    }

    /// Updates the rows the request matches and returns them, with their new
    /// values, as records: `UPDATE ... RETURNING *`.
    ///
    /// ```swift
    /// let promoted: [Player] = try Player.filter(\.score > 100).updateAndFetchAll(db, \.teamID <- 1)
    /// // UPDATE "player" SET "team_id" = ? WHERE "score" > ? RETURNING *
    /// ```
    public func updateAndFetchAll(_ db: Database, _ assignments: ColumnAssignment<Root>...) throws -> [Root]
    where Root: FetchableRecord {
        let context = SQLGenerationContext(db: db)
        let sql = try context.updateSQL(
            query, assignments: assignments.map { $0.assignment }, conflictResolution: nil, returning: [])
        return try fetchReturning(db, sql, context.arguments, .record(recordType: Root.self, tableName: query.tableName))
    }

    static func selection<each Value>(_ keyPaths: repeat KeyPath<Root, each Value>) -> [SQLSelectable] where Root: Decodable {
        var selection: [SQLSelectable] = []
        for keyPath in repeat each keyPaths {
            selection.append(SQLSelectable(expression: .column(keyPath), alias: nil))
        }
        return selection
    }

    private func execute(_ db: Database, _ sql: String, _ arguments: [DatabaseValue]) throws {
        try db.prepared(sql: sql, arguments: StatementArguments(databaseValues: arguments)).forEachRow {}
    }

    /// Runs a statement with RETURNING and decodes every returned row.
    func fetchReturning<Value>(
        _ db: Database, _ sql: String, _ arguments: [DatabaseValue], _ decoder: ResultDecoder<Value>
    ) throws -> [Value] {
        try db.prepared(sql: sql, arguments: StatementArguments(databaseValues: arguments))
            .fetchAll(decoder.reading(.plain))
    }
}
