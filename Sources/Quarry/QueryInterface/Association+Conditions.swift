// Joins on any condition: associations to a record type or a common table
// expression whose rows match on an expression rather than a foreign key,
// RIGHT and FULL joins, and recursive common table expressions built from
// requests.

extension TableRecord {
    /// An association to the records of `destination` that match `condition`:
    /// no foreign key needed.
    ///
    /// ```swift
    /// let longTracks = Album.association(to: Track.self) { album, track in
    ///     track[\Track.albumId] == album[\Album.albumId] && track[\Track.milliseconds] > 600_000
    /// }
    /// Album.joining(required: longTracks)
    /// // SELECT "Album".* FROM "Album"
    /// // JOIN "Track" "track" ON ("track"."albumId" = "Album"."albumId" AND "track"."milliseconds" > ?)
    /// ```
    ///
    /// The association joins, filters and aggregates like the others;
    /// `including(all:)` needs a foreign key, and refuses it.
    ///
    /// - parameters:
    ///   - destination: the record type to join.
    ///   - key: the association key; default: the destination table name,
    ///     first letter lowercased.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the destination.
    public static func association<Destination: TableRecord>(
        to destination: Destination.Type, key: String? = nil,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Self, Bool>
    ) -> Association<Self, Destination> {
        association(table: Destination.databaseTableName, key: key, on: condition)
    }

    /// An association to the rows of a common table expression that match
    /// `condition` (add the expression to the request with
    /// ``QueryRequest/with(_:)``).
    ///
    /// ```swift
    /// let bestScores = CommonTableExpression<Score>(named: "best", request: ...)
    /// Player.with(bestScores).joining(required: Player.association(to: bestScores) { player, best in
    ///     best[\Score.playerId] == player[\Player.id]
    /// })
    /// ```
    ///
    /// - parameters:
    ///   - commonTableExpression: the common table expression to join.
    ///   - key: the association key; default: the expression's name.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the expression.
    public static func association<Destination>(
        to commonTableExpression: CommonTableExpression<Destination>, key: String? = nil,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Self, Bool>
    ) -> Association<Self, Destination> {
        association(table: commonTableExpression.name, key: key, on: condition)
    }

    private static func association<Destination>(
        table: String, key: String?, on condition: (TableAlias, TableAlias) -> QueryExpression<Self, Bool>
    ) -> Association<Self, Destination> {
        let origin = TableAlias()
        let destination = TableAlias()
        let key = key ?? associationKey(table)
        let expression = condition(origin, destination).sqlExpression
        return Association(cardinality: .toMany, key: key, steps: [AssociationStep(
            tableName: table, key: key, condition: .expression(expression, parent: origin, child: destination))])
    }
}

extension QueryRequest where Root: TableRecord {
    /// Joins the records of `destination` that match `condition`: only rows
    /// with a match are kept (`JOIN … ON …`).
    ///
    /// ```swift
    /// Invoice.join(required: Customer.self) { invoice, customer in
    ///     customer[\Customer.country] == invoice[\Invoice.billingCountry]
    /// }
    /// // SELECT "Invoice".* FROM "Invoice" JOIN "Customer" "customer" ON ("customer"."country" = "Invoice"."billingCountry")
    /// ```
    ///
    /// - parameters:
    ///   - destination: the record type to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the destination.
    public func join<Destination: TableRecord>(
        required destination: Destination.Type,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Root, Bool>
    ) -> QueryRequest {
        joining(required: Root.association(to: destination, on: condition))
    }

    /// Left-joins the records of `destination` that match `condition`: all
    /// rows are kept (`LEFT JOIN … ON …`).
    ///
    /// - parameters:
    ///   - destination: the record type to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the destination.
    public func join<Destination: TableRecord>(
        optional destination: Destination.Type,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Root, Bool>
    ) -> QueryRequest {
        joining(optional: Root.association(to: destination, on: condition))
    }

    /// Joins the rows of a common table expression that match `condition`
    /// (add the expression with ``with(_:)``).
    ///
    /// - parameters:
    ///   - commonTableExpression: the common table expression to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the expression.
    public func join<Destination>(
        required commonTableExpression: CommonTableExpression<Destination>,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Root, Bool>
    ) -> QueryRequest {
        joining(required: Root.association(to: commonTableExpression, on: condition))
    }

    /// Left-joins the rows of a common table expression that match
    /// `condition` (add the expression with ``with(_:)``).
    ///
    /// - parameters:
    ///   - commonTableExpression: the common table expression to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the expression.
    public func join<Destination>(
        optional commonTableExpression: CommonTableExpression<Destination>,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Root, Bool>
    ) -> QueryRequest {
        joining(optional: Root.association(to: commonTableExpression, on: condition))
    }
}

extension CommonTableExpression {
    /// A recursive common table expression built from a request, usually a
    /// `union(_:all:)` of a starting request and a request that joins the
    /// expression itself (<https://www.sqlite.org/lang_with.html#recursive_common_table_expressions>).
    ///
    /// ```swift
    /// struct Link: Decodable, FetchableRecord { var id: Int64; var depth: Int }
    /// let chain = CommonTableExpression<Link>(recursive: "chain", columns: ["id", "depth"]) { chain in
    ///     let link = TableAlias()
    ///     let start = Employee.filter(\.reportsTo == nil).select { ($0.employeeId, QueryExpression<Employee, Int>(sql: "0")) }
    ///     let step = Employee
    ///         .joining(required: Employee.association(to: chain) { employee, link in
    ///             employee[\Employee.reportsTo] == link[\Link.id]
    ///         }.aliased(link))
    ///         .select { ($0.employeeId, link[\Link.depth] + 1) }
    ///     return start.union(step, all: true)
    /// }
    /// let links = try chain.all().with(chain).asRequest(of: Link.self).fetchAll(db)
    /// // WITH RECURSIVE "chain"("id", "depth") AS (
    /// //   SELECT "employeeId", 0 FROM "Employee" WHERE "reportsTo" IS NULL
    /// //   UNION ALL
    /// //   SELECT "Employee"."employeeId", "chain"."depth" + ? FROM "Employee"
    /// //   JOIN "chain" ON ("Employee"."reportsTo" = "chain"."id"))
    /// // SELECT * FROM "chain"
    /// ```
    ///
    /// - parameters:
    ///   - name: the table name of the expression.
    ///   - columns: the names of its columns; default: those of the request.
    ///   - makeRequest: builds the defining request from the expression
    ///     itself, which the recursive part joins.
    public init<Origin, Result>(
        recursive name: String, columns: [String]? = nil,
        request makeRequest: (_ commonTableExpression: CommonTableExpression<Root>) -> QueryRequest<Origin, Result>
    ) {
        let reference = CommonTableExpression(
            name: name,
            definition: SQLCommonTableExpression(
                name: name, columns: columns,
                body: .literal(SQLExpression(.invalid(DatabaseError.misuse(
                    "the recursive common table expression \(name) is used before its definition")))),
                isRecursive: true))
        let request = makeRequest(reference)
        self.init(
            name: name,
            definition: SQLCommonTableExpression(name: name, columns: columns, body: .query(request.query), isRecursive: true))
    }

    private init(name: String, definition: SQLCommonTableExpression) {
        self.name = name
        self.definition = definition
    }
}

extension TableRecord {
    /// All records, joined with the records of `destination` that match
    /// `condition` (see `QueryRequest.join(required:on:)`).
    ///
    /// - parameters:
    ///   - destination: the record type to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the destination.
    public static func join<Destination: TableRecord>(
        required destination: Destination.Type,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Self, Bool>
    ) -> QueryRequest<Self, Self> {
        all().join(required: destination, on: condition)
    }

    /// All records, left-joined with the records of `destination` that match
    /// `condition`.
    ///
    /// - parameters:
    ///   - destination: the record type to join.
    ///   - condition: the join condition, from the aliases of this table and
    ///     of the destination.
    public static func join<Destination: TableRecord>(
        optional destination: Destination.Type,
        on condition: (_ origin: TableAlias, _ destination: TableAlias) -> QueryExpression<Self, Bool>
    ) -> QueryRequest<Self, Self> {
        all().join(optional: destination, on: condition)
    }

    /// All records, right-joined with an association (see ``QueryRequest/joining(right:)``).
    ///
    /// - parameter association: the association to join.
    public static func joining<Destination>(right association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().joining(right: association)
    }

    /// All records, full-joined with an association (see ``QueryRequest/joining(full:)``).
    ///
    /// - parameter association: the association to join.
    public static func joining<Destination>(full association: Association<Self, Destination>) -> QueryRequest<Self, Self> {
        all().joining(full: association)
    }
}
