// Indexes on expressions and on descending columns, written with the query
// interface: `create(index:on:expressions:options:condition:)`, GRDB's spelling
// (https://www.sqlite.org/expridx.html, https://www.sqlite.org/lang_createindex.html).
//
// A schema statement cannot hold bound parameters, so the values of these
// expressions are written as SQL literals by the one literal renderer
// (Schema/DatabaseValue+SQLLiteral.swift), as for CHECK constraints.
// PostgreSQL needs an indexed expression in parentheses unless it is a plain
// column; SQLite takes it as it is.

/// A term of an index: a column, an expression, or either of them in an order
/// (`Column("score").desc`).
///
/// ``Database/create(index:on:expressions:options:condition:)`` takes them:
///
/// ```swift
/// try db.create(index: "player_on_lower_email", on: "player",
///               expressions: [lower(\Player.email)], options: .unique)
/// // CREATE UNIQUE INDEX "player_on_lower_email" ON "player"(lower("email"))
/// ```
///
/// ``Column``, ``SQLExpression``, ``QueryExpression``, an ``SQL`` literal,
/// ``SQLOrdering`` and ``QueryOrdering`` are index terms.
public protocol SQLIndexTerm: Sendable {
    /// The term, as an ordering: ascending unless it says otherwise.
    var sqlIndexOrdering: SQLOrdering { get }
}

extension Column: SQLIndexTerm {
    /// `"name"`, ascending.
    public var sqlIndexOrdering: SQLOrdering { asc }
}

extension SQLExpression: SQLIndexTerm {
    /// The expression, ascending.
    public var sqlIndexOrdering: SQLOrdering { SQLOrdering(expression: self, isDescending: false) }
}

extension QueryExpression: SQLIndexTerm {
    /// The expression, ascending.
    public var sqlIndexOrdering: SQLOrdering { SQLOrdering(expression: sqlExpression, isDescending: false) }
}

extension SQL: SQLIndexTerm {
    /// The literal, ascending. Its interpolated values are written as SQL literals.
    public var sqlIndexOrdering: SQLOrdering { SQLOrdering(expression: SQLExpression(.interpolated(self)), isDescending: false) }
}

extension SQLOrdering: SQLIndexTerm {
    /// The ordering itself: `Column("score").desc` is `"score" DESC`.
    public var sqlIndexOrdering: SQLOrdering { self }
}

extension QueryOrdering: SQLIndexTerm {
    /// The ordering itself: `.desc(\Player.score)` is `"score" DESC`.
    public var sqlIndexOrdering: SQLOrdering { ordering }
}

extension Database {
    /// Creates an index on expressions, or on columns in descending order
    /// (<https://www.sqlite.org/expridx.html>).
    ///
    /// ```swift
    /// // A case-insensitive unique email.
    /// try db.create(index: "player_on_lower_email", on: "player",
    ///               expressions: [lower(\Player.email)], options: .unique)
    /// // CREATE UNIQUE INDEX "player_on_lower_email" ON "player"(lower("email"))
    ///
    /// // The leaderboard of each team, best scores first.
    /// try db.create(index: "player_on_team_score", on: "player",
    ///               expressions: [Column("teamId"), Column("score").desc])
    /// // CREATE INDEX "player_on_team_score" ON "player"("teamId", "score" DESC)
    ///
    /// // Raw SQL, as written.
    /// try db.create(index: "player_on_name_length", on: "player", expressions: [SQL(sql: "length(name)")])
    /// // CREATE INDEX "player_on_name_length" ON "player"(length(name))
    /// ```
    ///
    /// GRDB's untyped spellings work too when all the expressions have the
    /// same type: `expressions: [lower(Column("email"))]` (GRDB's
    /// `Column("email").lowercased`), `[Column("name").collating(.nocase)]`.
    ///
    /// On PostgreSQL, an expression that is not a plain column is
    /// parenthesized, as PostgreSQL requires:
    /// `CREATE UNIQUE INDEX "player_on_lower_email" ON "player"((lower("email")))`.
    ///
    /// An index cannot hold bound parameters: the values of the expressions
    /// are written as SQL literals (`'text'`, `42`). `NULLS FIRST`/`NULLS LAST`
    /// are PostgreSQL's only; SQLite refuses them in an index.
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - table: the indexed table.
    ///   - expressions: the indexed columns and expressions, in order, each
    ///     ascending unless it is a descending ordering (`.desc`).
    ///   - options: `.unique`, `.ifNotExists`; see ``IndexOptions``.
    ///   - condition: the SQL condition of a partial index
    ///     (<https://www.sqlite.org/partialindex.html>); it must come from
    ///     your code, never from user input.
    public func create(
        index name: String, on table: String, expressions: [any SQLIndexTerm], options: IndexOptions = [],
        condition: String? = nil
    ) throws {
        guard !expressions.isEmpty else {
            throw DatabaseError.misuse("index \(name) on \(table) must have at least one expression")
        }
        let context = SQLGenerationContext(db: self, rendersValuesAsLiterals: true)
        let dialect = sqlDialect
        let terms = try expressions.map { term in
            let ordering = term.sqlIndexOrdering
            if ordering.nulls != nil, !dialect.features.contains(.allowsNullsOrderingInIndexes) {
                throw DatabaseError.misuse(
                    "index \(name) on \(table): NULLS FIRST and NULLS LAST are PostgreSQL-only in an index; SQLite refuses them")
            }
            var sql = try context.sql(ordering.expression)
            if dialect.features.contains(.parenthesizesIndexExpressions), !ordering.expression.isPlainColumn { sql = "(" + sql + ")" }
            if ordering.isDescending { sql += " DESC" }
            if let nulls = ordering.nulls { sql += " " + nulls.rawValue }
            return sql
        }
        var sql = options.contains(.unique) ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += name.quotedDatabaseIdentifier + " ON " + table.quotedDatabaseIdentifier
        sql += "(" + terms.joined(separator: ", ") + ")"
        if let condition { sql += " WHERE " + condition }
        try execute(sql: sql)
    }
}

extension Database {
    /// The SQL of `expression` with its values written as SQL literals of
    /// this database's dialect, for schema objects that cannot hold bound
    /// parameters (an index, a generated column): the hook of QuarryPostgres's
    /// full-text schema helpers, rendered as ``create(index:on:expressions:options:condition:)``
    /// renders its expressions.
    package func literalSQL(_ expression: SQLExpression) throws -> String {
        try SQLGenerationContext(db: self, rendersValuesAsLiterals: true).sql(expression)
    }
}

extension Database {
    /// Creates an index on expressions built from ``Column``, whose record
    /// type nothing else says: the functions and operators of `Column`
    /// (`lower(Column("email"))`, `Column("name").collating(.nocase)`) take
    /// it from here.
    ///
    /// ```swift
    /// try db.create(index: "player_on_lower_email", on: "player",
    ///               expressions: [lower(Column("email"))], options: .unique)
    /// // CREATE UNIQUE INDEX "player_on_lower_email" ON "player"(lower("email"))
    /// ```
    ///
    /// It creates the same index as the documented
    /// `create(index:on:expressions:options:condition:)`, which mixes columns,
    /// expressions and orderings; this overload only gives the untyped
    /// expressions their record type, and is left out of the documentation
    /// so that links to that method stay unambiguous.
    ///
    /// - parameters:
    ///   - name: the index name.
    ///   - table: the indexed table.
    ///   - expressions: the indexed expressions, in order.
    ///   - options: `.unique`, `.ifNotExists`; see ``IndexOptions``.
    ///   - condition: the SQL condition of a partial index; it must come
    ///     from your code, never from user input.
    @_disfavoredOverload
    @_documentation(visibility: internal)
    public func create<Value>(
        index name: String, on table: String, expressions: [QueryExpression<TableDefinition, Value>],
        options: IndexOptions = [], condition: String? = nil
    ) throws {
        try create(
            index: name, on: table, expressions: expressions.map { $0 as any SQLIndexTerm }, options: options,
            condition: condition)
    }
}

extension SQLExpression {
    /// Whether the expression is a column name alone, which PostgreSQL
    /// indexes without parentheses.
    var isPlainColumn: Bool {
        if case .column = node { return true }
        return false
    }
}
