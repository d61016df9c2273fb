// The interpolations of SQL literals that name query-interface things: a
// record type's table, a key path's column, a typed expression, a column, a
// request as a subquery. See SQL/SQL.swift for the literal itself.

extension SQLInterpolation {
    /// Appends the quoted table name of a record type: `"player"`.
    ///
    /// ```swift
    /// let sql: SQL = "SELECT * FROM \(Player.self)"   // SELECT * FROM "player"
    /// ```
    public mutating func appendInterpolation<Record: TableRecord>(_ table: Record.Type) {
        elements.append(.identifier(Record.databaseTableName))
    }

    /// Appends the quoted column of a key path: `"score"`.
    ///
    /// ```swift
    /// let sql: SQL = "SELECT \(\Player.score) FROM \(Player.self)"   // SELECT "score" FROM "player"
    /// ```
    ///
    /// A key path that names no column makes the SQL generation throw.
    public mutating func appendInterpolation<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) {
        elements.append(.expression(.column(keyPath)))
    }

    /// Appends the quoted name of a column.
    public mutating func appendInterpolation(_ column: Column) {
        elements.append(.expression(column.sqlExpression))
    }

    /// Appends a typed expression, its values bound: `"score" + ?`.
    public mutating func appendInterpolation<Root, Value>(_ expression: QueryExpression<Root, Value>) {
        elements.append(.expression(expression.sqlExpression))
    }

    /// Appends a request's `SELECT` statement, without parentheses, as GRDB
    /// does: write the parentheses a subquery needs around it.
    ///
    /// ```swift
    /// let best = Player.select(max(\.score))
    /// let sql: SQL = "SELECT * FROM \(Player.self) WHERE \(\Player.score) = (\(best))"
    /// // SELECT * FROM "player" WHERE "score" = (SELECT MAX("score") FROM "player")
    ///
    /// let members = Player.filter(\.teamID != nil).select(\.id)
    /// let names = SQLRequest<String>("SELECT name FROM player WHERE id IN (\(members))")
    /// // SELECT name FROM player WHERE id IN (SELECT "id" FROM "player" WHERE "teamID" IS NOT NULL)
    /// ```
    ///
    /// Forgetting the parentheses is a syntax error, never another result.
    public mutating func appendInterpolation<Root, Result>(_ request: QueryRequest<Root, Result>) {
        elements.append(.query(request.query))
    }
}

extension QueryRequest {
    // MARK: - SQL literals

    /// Keeps the rows that match an SQL literal, its interpolations bound
    /// (combined with `AND` with previous filters).
    ///
    /// ```swift
    /// Player.filter(literal: "\(\Player.score) > \(minimum)")   // WHERE "score" > ?
    /// ```
    public func filter(literal: SQL) -> QueryRequest {
        modified { $0.addFilter(SQLExpression(.interpolated(literal))) }
    }

    /// Orders by an SQL literal, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().order(literal: "\(\Player.score) DESC, \(\Player.name)")
    /// ```
    public func order(literal: SQL) -> QueryRequest {
        order([QueryOrdering(ordering: SQLOrdering(expression: SQLExpression(.interpolated(literal)), isDescending: false))])
    }

    /// Selects an SQL literal; rows decode as the request's result type.
    ///
    /// ```swift
    /// Player.all().select(literal: "\(\Player.id), upper(\(\Player.name)) AS name, \(\Player.score)")
    /// ```
    public func select(literal: SQL) -> QueryRequest {
        selecting([SQLSelectable(expression: SQLExpression(.interpolated(literal)), alias: nil)], decoder: decoder)
    }

    /// Selects an SQL literal; rows decode as `type`.
    ///
    /// ```swift
    /// let total = try Player.all().select(literal: "SUM(\(\Player.score)) + \(bonus)", as: Int.self).fetchOne(db)
    /// ```
    public func select<Value>(literal: SQL, as type: Value.Type) -> QueryRequest<Root, Value> {
        selecting([SQLSelectable(expression: SQLExpression(.interpolated(literal)), alias: nil)], decoder: .value(Value.self, of: Root.self))
    }

    /// Groups by an SQL literal: `GROUP BY`.
    public func group(literal: SQL) -> QueryRequest {
        modified { $0.groupBy = [SQLExpression(.interpolated(literal))] }
    }

    /// Keeps the groups that match an SQL literal: `HAVING`.
    public func having(literal: SQL) -> QueryRequest {
        having(QueryExpression(SQLExpression(.interpolated(literal))))
    }
}

extension TableRecord {
    /// All records that match an SQL literal.
    ///
    /// ```swift
    /// Player.filter(literal: "\(\Player.name) = \(name)")   // SELECT * FROM "player" WHERE "name" = ?
    /// ```
    public static func filter(literal: SQL) -> QueryRequest<Self, Self> {
        all().filter(literal: literal)
    }

    /// All records, ordered by an SQL literal.
    public static func order(literal: SQL) -> QueryRequest<Self, Self> {
        all().order(literal: literal)
    }
}

extension Database {
    /// Executes an SQL literal: one or several statements separated by
    /// semicolons, each interpolation bound as an argument.
    ///
    /// ```swift
    /// try db.execute(literal: "UPDATE \(Player.self) SET score = \(score) WHERE id = \(id)")
    /// // UPDATE "player" SET score = ? WHERE id = ?
    /// ```
    public func execute(literal: SQL) throws {
        let generated = try literal.sql(self)
        try execute(sql: generated.sql, arguments: generated.arguments)
    }
}
