// Requests by key and by id (GRDB's spellings): filter(key:), filter(keys:),
// filter(id:), filter(ids:), selectID(), orderByPrimaryKey(), none(), isEmpty(_:).
//
// The primary key is read from the schema when SQL is generated, so these
// work on any table, whatever its key column is named.

extension QueryRequest where Root: TableRecord {
    /// Keeps the row with this primary key: `WHERE "id" = ?`.
    ///
    /// ```swift
    /// try Player.filter(key: 1).fetchOne(db)   // SELECT * FROM "player" WHERE "id" = ?
    /// ```
    ///
    /// The key is stored the way the record stores it (a `UUID` as text for a
    /// record with that strategy, say). Generating SQL throws when the primary
    /// key has several columns: use `filter(key:)` with a dictionary then.
    @_disfavoredOverload
    public func filter(key: (some DatabaseValueConvertible)?) -> QueryRequest {
        filter(keys: key.map { [$0] } ?? [])
    }

    /// Keeps the rows with these primary keys: `WHERE "id" IN (?, ?, ?)`.
    @_disfavoredOverload
    public func filter<Key: DatabaseValueConvertible>(keys: some Sequence<Key>) -> QueryRequest {
        let table = query.tableName ?? Root.databaseTableName
        do {
            let values = try keys.map { try RecordValueFormat.keyValue($0, of: Root.self, column: nil) }.filter { !$0.isNull }
            return filter(QueryExpression(SQLExpression(.primaryKeyIn(table: table, values, .current))))
        } catch {
            return filter(QueryExpression(SQLExpression(.invalid(error))))
        }
    }

    /// Keeps the row with these column values, a primary or unique key:
    /// `WHERE "a" = ? AND "b" = ?`. A `nil` value matches no row.
    ///
    /// ```swift
    /// PlaylistTrack.filter(key: ["PlaylistId": 1, "TrackId": 3402])
    /// ```
    @_disfavoredOverload
    public func filter(key: [String: (any DatabaseValueConvertible)?]) -> QueryRequest {
        filter(keys: [key])
    }

    /// Keeps the rows with any of these keys (each a dictionary of column values).
    @_disfavoredOverload
    public func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryRequest {
        var alternatives: [SQLExpression] = []
        for key in keys {
            var terms: [SQLExpression] = []
            for (column, value) in key.sorted(by: { $0.key < $1.key }) {
                do {
                    let databaseValue = try RecordValueFormat.keyValue(value, of: Root.self, column: column)
                    // `= NULL` matches nothing, as a key lookup with a NULL value does.
                    terms.append(SQLExpression(.infix("=", .column(column), .value(databaseValue))))
                } catch {
                    terms.append(SQLExpression(.invalid(error)))
                }
            }
            if let first = terms.first {
                alternatives.append(terms.dropFirst().reduce(first) { SQLExpression(.infix("AND", $0, $1)) })
            }
        }
        guard let first = alternatives.first else { return none() }
        return filter(QueryExpression(alternatives.dropFirst().reduce(first) { SQLExpression(.infix("OR", $0, $1)) }))
    }

    /// The primary key column of the request's table.
    var primaryKeyColumn: SQLExpression {
        SQLExpression(.primaryKeyColumn(table: query.tableName ?? Root.databaseTableName, .current))
    }

    /// Orders by the primary key (the rowid for a table without one), ascending,
    /// replacing any previous ordering.
    ///
    /// ```swift
    /// Player.all().orderByPrimaryKey()   // SELECT * FROM "player" ORDER BY "id"
    /// ```
    public func orderByPrimaryKey() -> QueryRequest {
        var request = order([])
        request.ordersByPrimaryKey = true
        return request
    }
}

extension QueryRequest where Root: TableRecord & Identifiable, Root.ID: DatabaseValueConvertible {
    /// Keeps the row with this id: `WHERE "id" = ?`.
    @_disfavoredOverload
    public func filter(id: Root.ID) -> QueryRequest {
        filter(key: id)
    }

    /// Keeps the rows with these ids: `WHERE "id" IN (?, ?)`.
    @_disfavoredOverload
    public func filter(ids: some Collection<Root.ID>) -> QueryRequest {
        filter(keys: ids)
    }

    /// Selects the primary key; each row decodes as an id.
    ///
    /// ```swift
    /// let ids: [Int64] = try Player.filter(\.score > 10).selectID().fetchAll(db)
    /// // SELECT "id" FROM "player" WHERE "score" > ?
    /// ```
    ///
    /// The selected column is the primary key of the table, looked up when
    /// SQL is generated.
    public func selectID() -> QueryRequest<Root, Root.ID> {
        selecting([SQLSelectable(expression: primaryKeyColumn, alias: nil)], decoder: .value(Root.ID.self, of: Root.self))
    }
}

extension QueryRequest {
    /// A request with no rows: `WHERE FALSE` (SQLite and PostgreSQL both read it).
    public func none() -> QueryRequest {
        filter(QueryExpression(SQLExpression(sql: "FALSE")))
    }

    /// Whether the request has no row.
    ///
    /// ```swift
    /// try Player.filter(\.score > 1000).isEmpty(db)   // SELECT NOT EXISTS (SELECT * FROM "player" WHERE "score" > ?)
    /// ```
    public func isEmpty(_ db: Database) throws -> Bool {
        try !fetchExists(db)
    }
}

extension QueryRequest where Root: TableRecord & Identifiable {
    /// Keeps the row with this id, for a record whose id is optional.
    @_disfavoredOverload
    public func filter<Wrapped: DatabaseValueConvertible>(id: Wrapped) -> QueryRequest where Root.ID == Wrapped? {
        filter(key: id)
    }

    /// Keeps the rows with these ids, for a record whose id is optional.
    @_disfavoredOverload
    public func filter<Wrapped: DatabaseValueConvertible>(ids: some Collection<Wrapped>) -> QueryRequest
    where Root.ID == Wrapped? {
        filter(keys: ids)
    }

    /// Selects the primary key, for a record whose id is optional: each row
    /// decodes as a non-optional id.
    public func selectID<Wrapped: DatabaseValueConvertible>() -> QueryRequest<Root, Wrapped> where Root.ID == Wrapped? {
        selecting([SQLSelectable(expression: primaryKeyColumn, alias: nil)], decoder: .value(Wrapped.self, of: Root.self))
    }
}
