// Requests refined with raw SQL fragments (order(sql:), select(sql:),
// group(sql:), having(sql:)) and with untyped columns (order(Column("a")),
// select(Column("a"), as:), group(Column("a"))), GRDB's spellings.
//
// Fragments are used as written, with their arguments bound (positional or
// named); never build them from user input.

extension QueryRequest {
    // MARK: - Raw SQL

    /// Orders by raw SQL, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().order(sql: "score DESC, name")   // ORDER BY score DESC, name
    /// ```
    public func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest {
        order([QueryOrdering(ordering: SQLOrdering(expression: SQLExpression(sql: sql, arguments: arguments), isDescending: false))])
    }

    /// Selects raw SQL; rows decode as the request's result type.
    ///
    /// ```swift
    /// try Player.all().select(sql: "id, upper(name) AS name, score").fetchAll(db)
    /// ```
    public func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest {
        selecting([SQLSelectable(expression: SQLExpression(sql: sql, arguments: arguments), alias: nil)], decoder: decoder)
    }

    /// Selects raw SQL; rows decode as `type`.
    ///
    /// ```swift
    /// let total = try Player.all().select(sql: "SUM(score)", as: Int.self).fetchOne(db)
    /// ```
    public func select<Value>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: Value.Type
    ) -> QueryRequest<Root, Value> {
        selecting(
            [SQLSelectable(expression: SQLExpression(sql: sql, arguments: arguments), alias: nil)],
            decoder: .value(Value.self, of: Root.self))
    }

    /// Groups by raw SQL: `GROUP BY`.
    public func group(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest {
        modified { $0.groupBy = [SQLExpression(sql: sql, arguments: arguments)] }
    }

    /// Keeps the groups that match raw SQL: `HAVING`.
    public func having(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest {
        having(QueryExpression(SQLExpression(sql: sql, arguments: arguments)))
    }

    // MARK: - Untyped columns

    /// Orders by columns, ascending, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().order(Column("score"), Column("name"))   // ORDER BY "score", "name"
    /// ```
    public func order(_ columns: Column...) -> QueryRequest {
        order(columns.map { QueryOrdering(ordering: $0.asc) })
    }

    /// Orders by column orderings, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().order(Column("score").desc, Column("name").asc)   // ORDER BY "score" DESC, "name"
    /// ```
    public func order(_ orderings: SQLOrdering...) -> QueryRequest {
        order(orderings.map { QueryOrdering(ordering: $0) })
    }

    /// Selects one column; rows decode as `type`.
    ///
    /// ```swift
    /// let names = try Player.all().select(Column("name"), as: String.self).fetchAll(db)
    /// ```
    public func select<Value>(_ column: Column, as type: Value.Type) -> QueryRequest<Root, Value> {
        selecting([SQLSelectable(expression: column.sqlExpression, alias: nil)], decoder: .value(Value.self, of: Root.self))
    }

    /// Selects one expression; rows decode as `type`, whatever the
    /// expression's own type (an expression of a ``Column`` has none).
    ///
    /// ```swift
    /// let best = try Player.all().select(max(Column("score")), as: Int.self).fetchOne(db)
    /// // SELECT MAX("score") FROM "player"
    /// ```
    public func select<Expressed, Value>(_ expression: QueryExpression<Root, Expressed>, as type: Value.Type) -> QueryRequest<Root, Value> {
        selecting([SQLSelectable(expression: expression.sqlExpression, alias: nil)], decoder: .value(Value.self, of: Root.self))
    }

    /// Groups by columns: `GROUP BY`.
    public func group(_ columns: Column...) -> QueryRequest {
        modified { $0.groupBy = columns.map(\.sqlExpression) }
    }
}
