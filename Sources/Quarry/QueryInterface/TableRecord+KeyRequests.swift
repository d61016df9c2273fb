// Requests by key, id and raw SQL started from the record type:
// `Player.filter(id: 1)`, `Player.orderByPrimaryKey()`, `Player.order(sql:)`…
// Each one is `all()` followed by the request method of the same name.

extension TableRecord {
    /// A request for the row with this primary key (see `QueryRequest.filter(key:)`).
    @_disfavoredOverload
    public static func filter(key: (some DatabaseValueConvertible)?) -> QueryRequest<Self, Self> {
        all().filter(key: key)
    }

    /// A request for the rows with these primary keys.
    @_disfavoredOverload
    public static func filter<Key: DatabaseValueConvertible>(keys: some Sequence<Key>) -> QueryRequest<Self, Self> {
        all().filter(keys: keys)
    }

    /// A request for the row with these column values (a primary or unique key).
    @_disfavoredOverload
    public static func filter(key: [String: (any DatabaseValueConvertible)?]) -> QueryRequest<Self, Self> {
        all().filter(key: key)
    }

    /// A request for the rows with any of these keys.
    @_disfavoredOverload
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryRequest<Self, Self> {
        all().filter(keys: keys)
    }

    /// A request ordered by primary key: `ORDER BY "id"`.
    public static func orderByPrimaryKey() -> QueryRequest<Self, Self> {
        all().orderByPrimaryKey()
    }

    /// A request with no rows.
    public static func none() -> QueryRequest<Self, Self> {
        all().none()
    }

    /// A request ordered by raw SQL.
    public static func order(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest<Self, Self> {
        all().order(sql: sql, arguments: arguments)
    }

    /// A request that selects raw SQL, decoded as the record.
    public static func select(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest<Self, Self> {
        all().select(sql: sql, arguments: arguments)
    }

    /// A request that selects raw SQL, decoded as `type`.
    public static func select<Value>(
        sql: String, arguments: StatementArguments = StatementArguments(), as type: Value.Type
    ) -> QueryRequest<Self, Value> {
        all().select(sql: sql, arguments: arguments, as: type)
    }

    /// A request ordered by columns.
    public static func order(_ columns: Column...) -> QueryRequest<Self, Self> {
        all().order(columns.map { QueryOrdering(ordering: $0.asc) })
    }

    /// A request ordered by column orderings: `Player.order(Column("score").desc)`.
    public static func order(_ orderings: SQLOrdering...) -> QueryRequest<Self, Self> {
        all().order(orderings.map { QueryOrdering(ordering: $0) })
    }

    /// A request that selects one column, decoded as `type`.
    public static func select<Value>(_ column: Column, as type: Value.Type) -> QueryRequest<Self, Value> {
        all().select(column, as: type)
    }

    /// A request that selects one expression, decoded as `type`:
    /// `Player.select(max(Column("score")), as: Int.self)`.
    public static func select<Expressed, Value>(_ expression: QueryExpression<Self, Expressed>, as type: Value.Type) -> QueryRequest<Self, Value> {
        all().select(expression, as: type)
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// A request for the row with this id: `Player.filter(id: 1)`.
    @_disfavoredOverload
    public static func filter(id: ID) -> QueryRequest<Self, Self> {
        all().filter(id: id)
    }

    /// A request for the rows with these ids.
    @_disfavoredOverload
    public static func filter(ids: some Collection<ID>) -> QueryRequest<Self, Self> {
        all().filter(ids: ids)
    }

    /// A request for the ids of all rows: `SELECT "id" FROM "player"`.
    public static func selectID() -> QueryRequest<Self, ID> {
        all().selectID()
    }
}

extension TableRecord where Self: Identifiable {
    /// A request for the row with this id, for a record whose id is optional.
    @_disfavoredOverload
    public static func filter<Wrapped: DatabaseValueConvertible>(id: Wrapped) -> QueryRequest<Self, Self> where ID == Wrapped? {
        all().filter(key: id)
    }

    /// A request for the rows with these ids, for a record whose id is optional.
    @_disfavoredOverload
    public static func filter<Wrapped: DatabaseValueConvertible>(ids: some Collection<Wrapped>) -> QueryRequest<Self, Self>
    where ID == Wrapped? {
        all().filter(keys: ids)
    }

    /// A request for the ids of all rows, for a record whose id is optional:
    /// each row decodes as a non-optional id.
    public static func selectID<Wrapped: DatabaseValueConvertible>() -> QueryRequest<Self, Wrapped>
    where ID == Wrapped? {
        all().selectID()
    }
}
