// JSON and string aggregation in the query interface: json_object,
// json_array, json_group_array, json_group_object, group_concat, and the
// FILTER clause of aggregates.
//
// See <https://www.sqlite.org/json1.html> and
// <https://www.sqlite.org/lang_aggfunc.html>. The results are JSON text:
// decode them into a `[String]` or a `Decodable` property of the fetched type,
// which reads JSON text as it does for records' JSON columns.

// MARK: - JSON values

/// A JSON object built from named values: SQL `json_object()`.
///
/// ```swift
/// Book.select(jsonObject(("title", QueryExpression(\.title)), ("year", QueryExpression(\.year))))
/// // SELECT json_object(?, "title", ?, "year") FROM "book"   -- the names are bound: 'title', 'year'
/// ```
///
/// - parameter members: the name and value of each member, in order.
public func jsonObject<Root, each Value>(
    _ members: repeat (String, QueryExpression<Root, each Value>)
) -> QueryExpression<Root, String> {
    var arguments: [SQLExpression] = []
    for (name, value) in repeat each members {
        arguments.append(.value(.text(name)))
        arguments.append(value.sqlExpression)
    }
    return QueryExpression(.function("json_object", arguments))
}

/// A JSON array of values: SQL `json_array()`.
///
/// ```swift
/// Book.select(jsonArray(QueryExpression(\.title), QueryExpression(\.year)))
/// // SELECT json_array("title", "year") FROM "book"
/// ```
///
/// - parameter values: the elements of the array, in order.
public func jsonArray<Root, each Value>(_ values: repeat QueryExpression<Root, each Value>) -> QueryExpression<Root, String> {
    var arguments: [SQLExpression] = []
    for value in repeat each values { arguments.append(value.sqlExpression) }
    return QueryExpression(.function("json_array", arguments))
}

// MARK: - Aggregates

/// The JSON array of a column's values in each group: SQL `json_group_array()`.
///
/// ```swift
/// Book.select { ($0.authorId, jsonGroupArray($0.title)) }.group(\.authorId)
/// // SELECT "authorId", json_group_array("title") FROM "book" GROUP BY "authorId"
/// ```
///
/// - parameter keyPath: the column whose values become the elements.
public func jsonGroupArray<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>) -> QueryExpression<Root, String> {
    QueryExpression(.function("json_group_array", [.column(keyPath)]))
}

/// The JSON array of an expression's values in each group: SQL `json_group_array()`.
///
/// - parameter expression: the expression whose values become the elements.
public func jsonGroupArray<Root, Value>(_ expression: QueryExpression<Root, Value>) -> QueryExpression<Root, String> {
    QueryExpression(.function("json_group_array", [expression.sqlExpression]))
}

/// The JSON object of names and values in each group: SQL `json_group_object()`.
///
/// ```swift
/// Book.select(jsonGroupObject(key: QueryExpression(\.title), value: QueryExpression(\.year)))
/// // SELECT json_group_object("title", "year") FROM "book"
/// ```
///
/// - parameters:
///   - key: the member names (text).
///   - value: the member values.
public func jsonGroupObject<Root, Value>(
    key: QueryExpression<Root, String>, value: QueryExpression<Root, Value>
) -> QueryExpression<Root, String> {
    QueryExpression(.function("json_group_object", [key.sqlExpression, value.sqlExpression]))
}

/// The values of a column in each group joined with a separator, or `nil`
/// when the group has no non-`NULL` value: SQL `group_concat()`.
///
/// ```swift
/// Book.select(groupConcat(\.title, separator: ", "))
/// // SELECT group_concat("title", ?) FROM "book"
/// ```
///
/// SQLite does not define the order of the values
/// (<https://www.sqlite.org/lang_aggfunc.html#group_concat>).
///
/// - parameters:
///   - keyPath: the column whose values are joined.
///   - separator: the text between values (bound as an argument).
public func groupConcat<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, separator: String = ","
) -> QueryExpression<Root, String?> {
    QueryExpression(.function("group_concat", [.column(keyPath), .value(.text(separator))]))
}

/// The values of an expression in each group joined with a separator:
/// SQL `group_concat()`.
///
/// - parameters:
///   - expression: the expression whose values are joined.
///   - separator: the text between values (bound as an argument).
public func groupConcat<Root, Value>(
    _ expression: QueryExpression<Root, Value>, separator: String = ","
) -> QueryExpression<Root, String?> {
    QueryExpression(.function("group_concat", [expression.sqlExpression, .value(.text(separator))]))
}

extension QueryExpression {
    /// The aggregate computed over the rows that match `predicate` only:
    /// SQL `FILTER (WHERE …)` (<https://www.sqlite.org/lang_aggfunc.html#aggfilter>).
    ///
    /// ```swift
    /// Player.select { (count($0.id), count($0.id).filter($0.score >= 100)) }
    /// // SELECT COUNT("id"), COUNT("id") FILTER (WHERE "score" >= ?) FROM "player"
    /// ```
    ///
    /// Use it on an aggregate function (`count`, `sum`, `jsonGroupArray`…):
    /// SQLite refuses a `FILTER` on anything else.
    ///
    /// - parameter predicate: the condition a row must meet to be aggregated.
    public func filter(_ predicate: QueryExpression<Root, Bool>) -> QueryExpression {
        QueryExpression(SQLExpression(.aggregateFilter(sqlExpression, predicate.sqlExpression)))
    }
}
