// Fetching from a QueryRequest: SQL generation, the statement cache, and the
// fetchAll / fetchOne / fetchCursor / fetchSet / fetchCount methods.

extension QueryRequest {
    /// The SQL and arguments of the request, as ``fetchAll(_:)`` would run them.
    ///
    /// ```swift
    /// let generated = try Player.filter(\.score > 10).sql(db)
    /// // SELECT * FROM "player" WHERE "score" > ?   [10]
    /// ```
    public func sql(_ db: Database) throws -> GeneratedSQL {
        try generate(db, query: effectiveQuery(db))
    }

    /// The query with the primary key ordering that `reversed()` or
    /// `orderByPrimaryKey()` asked for.
    func effectiveQuery(_ db: Database) throws -> SQLSelectQuery {
        var query = query
        if reversesPrimaryKey || ordersByPrimaryKey, query.ordering.isEmpty, let table = query.tableName {
            query.ordering = try SQLSchemaLookup.primaryKey(db, table: table).map {
                SQLOrdering(expression: .column($0), isDescending: reversesPrimaryKey, nulls: nil)
            }
        }
        return query
    }

    func generate(_ db: Database, query: SQLSelectQuery) throws -> GeneratedSQL {
        let context = SQLGenerationContext(db: db)
        let sql = try context.selectSQL(query)
        return GeneratedSQL(sql: sql, arguments: StatementArguments(databaseValues: context.arguments))
    }

    /// The rows of `query`, copied, their layout and the SQL that selected them.
    func copiedRows(_ db: Database, query: SQLSelectQuery) throws -> (rows: [Row], layout: SelectionLayout, sql: String) {
        let (statement, layout) = try prepared(db, query: query)
        return (try statement.fetchAll(.rows), layout, statement.sql)
    }

    /// The statement of `query`, with its arguments bound, and the layout of its rows.
    func prepared(_ db: Database, query: SQLSelectQuery) throws -> (any PreparedStatement, SelectionLayout) {
        let context = SQLGenerationContext(db: db)
        let sql = try context.selectSQL(query)
        let layout = try context.selectionLayout(of: query)
        return (try db.prepared(sql: sql, arguments: StatementArguments(databaseValues: context.arguments)), layout)
    }

    /// All the rows of the request.
    public func fetchAll(_ db: Database) throws -> [Result] {
        let query = try effectiveQuery(db)
        if !prefetches.isEmpty {
            return try fetchAllWithPrefetches(db, query: query)
        }
        let (statement, layout) = try prepared(db, query: query)
        return try statement.fetchAll(decoder.reading(layout))
    }

    /// The first row of the request, or nil. Adds `LIMIT 1` to the SQL.
    public func fetchOne(_ db: Database) throws -> Result? {
        var query = try effectiveQuery(db)
        if (query.limit ?? 2) > 1 { query.limit = 1 }
        if !prefetches.isEmpty {
            return try fetchAllWithPrefetches(db, query: query).first
        }
        let (statement, layout) = try prepared(db, query: query)
        return try statement.fetchOne(decoder.reading(layout))
    }

    /// A cursor over the rows of the request, read one at a time in constant memory.
    public func fetchCursor(_ db: Database) throws -> StatementCursor<Result> {
        if !prefetches.isEmpty {
            throw DatabaseError.misuse("including(all:) needs all parent rows at once: use fetchAll instead of fetchCursor")
        }
        let query = try effectiveQuery(db)
        let (statement, layout) = try prepared(db, query: query)
        return try statement.fetchCursor(decoder.reading(layout))
    }

    /// The number of rows the request returns.
    ///
    /// ```swift
    /// try Player.filter(\.score > 10).fetchCount(db)
    /// // SELECT COUNT(*) FROM "player" WHERE "score" > ?
    /// ```
    public func fetchCount(_ db: Database) throws -> Int {
        let (statement, _) = try prepared(db, query: countQuery(try effectiveQuery(db)))
        return try statement.fetchOne(.firstColumn) ?? 0
    }

    /// Whether the request returns at least one row.
    public func fetchExists(_ db: Database) throws -> Bool {
        // SELECT EXISTS (...) needs no FROM clause.
        let context = SQLGenerationContext(db: db)
        let sql = "SELECT " + (try context.sql(SQLExpression(.exists(try effectiveQuery(db), negated: false))))
        let statement = try db.prepared(sql: sql, arguments: StatementArguments(databaseValues: context.arguments))
        return try statement.fetchOne(.firstColumn) ?? false
    }

    /// The query that counts the rows of `query`.
    func countQuery(_ query: SQLSelectQuery) -> SQLSelectQuery {
        let isPlainTableQuery = query.tableName != nil && !query.isDistinct && query.groupBy.isEmpty
            && query.having == nil && query.limit == nil && query.offset == nil
            && query.commonTableExpressions.isEmpty && query.joins.allSatisfy { !$0.isSelected }
        if isPlainTableQuery {
            var counting = query
            counting.selection = [SQLSelectable(expression: .countAll, alias: nil)]
            counting.ordering = []
            return counting
        }
        var counting = SQLSelectQuery(source: .subquery(query))
        counting.selection = [SQLSelectable(expression: .countAll, alias: nil)]
        return counting
    }
}

extension QueryRequest where Result: Hashable {
    /// The distinct rows of the request, as a set.
    public func fetchSet(_ db: Database) throws -> Set<Result> {
        Set(try fetchAll(db))
    }
}
