// The query interface's entry points on record types: Player.all(),
// Player.filter(...), Player.order(...), Player.select(...), and so on. Each
// starts a QueryRequest on the record's table.

extension TableRecord {
    /// A request for all the rows of the table, decoded as `Self`.
    ///
    /// ```swift
    /// let players = try Player.all().fetchAll(db)   // SELECT * FROM "player"
    /// ```
    public static func all() -> QueryRequest<Self, Self> {
        QueryRequest(
            query: SQLSelectQuery(source: .table(databaseTableName)),
            decoder: .record(recordType: Self.self, tableName: databaseTableName))
    }

    /// A request for the rows that match `predicate`: see ``QueryRequest/filter(_:)-(QueryExpression<Root,Bool>)``.
    public static func filter(_ predicate: QueryExpression<Self, Bool>) -> QueryRequest<Self, Self> {
        all().filter(predicate)
    }

    /// A request for the rows that match a predicate built from the record's
    /// columns, given as a trailing closure (`Player.filter { $0.score > 10 }`):
    /// see ``QueryRequest/filter(where:)``.
    public static func filter(where predicate: (TableColumns<Self>) -> QueryExpression<Self, Bool>) -> QueryRequest<Self, Self>
    where Self: Decodable {
        all().filter(where: predicate)
    }

    /// A request for the rows that match a predicate built from the record's
    /// columns, for a closure written in parentheses: see ``QueryRequest/filter(where:)``.
    @_disfavoredOverload
    public static func filter(_ predicate: (TableColumns<Self>) -> QueryExpression<Self, Bool>) -> QueryRequest<Self, Self>
    where Self: Decodable {
        all().filter(where: predicate)
    }

    /// A request for the rows where a Boolean column is true.
    @_disfavoredOverload
    public static func filter(_ keyPath: KeyPath<Self, Bool>) -> QueryRequest<Self, Self> where Self: Decodable {
        all().filter(keyPath)
    }

    /// A request for the rows that match raw SQL, with bound arguments.
    public static func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest<Self, Self> {
        all().filter(sql: sql, arguments: arguments)
    }

    /// A request ordered by a column, ascending.
    public static func order<Value>(_ keyPath: KeyPath<Self, Value>) -> QueryRequest<Self, Self> where Self: Decodable {
        all().order(keyPath)
    }

    /// A request ordered by a column in the given direction.
    public static func order<Value>(_ keyPath: KeyPath<Self, Value>, _ direction: SortDirection) -> QueryRequest<Self, Self>
    where Self: Decodable {
        all().order(keyPath, direction)
    }

    /// A request ordered by an expression, ascending:
    /// `Player.order(Column("name").collating(.nocase))` is
    /// `ORDER BY "name" COLLATE "NOCASE"`.
    public static func order<Value>(_ expression: QueryExpression<Self, Value>) -> QueryRequest<Self, Self> {
        all().order(expression)
    }

    /// A request ordered by the given terms.
    public static func order(_ orderings: QueryOrdering<Self>...) -> QueryRequest<Self, Self> {
        all().order(orderings)
    }

    /// A request ordered by terms built from the record's columns.
    public static func order(_ orderings: (TableColumns<Self>) -> [QueryOrdering<Self>]) -> QueryRequest<Self, Self>
    where Self: Decodable {
        all().order(orderings)
    }

    /// A request that selects one column: see `QueryRequest.select(_:)`.
    public static func select<Value>(_ keyPath: KeyPath<Self, Value>) -> QueryRequest<Self, Value> where Self: Decodable {
        all().select(keyPath)
    }

    /// A request that selects one expression.
    public static func select<Value>(_ expression: QueryExpression<Self, Value>) -> QueryRequest<Self, Value> {
        all().select(expression)
    }

    /// A request that selects columns by key path: see `QueryRequest.select(_:)`.
    public static func select<each Value>(_ keyPaths: repeat KeyPath<Self, each Value>) -> QueryRequest<Self, (repeat each Value)>
    where Self: Decodable {
        all().select(repeat each keyPaths)
    }

    /// A request that selects expressions.
    public static func select<each Value>(_ expressions: repeat QueryExpression<Self, each Value>) -> QueryRequest<Self, (repeat each Value)> {
        all().select(repeat each expressions)
    }

    /// A request that selects expressions built from the record's columns.
    public static func select<each Value>(
        _ expressions: (TableColumns<Self>) -> (repeat QueryExpression<Self, each Value>)
    ) -> QueryRequest<Self, (repeat each Value)> where Self: Decodable {
        all().select(expressions)
    }

    /// A request for at most `limit` rows, after skipping `offset` rows.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryRequest<Self, Self> {
        all().limit(limit, offset: offset)
    }

    /// A request whose table is named with `alias`.
    public static func aliased(_ alias: TableAlias) -> QueryRequest<Self, Self> {
        all().aliased(alias)
    }

    /// A request that joins an association: see ``QueryRequest/joining(required:)``.
    public static func joining<Destination>(required association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().joining(required: association)
    }

    /// A request that left-joins an association: see ``QueryRequest/joining(optional:)``.
    public static func joining<Destination>(optional association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().joining(optional: association)
    }

    /// A request that includes an association's columns: see ``QueryRequest/including(required:)``.
    public static func including<Destination>(required association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().including(required: association)
    }

    /// A request that includes an association's columns, or NULLs: see ``QueryRequest/including(optional:)``.
    public static func including<Destination>(optional association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().including(optional: association)
    }

    /// A request that prefetches all the records of an association: see ``QueryRequest/including(all:)``.
    public static func including<Destination>(all association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().including(all: association)
    }
}
