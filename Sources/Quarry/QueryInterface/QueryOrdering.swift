// QueryOrdering: one term of ORDER BY, typed by the record it orders.

/// One term of an `ORDER BY` clause.
///
/// ```swift
/// Player.order(.desc(\.score), .asc(\.name))      // ORDER BY "score" DESC, "name"
/// Player.order { [$0.score.desc, $0.name.asc] }
/// Player.order(.asc(\.teamID, nulls: .last))      // ORDER BY "team_id" NULLS LAST
/// ```
public struct QueryOrdering<Root>: Sendable {
    let ordering: SQLOrdering

    init<Value>(_ expression: QueryExpression<Root, Value>, descending: Bool, nulls: SQLOrdering.NullsOrder? = nil) {
        ordering = SQLOrdering(expression: expression.sqlExpression, isDescending: descending, nulls: nulls)
    }

    init(ordering: SQLOrdering) {
        self.ordering = ordering
    }

    /// Ascending order of a column.
    public static func asc<Value>(_ keyPath: KeyPath<Root, Value>, nulls: SQLOrdering.NullsOrder? = nil) -> QueryOrdering
    where Root: Decodable {
        QueryOrdering(QueryExpression(keyPath), descending: false, nulls: nulls)
    }

    /// Descending order of a column.
    public static func desc<Value>(_ keyPath: KeyPath<Root, Value>, nulls: SQLOrdering.NullsOrder? = nil) -> QueryOrdering
    where Root: Decodable {
        QueryOrdering(QueryExpression(keyPath), descending: true, nulls: nulls)
    }

    /// Ascending order of an expression.
    public static func asc<Value>(_ expression: QueryExpression<Root, Value>, nulls: SQLOrdering.NullsOrder? = nil) -> QueryOrdering {
        QueryOrdering(expression, descending: false, nulls: nulls)
    }

    /// Descending order of an expression.
    public static func desc<Value>(_ expression: QueryExpression<Root, Value>, nulls: SQLOrdering.NullsOrder? = nil) -> QueryOrdering {
        QueryOrdering(expression, descending: true, nulls: nulls)
    }

    /// The opposite order.
    public var reversed: QueryOrdering { QueryOrdering(ordering: ordering.reversed) }
}
