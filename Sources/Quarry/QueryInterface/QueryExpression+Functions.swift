// SQL functions and aggregates of the query interface, as free functions that
// take key paths or expressions: lower(\.name), count(\.id), sum(\.score).
//
// See https://www.sqlite.org/lang_corefunc.html and
// https://www.sqlite.org/lang_aggfunc.html.

// MARK: - Scalar functions

/// The text in lower case (ASCII letters only): SQL `lower()`.
public func lower<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(keyPath).lowercased
}

/// The text in upper case (ASCII letters only): SQL `upper()`.
public func upper<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(keyPath).uppercased
}

/// The number of characters: SQL `length()`.
public func length<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Int> {
    QueryExpression(keyPath).length
}

/// The absolute value: SQL `abs()`.
public func abs<Root: Decodable, Value: SignedNumeric>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("abs", [.column(keyPath)]))
}

/// The first non-`NULL` value: SQL `coalesce()`.
public func coalesce<Root, Value>(_ expressions: [QueryExpression<Root, Value?>], default defaultValue: Value) -> QueryExpression<Root, Value> {
    QueryExpression(.function("coalesce", expressions.map(\.sqlExpression) + [.bound(defaultValue, in: Root.self)]))
}

/// A `CASE` expression: the value of the first branch whose condition holds,
/// or `otherwise`.
///
/// ```swift
/// caseWhen([(\Player.score >= 100, "high"), (\Player.score >= 10, "mid")], otherwise: "low")
/// // CASE WHEN "score" >= ? THEN ? WHEN "score" >= ? THEN ? ELSE ? END
/// ```
public func caseWhen<Root, Value>(
    _ branches: [(QueryExpression<Root, Bool>, Value)], otherwise: Value
) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.caseWhen(
        nil, branches.map { SQLCaseBranch(when: $0.0.sqlExpression, then: .bound($0.1, in: Root.self)) }, .bound(otherwise, in: Root.self))))
}

// MARK: - Aggregates

/// The number of rows where the column is not `NULL`: SQL `COUNT()`.
public func count<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Int> {
    QueryExpression(.function("COUNT", [.column(keyPath)]))
}

/// The number of distinct non-`NULL` values: SQL `COUNT(DISTINCT ...)`.
public func count<Root: Decodable, Value>(distinct keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Int> {
    QueryExpression(.function("COUNT", [.column(keyPath)], distinct: true))
}

/// The number of rows where the expression is not `NULL`: SQL `COUNT()`.
public func count<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Int> {
    QueryExpression(.function("COUNT", [expression.sqlExpression]))
}

/// The number of rows: SQL `COUNT(*)`.
public func countAll<Root>() -> QueryExpression<Root, Int> {
    QueryExpression(.countAll)
}

/// The sum, or `nil` when there are no non-`NULL` values: SQL `SUM()`.
/// An integer sum that overflows throws (<https://www.sqlite.org/lang_aggfunc.html#sumunc>).
public func sum<Root: Decodable, Value: Numeric>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("SUM", [.column(keyPath)]))
}

/// The sum of an optional column, or `nil` when all values are `NULL`: SQL `SUM()`.
public func sum<Root: Decodable, Value: Numeric>(_ keyPath: KeyPath<Root, Value?>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("SUM", [.column(keyPath)]))
}

/// The sum of an expression: SQL `SUM()`.
public func sum<Root, Value: Numeric>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("SUM", [expression.sqlExpression]))
}

/// The sum as a real number, 0.0 when there are no values: SQL `TOTAL()`.
public func total<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Double> {
    QueryExpression(.function("TOTAL", [.column(keyPath)]))
}

/// The sum of an expression as a real number: SQL `TOTAL()`.
public func total<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Double> {
    QueryExpression(.function("TOTAL", [expression.sqlExpression]))
}

/// The average, or `nil` when there are no values: SQL `AVG()`.
public func average<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Double?> {
    QueryExpression(.function("AVG", [.column(keyPath)]))
}

/// The average of an expression: SQL `AVG()`.
public func average<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Double?> {
    QueryExpression(.function("AVG", [expression.sqlExpression]))
}

/// The smallest value, or `nil` when there are no values: SQL `MIN()`.
public func min<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MIN", [.column(keyPath)]))
}

/// The smallest value of an optional column: SQL `MIN()`.
public func min<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value?>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MIN", [.column(keyPath)]))
}

/// The largest value, or `nil` when there are no values: SQL `MAX()`.
public func max<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MAX", [.column(keyPath)]))
}

/// The largest value of an optional column: SQL `MAX()`.
public func max<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value?>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MAX", [.column(keyPath)]))
}

/// The smallest value of an expression: SQL `MIN()`.
public func min<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MIN", [expression.sqlExpression]))
}

/// The largest value of an expression: SQL `MAX()`.
public func max<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, Value?> {
    QueryExpression(.function("MAX", [expression.sqlExpression]))
}
