// QueryRequest: a SELECT built from key paths — filter, order, select, group,
// limit, joins — as a Sendable value. Fetching lives in QueryRequest+Fetching.swift.

/// A request for rows of the table of `Root`, decoded as `Result`.
///
/// Requests are values: each method returns a modified copy, so a request can
/// be stored, shared across tasks, and refined:
///
/// ```swift
/// let best = Player.filter(\.score >= 100).order(.desc(\.score))
/// let top10 = try best.limit(10).fetchAll(db)
/// // SELECT * FROM "player" WHERE "score" >= ? ORDER BY "score" DESC LIMIT ?
/// let names = try best.select(\.name).fetchAll(db)     // [String]
/// ```
///
/// Inspect the SQL with ``sql(_:)``.
public struct QueryRequest<Root, Result>: Sendable {
    var query: SQLSelectQuery
    var decoder: ResultDecoder<Result>
    /// Associations fetched with one extra query each (`including(all:)`).
    var prefetches: [Prefetch] = []
    /// Set by `reversed()` on a request without ordering: the primary key is
    /// ordered descending when SQL is generated.
    var reversesPrimaryKey = false
    /// Set by `orderByPrimaryKey()`: the primary key is ordered ascending
    /// when SQL is generated.
    var ordersByPrimaryKey = false

    init(query: SQLSelectQuery, decoder: ResultDecoder<Result>) {
        self.query = query
        self.decoder = decoder
    }

    /// A copy with a new result type, for the same query.
    func withDecoder<Other>(_ decoder: ResultDecoder<Other>) -> QueryRequest<Root, Other> {
        var request = QueryRequest<Root, Other>(query: query, decoder: decoder)
        request.prefetches = prefetches
        request.reversesPrimaryKey = reversesPrimaryKey
        request.ordersByPrimaryKey = ordersByPrimaryKey
        return request
    }

    func modified(_ change: (inout SQLSelectQuery) -> Void) -> QueryRequest {
        var request = self
        change(&request.query)
        return request
    }

    // MARK: - Filtering

    /// Keeps the rows that match `predicate` (combined with `AND` with
    /// previous filters).
    ///
    /// ```swift
    /// Player.filter(\.score >= 100 && \.teamID != nil)
    /// // WHERE ("score" >= ?) AND ("team_id" IS NOT NULL)
    /// ```
    public func filter(_ predicate: QueryExpression<Root, Bool>) -> QueryRequest {
        modified { $0.addFilter(predicate.sqlExpression) }
    }

    /// Keeps the rows that match the predicate built from the record's columns,
    /// given as a trailing closure:
    ///
    /// ```swift
    /// Player.filter { $0.name.hasPrefix("A") && $0.score > 10 }
    /// // SELECT * FROM "player" WHERE ("name" GLOB ?) AND ("score" > ?)   -- "A*", 10
    /// ```
    ///
    /// Prefer this form for long arithmetic: the columns' types are known
    /// before the compiler chooses an operator, so it type-checks in
    /// milliseconds where the same condition written inline with key paths
    /// can take half a second (see the QueryInterface article, "Long expressions
    /// and compile time").
    ///
    /// A trailing closure drops the `where:` label. The label keeps this
    /// overload out of the compiler's way when the argument is an inline
    /// condition (`filter(\.score > 10)`), which it would otherwise try to
    /// type-check as a closure too.
    public func filter(where predicate: (TableColumns<Root>) -> QueryExpression<Root, Bool>) -> QueryRequest
    where Root: Decodable {
        filter(predicate(TableColumns()))
    }

    /// Keeps the rows that match the predicate built from the record's
    /// columns, for a closure written in parentheses (`filter({ $0.score > 10 })`):
    /// see ``filter(where:)``.
    @_disfavoredOverload
    public func filter(_ predicate: (TableColumns<Root>) -> QueryExpression<Root, Bool>) -> QueryRequest where Root: Decodable {
        filter(where: predicate)
    }

    /// Keeps the rows where a Boolean column is true.
    @_disfavoredOverload
    public func filter(_ keyPath: KeyPath<Root, Bool>) -> QueryRequest where Root: Decodable {
        filter(QueryExpression(keyPath))
    }

    /// Keeps the rows that match raw SQL, with bound arguments, positional
    /// or named.
    ///
    /// ```swift
    /// Player.filter(sql: "score % ? = 0", arguments: [2])
    /// Player.filter(sql: "score > :minimum", arguments: ["minimum": 10])
    /// ```
    public func filter(sql: String, arguments: StatementArguments = StatementArguments()) -> QueryRequest {
        modified { $0.addFilter(SQLExpression(sql: sql, arguments: arguments)) }
    }

    /// Same as ``filter(_:)-(QueryExpression<Root,Bool>)``, named as in SQL.
    public func `where`(_ predicate: QueryExpression<Root, Bool>) -> QueryRequest {
        filter(predicate)
    }

    // MARK: - Ordering

    /// Orders by a column, ascending, replacing any previous ordering.
    public func order<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryRequest where Root: Decodable {
        order(.asc(keyPath))
    }

    /// Orders by a column in the given direction, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.order(\.score, .descending)   // ORDER BY "score" DESC
    /// ```
    public func order<Value>(_ keyPath: KeyPath<Root, Value>, _ direction: SortDirection) -> QueryRequest where Root: Decodable {
        order(direction == .ascending ? .asc(keyPath) : .desc(keyPath))
    }

    /// Orders by an expression, ascending, replacing any previous ordering.
    public func order<Value>(_ expression: QueryExpression<Root, Value>) -> QueryRequest {
        order(.asc(expression))
    }

    /// Orders by the given terms, replacing any previous ordering.
    ///
    /// ```swift
    /// Player.order(.desc(\.score), .asc(\.name))   // ORDER BY "score" DESC, "name"
    /// ```
    public func order(_ orderings: QueryOrdering<Root>...) -> QueryRequest {
        order(orderings)
    }

    /// Orders by the given terms, replacing any previous ordering.
    public func order(_ orderings: [QueryOrdering<Root>]) -> QueryRequest {
        var request = modified { $0.ordering = orderings.map(\.ordering) }
        request.reversesPrimaryKey = false
        request.ordersByPrimaryKey = false
        return request
    }

    /// Orders by terms built from the record's columns.
    ///
    /// ```swift
    /// Player.order { [$0.score.desc, $0.name.asc] }
    /// ```
    public func order(_ orderings: (TableColumns<Root>) -> [QueryOrdering<Root>]) -> QueryRequest where Root: Decodable {
        order(orderings(TableColumns()))
    }

    /// The opposite order. Without an ordering, orders by primary key, descending.
    public func reversed() -> QueryRequest {
        if query.ordering.isEmpty {
            var request = self
            request.reversesPrimaryKey.toggle()
            request.ordersByPrimaryKey = !request.reversesPrimaryKey
            return request
        }
        return modified { $0.ordering = $0.ordering.map(\.reversed) }
    }

    /// Removes any ordering.
    public func unordered() -> QueryRequest {
        var request = modified { $0.ordering = [] }
        request.reversesPrimaryKey = false
        request.ordersByPrimaryKey = false
        return request
    }

    // MARK: - Selection

    /// Selects one column by key path; each row decodes as its value.
    ///
    /// ```swift
    /// let names: [String] = try Player.select(\.name).fetchAll(db)   // SELECT "name" FROM "player"
    /// ```
    public func select<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryRequest<Root, Value> where Root: Decodable {
        selecting([SQLSelectable(expression: .column(keyPath), alias: nil)], decoder: .value(Value.self, of: Root.self))
    }

    /// Selects one expression; each row decodes as its value.
    ///
    /// ```swift
    /// let best = try Player.select(max(\.score)).fetchOne(db)   // SELECT MAX("score") FROM "player"
    /// ```
    public func select<Value>(_ expression: QueryExpression<Root, Value>) -> QueryRequest<Root, Value> {
        selecting([SQLSelectable(expression: expression.sqlExpression, alias: nil)], decoder: .value(Value.self, of: Root.self))
    }

    /// Selects columns by key path; each row decodes as one value, or as a tuple.
    ///
    /// ```swift
    /// let names: [String] = try Player.select(\.name).fetchAll(db)
    /// let pairs: [(String, Int)] = try Player.select(\.name, \.score).fetchAll(db)
    /// ```
    public func select<each Value>(_ keyPaths: repeat KeyPath<Root, each Value>) -> QueryRequest<Root, (repeat each Value)>
    where Root: Decodable {
        var selection: [SQLSelectable] = []
        for keyPath in repeat each keyPaths {
            selection.append(SQLSelectable(expression: .column(keyPath), alias: nil))
        }
        return selecting(selection, decoder: .columns(repeat (each Value).self, of: Root.self))
    }

    /// Selects expressions; each row decodes as one value, or as a tuple.
    ///
    /// ```swift
    /// let counts = try Player.select(count(\.id), max(\.score)).fetchOne(db)   // (Int, Int?)?
    /// ```
    public func select<each Value>(_ expressions: repeat QueryExpression<Root, each Value>) -> QueryRequest<Root, (repeat each Value)> {
        var selection: [SQLSelectable] = []
        for expression in repeat each expressions {
            selection.append(SQLSelectable(expression: expression.sqlExpression, alias: nil))
        }
        return selecting(selection, decoder: .columns(repeat (each Value).self, of: Root.self))
    }

    /// Selects expressions built from the record's columns.
    ///
    /// ```swift
    /// Player.select { ($0.name, $0.score + 1) }
    /// ```
    public func select<each Value>(
        _ expressions: (TableColumns<Root>) -> (repeat QueryExpression<Root, each Value>)
    ) -> QueryRequest<Root, (repeat each Value)> where Root: Decodable {
        let built = expressions(TableColumns())
        var selection: [SQLSelectable] = []
        for expression in repeat each built {
            selection.append(SQLSelectable(expression: expression.sqlExpression, alias: nil))
        }
        return selecting(selection, decoder: .columns(repeat (each Value).self, of: Root.self))
    }

    /// Selects named expressions, for decoding into another `Decodable` type
    /// by column name with ``asRequest(of:)``.
    ///
    /// ```swift
    /// struct Stats: Decodable { var best: Int?; var players: Int }
    /// let stats = try Player.all()
    ///     .select(named: [max(\Player.score).forKey("best"), count(\Player.id).forKey("players")])
    ///     .asRequest(of: Stats.self)
    ///     .fetchOne(db)
    /// // SELECT MAX("score") AS "best", COUNT("id") AS "players" FROM "player"
    /// ```
    public func select(named expressions: [NamedExpression<Root>]) -> QueryRequest<Root, Row> {
        selecting(expressions.map { SQLSelectable(expression: $0.expression, alias: $0.name) }, decoder: .row)
    }

    func selecting<Other>(_ selection: [SQLSelectable], decoder: ResultDecoder<Other>) -> QueryRequest<Root, Other> {
        var request = withDecoder(decoder)
        request.query.selection = selection
        return request
    }

    /// Removes duplicate rows: `SELECT DISTINCT`.
    public func distinct() -> QueryRequest {
        modified { $0.isDistinct = true }
    }

    /// At most `limit` rows, after skipping `offset` rows.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryRequest {
        modified {
            $0.limit = limit
            $0.offset = offset
        }
    }

    // MARK: - Grouping

    /// Groups rows by a column: `GROUP BY`.
    public func group<Value>(_ keyPath: KeyPath<Root, Value>) -> QueryRequest where Root: Decodable {
        modified { $0.groupBy = [.column(keyPath)] }
    }

    /// Groups rows by expressions: `GROUP BY`.
    public func group<each Value>(_ expressions: repeat QueryExpression<Root, each Value>) -> QueryRequest {
        var groupBy: [SQLExpression] = []
        for expression in repeat each expressions { groupBy.append(expression.sqlExpression) }
        return modified { $0.groupBy = groupBy }
    }

    /// Keeps the groups that match `predicate`: `HAVING`.
    ///
    /// On a request without `group(_:)`, a predicate on association
    /// aggregates filters the records, as in GRDB:
    ///
    /// ```swift
    /// Author.having(Author.books.isEmpty)
    /// // SELECT * FROM "author" WHERE NOT EXISTS (SELECT 1 FROM "book" "books" WHERE "books"."authorId" = "author"."id")
    /// ```
    ///
    /// Association aggregates are correlated subqueries, so the condition
    /// goes in `WHERE`.
    public func having(_ predicate: QueryExpression<Root, Bool>) -> QueryRequest {
        if query.groupBy.isEmpty && predicate.sqlExpression.containsAssociationAggregate { return filter(predicate) }
        return modified { query in
            query.having = query.having.map { SQLExpression(.infix("AND", $0, predicate.sqlExpression)) } ?? predicate.sqlExpression
        }
    }

    // MARK: - Aliases

    /// Names this request's table with `alias`, so that other expressions
    /// (in joined associations, or correlated subqueries) can refer to it.
    public func aliased(_ alias: TableAlias) -> QueryRequest {
        modified { $0.alias = alias }
    }

    // MARK: - Compound queries

    /// The rows of both requests: `UNION` (or `UNION ALL` with `all: true`).
    public func union(_ other: QueryRequest, all: Bool = false) -> QueryRequest {
        compound(all ? .unionAll : .union, other)
    }

    /// The rows present in both requests: `INTERSECT`.
    public func intersect(_ other: QueryRequest) -> QueryRequest {
        compound(.intersect, other)
    }

    /// The rows of this request absent from `other`: `EXCEPT`.
    public func except(_ other: QueryRequest) -> QueryRequest {
        compound(.except, other)
    }

    private func compound(_ op: SQLCompoundOperator, _ other: QueryRequest) -> QueryRequest {
        var request = self
        request.query = SQLSelectQuery(source: .compound(op, [query, other.query]))
        return request
    }

    // MARK: - Common table expressions

    /// Adds a common table expression to the request's `WITH` clause.
    public func with<Other>(_ commonTableExpression: CommonTableExpression<Other>) -> QueryRequest {
        modified { $0.commonTableExpressions.append(commonTableExpression.definition) }
    }
}

/// The direction of an ordering.
public enum SortDirection: Sendable {
    /// Smallest first.
    case ascending
    /// Largest first.
    case descending
}

// MARK: - Subqueries

extension QueryRequest {
    /// Whether a column's value is among the values this request selects:
    /// `IN (SELECT ...)`.
    ///
    /// ```swift
    /// let redTeams = Team.filter(\.color == "red").select(\.id)
    /// Player.filter(redTeams.contains(\.teamID))
    /// // WHERE "team_id" IN (SELECT "id" FROM "team" WHERE "color" = ?)
    /// ```
    public func contains<Other: Decodable, Value>(_ keyPath: KeyPath<Other, Value>) -> QueryExpression<Other, Bool> {
        QueryExpression(SQLExpression(.inSubquery(.column(keyPath), query, negated: false)))
    }

    /// Whether an expression's value is among the values this request selects.
    public func contains<Other, Value>(_ expression: QueryExpression<Other, Value>) -> QueryExpression<Other, Bool> {
        QueryExpression(SQLExpression(.inSubquery(expression.sqlExpression, query, negated: false)))
    }

    /// The request as a scalar subquery: `(SELECT ...)`.
    public func asExpression<Other, Value>() -> QueryExpression<Other, Value> {
        QueryExpression(SQLExpression(.subquery(query)))
    }
}

/// Whether `request` returns at least one row: `EXISTS (SELECT ...)`.
///
/// ```swift
/// let teamAlias = TableAlias()
/// Team.aliased(teamAlias).filter(exists(Player.filter(\.teamID == teamAlias[\Team.id])))
/// ```
public func exists<Root, Other, Result>(_ request: QueryRequest<Other, Result>) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.exists(request.query, negated: false)))
}

/// A named query in a `WITH` clause (<https://www.sqlite.org/lang_with.html>).
///
/// ```swift
/// let topPlayers = CommonTableExpression(named: "top", request: Player.order(.desc(\.score)).limit(3))
/// let request = topPlayers.all().with(topPlayers)
/// // WITH "top" AS (SELECT * FROM "player" ORDER BY "score" DESC LIMIT ?) SELECT * FROM "top"
/// ```
public struct CommonTableExpression<Root>: Sendable {
    /// The table name of the expression.
    public let name: String
    let definition: SQLCommonTableExpression

    /// A common table expression defined by a request; its columns are those
    /// the request selects, so the key paths of `Root` still apply.
    public init<Result>(named name: String, columns: [String]? = nil, request: QueryRequest<Root, Result>) {
        self.name = name
        definition = SQLCommonTableExpression(name: name, columns: columns, body: .query(request.query), isRecursive: false)
    }

    /// A recursive common table expression defined by SQL (the query
    /// interface does not build recursive queries).
    public init(recursive name: String, columns: [String]? = nil, sql: String, arguments: [(any DatabaseValueConvertible)?] = []) {
        self.name = name
        definition = SQLCommonTableExpression(
            name: name, columns: columns, body: .literal(SQLExpression(sql: sql, arguments: arguments)), isRecursive: true)
    }

    /// A request for the rows of the expression (add it to the statement with
    /// ``QueryRequest/with(_:)``).
    public func all() -> QueryRequest<Root, Row> {
        QueryRequest(query: SQLSelectQuery(source: .table(name)), decoder: .row)
    }
}
