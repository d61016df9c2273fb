// Calling Swift functions and aggregates (DatabaseFunction) from the query
// interface, on key paths, expressions and values, as typed expressions; and
// Swift collations (DatabaseCollation) in comparisons and orderings.

extension DatabaseFunction {
    /// The function applied to a column, as an expression of type `Result`:
    ///
    /// ```swift
    /// Player.filter(slugify(\.name) == "jose")          // slugify("name") = ?
    /// let median: Double? = try Player.select(median(\.score)).fetchOne(db)
    /// Player.select(median(\.score, as: Double.self))   // when the context does not tell the type
    /// ```
    ///
    /// The function must be registered on the connection (``Database/add(function:)``).
    public func callAsFunction<Root: Decodable, Value, Result>(
        _ keyPath: KeyPath<Root, Value>, as type: Result.Type = Result.self
    ) -> QueryExpression<Root, Result> {
        QueryExpression(.function(name, [.column(keyPath)]))
    }

    /// The function applied to an expression, as an expression of type `Result`.
    public func callAsFunction<Root, Value, Result>(
        _ expression: QueryExpression<Root, Value>, as type: Result.Type = Result.self
    ) -> QueryExpression<Root, Result> {
        QueryExpression(.function(name, [expression.sqlExpression]))
    }

    /// The function applied to two columns.
    public func callAsFunction<Root: Decodable, Value1, Value2, Result>(
        _ first: KeyPath<Root, Value1>, _ second: KeyPath<Root, Value2>, as type: Result.Type = Result.self
    ) -> QueryExpression<Root, Result> {
        QueryExpression(.function(name, [.column(first), .column(second)]))
    }

    /// The function applied to a column and a value (bound, in the format
    /// the record stores it).
    public func callAsFunction<Root: Decodable, Value, Argument, Result>(
        _ keyPath: KeyPath<Root, Value>, _ argument: Argument, as type: Result.Type = Result.self
    ) -> QueryExpression<Root, Result> {
        QueryExpression(.function(name, [.column(keyPath), .bound(argument, in: Root.self)]))
    }

    /// The function applied to any arguments, for the forms the other
    /// methods do not cover: `f.call([.column("a"), .value(1)], as: Int.self)`.
    public func call<Root, Result>(_ arguments: [SQLExpression], as type: Result.Type = Result.self) -> QueryExpression<Root, Result> {
        QueryExpression(.function(name, arguments))
    }
}

extension QueryExpression {
    /// The expression compared or ordered with a Swift collation, which must
    /// be registered on the connection (``Database/add(collation:)``).
    public func collating(_ collation: DatabaseCollation) -> QueryExpression {
        collating(collation.collation)
    }
}

extension QueryExpression where Value == Bool {
    /// The condition with its comparisons made under a Swift collation (see
    /// `collating(_:)` on conditions).
    public func collating(_ collation: DatabaseCollation) -> QueryExpression {
        collating(collation.collation)
    }
}
