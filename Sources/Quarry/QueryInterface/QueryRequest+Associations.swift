// Joining and eager-loading associations in requests: joining(required:),
// joining(optional:), including(required:), including(optional:) — one
// query with JOINs — and including(all:) — one extra query per association,
// whatever the number of parent rows.

extension QueryRequest {
    /// Joins an association: only rows that have a matching record are kept,
    /// and the joined columns are not selected (`JOIN`).
    ///
    /// ```swift
    /// Player.joining(required: Player.team.filter(\.name == "Reds"))
    /// // SELECT "player".* FROM "player"
    /// // JOIN "team" ON "team"."id" = "player"."team_id" AND ("team"."name" = ?)
    /// ```
    public func joining<Destination>(required association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .inner, selected: false)
    }

    /// Left-joins an association: all rows are kept, and the joined columns
    /// are not selected (`LEFT JOIN`). Filter on the joined table with a
    /// ``TableAlias``.
    public func joining<Destination>(optional association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .left, selected: false)
    }

    /// Joins an association and selects its columns, for decoding with
    /// ``asRequest(of:)`` into a type with a property named after the
    /// association key.
    ///
    /// ```swift
    /// struct PlayerInfo: Decodable, FetchableRecord {
    ///     var player: Player
    ///     var team: Team
    /// }
    /// let infos = try Player.including(required: Player.team).asRequest(of: PlayerInfo.self).fetchAll(db)
    /// // SELECT "player".*, "team".* FROM "player" JOIN "team" ON "team"."id" = "player"."team_id"
    /// ```
    public func including<Destination>(required association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .inner, selected: true)
    }

    /// Left-joins an association and selects its columns; the property of the
    /// decoded type is nil when no record matches.
    public func including<Destination>(optional association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .left, selected: true)
    }

    /// Fetches all the records of a to-many association for every fetched
    /// row, with one extra query (not one per row), for decoding into an
    /// array property named after the association key.
    ///
    /// ```swift
    /// struct TeamWithPlayers: Decodable, FetchableRecord {
    ///     var team: Team
    ///     var players: [Player]
    /// }
    /// let teams = try Team.including(all: Team.players).asRequest(of: TeamWithPlayers.self).fetchAll(db)
    /// // SELECT * FROM "team"
    /// // SELECT "team"."id" AS "quarry_prefetch_key", "players".* FROM "team"
    /// //   JOIN "player" "players" ON "players"."team_id" = "team"."id"
    /// //   WHERE "team"."id" IN (SELECT value FROM json_each(?))
    /// ```
    public func including<Destination>(all association: Association<Root, Destination>) -> QueryRequest {
        var request = self
        request.prefetches.append(Prefetch(key: association.key, join: association.makeJoin(kind: .inner, selected: true)))
        return request
    }

    /// Right-joins an association: every record of the destination is kept,
    /// with the rows of this request that match it, or `NULL`s (SQLite 3.39+,
    /// <https://www.sqlite.org/lang_select.html#rightjoin>). Select the
    /// columns to fetch: the request's own columns may be `NULL`.
    ///
    /// ```swift
    /// Album.joining(right: Album.association(to: Artist.self) { album, artist in
    ///     album[\Album.artistId] == artist[\Artist.artistId]
    /// })
    /// // SELECT "Album".* FROM "Album" RIGHT JOIN "Artist" "artist" ON ("Album"."artistId" = "artist"."artistId")
    /// ```
    public func joining<Destination>(right association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .right, selected: false)
    }

    /// Full-joins an association: the rows of both sides are kept, matched
    /// where they can be (SQLite 3.39+).
    public func joining<Destination>(full association: Association<Root, Destination>) -> QueryRequest {
        joined(association, kind: .full, selected: false)
    }

    private func joined<Destination>(_ association: Association<Root, Destination>, kind: SQLJoin.Kind, selected: Bool) -> QueryRequest {
        var request = self
        request.query.joins.append(association.makeJoin(kind: kind, selected: selected))
        return request
    }

    /// The same request, decoding each row as `T`: a record, or a type that
    /// holds a record and the records of its included associations.
    public func asRequest<T: Decodable>(of type: T.Type) -> QueryRequest<Root, T> {
        withDecoder(.record(recordType: Root.self, tableName: query.tableName))
    }
}

/// An association fetched by `including(all:)`.
struct Prefetch: Sendable {
    /// The key of the association: the property its records decode into.
    var key: String
    /// The join from the parent table to the association's records.
    var join: SQLJoin
}

/// The column name of the prefetch query that holds the parent key.
private let prefetchKeyColumn = "quarry_prefetch_key"

extension QueryRequest {
    /// `fetchAll` for requests with `including(all:)`: fetches the parent
    /// rows, then each association's records for all parents in one query,
    /// then decodes the parents with their children.
    func fetchAllWithPrefetches(_ db: Database, query: SQLSelectQuery) throws -> [Result] {
        guard let decodeScoped = decoder.decodeScoped else {
            throw DatabaseError.misuse("including(all:) needs a Decodable result: use asRequest(of:)")
        }
        guard let table = query.tableName else {
            throw DatabaseError.misuse("including(all:) needs a request on a table")
        }
        let (rows, layout, _) = try copiedRows(db, query: query)
        // No parent, nothing to prefetch (and a server tells no column names
        // for an empty result).
        guard let columnNames = rows.first?.columnNames else { return [] }
        let mainCount = layout.mainColumnCount ?? columnNames.count
        let mainLayout = RowLayout(columnNames: Array(columnNames.prefix(mainCount)))

        var prefetched: [[String: [ScopedRow]]] = Array(repeating: [:], count: rows.count)
        for prefetch in prefetches {
            let context = SQLGenerationContext(db: db)
            let pairs = try context.columnPairs(of: prefetch.join, parentTable: table)
            guard pairs.count == 1, let parentColumn = pairs.first?.parent else {
                throw DatabaseError.misuse("including(all: \(prefetch.key)) needs a single-column key, not \(pairs.map(\.parent))")
            }
            guard let keyIndex = mainLayout.index(of: parentColumn) else {
                throw DatabaseError.misuse("including(all: \(prefetch.key)) needs the column \(parentColumn) of \(table) in the selection")
            }
            var parentKeys: [DatabaseValue] = []
            var seen: Set<DatabaseValue> = []
            for row in rows {
                let key = row.databaseValues[keyIndex]
                if !key.isNull, seen.insert(key).inserted { parentKeys.append(key) }
            }
            let children = try fetchChildren(db, prefetch: prefetch, table: table, parentColumn: parentColumn, keys: parentKeys)
            for (index, row) in rows.enumerated() {
                prefetched[index][prefetch.key] = children[row.databaseValues[keyIndex]] ?? []
            }
        }
        let cache = ScopeCache()
        return try rows.enumerated().map { index, row in
            try decodeScoped(ScopedRow(
                source: RowBuffer(row), range: 0..<mainCount, children: layout.scopes, prefetched: prefetched[index],
                recordType: Root.self, tableName: table, cache: cache))
        }
    }

    /// The records of a prefetched association, grouped by parent key.
    private func fetchChildren(
        _ db: Database, prefetch: Prefetch, table: String, parentColumn: String, keys: [DatabaseValue]
    ) throws -> [DatabaseValue: [ScopedRow]] {
        guard !keys.isEmpty else { return [:] }
        let parent = TableAlias()
        guard db.sqlDialect.features.contains(.bindsKeyListAsJSONArray), !keys.contains(where: { if case .blob = $0 { true } else { false } }) else {
            // JSON cannot carry blob keys (a UUID stored as 16 bytes, say),
            // and json_each is SQLite's: bind the keys in IN lists, in chunks
            // well under SQLite's limit on parameters. Each parent key is in
            // one chunk, so the order of its children is kept.
            var children: [DatabaseValue: [ScopedRow]] = [:]
            var start = 0
            while start < keys.count {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let filter = SQLExpression(.inList(parent[parentColumn], chunk.map { .value($0) }, negated: false))
                children.merge(
                    try fetchChildren(db, prefetch: prefetch, table: table, parentColumn: parentColumn, parent: parent, filter: filter),
                    uniquingKeysWith: { $0 + $1 })
                start += 500
            }
            return children
        }
        var keyList = SQLSelectQuery(source: .tableFunction("json_each", [.value(.text(try jsonArray(keys)))]))
        keyList.selection = [SQLSelectable(expression: .column("value"), alias: nil)]
        let filter = SQLExpression(.inSubquery(parent[parentColumn], keyList, negated: false))
        return try fetchChildren(db, prefetch: prefetch, table: table, parentColumn: parentColumn, parent: parent, filter: filter)
    }

    /// The records of a prefetched association whose parent key passes `filter`.
    private func fetchChildren(
        _ db: Database, prefetch: Prefetch, table: String, parentColumn: String, parent: TableAlias, filter: SQLExpression
    ) throws -> [DatabaseValue: [ScopedRow]] {
        var query = SQLSelectQuery(source: .table(table))
        query.alias = parent
        query.selection = [SQLSelectable(expression: parent[parentColumn], alias: prefetchKeyColumn)]
        query.joins = [prefetch.join]
        query.filter = filter

        let (rows, layout, _) = try copiedRows(db, query: query)
        guard let scope = layout.scopes.first else { return [:] }
        let cache = ScopeCache()
        var children: [DatabaseValue: [ScopedRow]] = [:]
        for row in rows {
            children[row.databaseValues[0], default: []].append(ScopedRow(
                source: RowBuffer(row), range: scope.range, children: scope.children, prefetched: [:], recordType: nil,
                tableName: nil, cache: cache))
        }
        return children
    }

    /// A JSON array of key values, bound as one argument and read back with
    /// `json_each` (<https://www.sqlite.org/json1.html#jeach>).
    private func jsonArray(_ values: [DatabaseValue]) throws -> String {
        try "[" + values.map { value -> String in
            switch value {
            case .integer(let integer): return String(integer)
            case .real(let real) where real.isFinite: return String(real)
            case .text(let text): return jsonString(text)
            default: throw DatabaseError.misuse("including(all:) does not support keys of value \(value)")
            }
        }.joined(separator: ",") + "]"
    }

    private func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
