// Creating views (https://www.sqlite.org/lang_createview.html) from a request
// of the query interface, an SQLRequest, or an SQL literal, GRDB's spellings.
//
// SQLite allows no parameters in a view, so its SQL is generated in the
// literal mode of SQLGenerationContext: each value is written by the one
// literal renderer (DatabaseValue.sqlLiteral) in place of its placeholder.
// Identifiers are quoted.

extension Database {
    /// Creates a view from a request of the query interface
    /// (<https://www.sqlite.org/lang_createview.html>).
    ///
    /// ```swift
    /// try db.create(view: "topPlayer", as: Player.filter(\.score >= 100).order(.desc(\.score)))
    /// // CREATE VIEW "topPlayer" AS SELECT * FROM "player" WHERE "score" >= 100 ORDER BY "score" DESC
    /// ```
    ///
    /// SQLite allows no bound parameters in a view: the request's values are
    /// written into the SQL as literals (`100` above, `'it''s'` for a string),
    /// in a way that never changes the meaning of the SQL, whatever they hold.
    ///
    /// A record type whose `databaseTableName` is the view fetches its rows;
    /// its persistence methods throw
    /// ``RecordError/viewNotWritable(recordType:databaseViewName:statement:)``
    /// unless an `INSTEAD OF` trigger handles the statement.
    ///
    /// - parameters:
    ///   - name: the view name.
    ///   - options: `.ifNotExists`, `.temporary` (see ``ViewOptions``).
    ///   - columns: the names of the view's columns, in order; nil names them
    ///     after the columns the request selects.
    ///   - request: the request whose rows the view shows. Associations
    ///     prefetched with `including(all:)` cannot be part of a view.
    public func create<Root, Result>(
        view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: QueryRequest<Root, Result>
    ) throws {
        guard request.prefetches.isEmpty else {
            throw DatabaseError.misuse("view \(name) cannot hold the associations that including(all:) prefetches")
        }
        let context = SQLGenerationContext(db: self, rendersValuesAsLiterals: true)
        let select = try context.selectSQL(request.effectiveQuery(self))
        try makeStatement(sql: Self.createViewPrefix(name, options, columns) + select).execute()
    }

    /// Creates a view from an ``SQLRequest`` (<https://www.sqlite.org/lang_createview.html>).
    ///
    /// ```swift
    /// try db.create(view: "poor", columns: ["name"],
    ///               as: SQLRequest<String>(sql: "SELECT name FROM player WHERE score < ?", arguments: [50]))
    /// // CREATE VIEW "poor"("name") AS SELECT name FROM player WHERE score < 50
    /// ```
    ///
    /// The request's arguments are written into the SQL as literals, since
    /// SQLite allows no parameters in a view.
    ///
    /// - parameters:
    ///   - name: the view name.
    ///   - options: `.ifNotExists`, `.temporary` (see ``ViewOptions``).
    ///   - columns: the names of the view's columns, in order; nil names them
    ///     after the columns the request selects.
    ///   - request: the request whose rows the view shows.
    public func create<Result>(
        view name: String, options: ViewOptions = [], columns: [String]? = nil, as request: SQLRequest<Result>
    ) throws {
        try create(view: name, options: options, columns: columns, asLiteral: request.literal)
    }

    /// Creates a view from an ``SQL`` literal (<https://www.sqlite.org/lang_createview.html>).
    ///
    /// ```swift
    /// try db.create(view: "rich", asLiteral: "SELECT * FROM \(Player.self) WHERE \(\Player.score) > \(150)")
    /// // CREATE VIEW "rich" AS SELECT * FROM "player" WHERE "score" > 150
    /// ```
    ///
    /// Interpolated values are written into the SQL as literals, since SQLite
    /// allows no parameters in a view; a `?` written in the SQL text itself
    /// makes SQLite throw.
    ///
    /// - parameters:
    ///   - name: the view name.
    ///   - options: `.ifNotExists`, `.temporary` (see ``ViewOptions``).
    ///   - columns: the names of the view's columns, in order; nil names them
    ///     after the columns the SELECT returns.
    ///   - sqlLiteral: the SELECT statement whose rows the view shows.
    public func create(
        view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sqlLiteral: SQL
    ) throws {
        let select = try SQLGenerationContext(db: self, rendersValuesAsLiterals: true).sql(sqlLiteral)
        try makeStatement(sql: Self.createViewPrefix(name, options, columns) + select).execute()
    }

    /// `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] "name"[("a", "b")] AS `.
    private static func createViewPrefix(_ name: String, _ options: ViewOptions, _ columns: [String]?) -> String {
        var sql = createClause("VIEW", name, temporary: options.contains(.temporary), ifNotExists: options.contains(.ifNotExists))
        if let columns { sql += "(" + TableDefinition.columnList(columns) + ")" }
        return sql + " AS "
    }
}
