// SQLSelectQuery: the parts of a SELECT statement, as plain values.
//
// Requests of the query interface are built by modifying one of these; the
// SQL text is produced by SQLGenerationContext.

/// A `SELECT` statement being built: source, selection, filter, grouping,
/// ordering, limit, joins and common table expressions.
package struct SQLSelectQuery: Sendable {
    /// What the query reads from.
    var source: SQLSource
    /// The alias of the source table, when the user chose one.
    var alias: TableAlias?
    /// The selected columns; nil selects all columns of the source.
    var selection: [SQLSelectable]?
    var isDistinct = false
    var filter: SQLExpression?
    var groupBy: [SQLExpression] = []
    var having: SQLExpression?
    var ordering: [SQLOrdering] = []
    var limit: Int?
    var offset: Int?
    var joins: [SQLJoin] = []
    var commonTableExpressions: [SQLCommonTableExpression] = []

    init(source: SQLSource) {
        self.source = source
    }

    /// Adds `expression` to the filter with `AND`.
    mutating func addFilter(_ expression: SQLExpression) {
        filter = filter.map { SQLExpression(.infix("AND", $0, expression)) } ?? expression
    }

    /// The table name of the source, if it is a table or a common table expression.
    var tableName: String? {
        if case .table(let name) = source { return name }
        return nil
    }
}

/// What a query reads from.
indirect enum SQLSource: Sendable {
    /// A table, a view, or a common table expression, by name.
    case table(String)
    /// A compound query: `a UNION b`, `a INTERSECT b`, `a EXCEPT b`.
    case compound(SQLCompoundOperator, [SQLSelectQuery])
    /// A subquery in the FROM clause.
    case subquery(SQLSelectQuery)
    /// A table-valued function: `json_each(?)`.
    case tableFunction(String, [SQLExpression])
}

/// The operators that combine queries (<https://www.sqlite.org/lang_select.html#compound>).
public enum SQLCompoundOperator: String, Sendable {
    /// Rows of both queries, duplicates removed.
    case union = "UNION"
    /// Rows of both queries, duplicates kept.
    case unionAll = "UNION ALL"
    /// Rows present in both queries.
    case intersect = "INTERSECT"
    /// Rows of the first query absent from the second.
    case except = "EXCEPT"
}

/// One selected expression, with an optional `AS` name.
struct SQLSelectable: Sendable {
    var expression: SQLExpression
    var alias: String?
}

/// One term of an `ORDER BY` clause.
public struct SQLOrdering: Sendable {
    /// Where `NULL`s go (<https://www.sqlite.org/lang_select.html#nullslast>).
    public enum NullsOrder: String, Sendable {
        /// `NULLS FIRST`.
        case first = "NULLS FIRST"
        /// `NULLS LAST`.
        case last = "NULLS LAST"
    }

    var expression: SQLExpression
    var isDescending: Bool
    var nulls: NullsOrder?

    /// The opposite order: ascending becomes descending, and NULLs move to the other end.
    var reversed: SQLOrdering {
        var result = self
        result.isDescending.toggle()
        switch nulls {
        case .first: result.nulls = .last
        case .last: result.nulls = .first
        case nil: result.nulls = nil
        }
        return result
    }
}

/// A `WITH` clause entry (<https://www.sqlite.org/lang_with.html>).
struct SQLCommonTableExpression: Sendable {
    var name: String
    var columns: [String]?
    var body: Body
    var isRecursive: Bool

    /// A query built by the query interface, or raw SQL.
    enum Body: Sendable {
        case query(SQLSelectQuery)
        case literal(SQLExpression)
    }
}

/// A join of an association into a query.
struct SQLJoin: Sendable {
    enum Kind: String, Sendable {
        case inner = "JOIN"
        case left = "LEFT JOIN"
        /// All rows of the joined table, with the parent's when they match
        /// (SQLite 3.39+, <https://www.sqlite.org/lang_select.html#rightjoin>).
        case right = "RIGHT JOIN"
        /// All rows of both tables, matched when they can be.
        case full = "FULL JOIN"
    }

    var kind: Kind
    /// The joined table.
    var tableName: String
    /// The association key: the preferred alias name, and the key its
    /// columns are decoded under when selected.
    var key: String
    /// The identity of this occurrence of the table.
    var alias: TableAlias
    /// How the joined table's rows match the parent's.
    var condition: SQLJoinCondition
    /// A filter on the joined table, added to the `ON` clause.
    var filter: SQLExpression?
    /// An ordering on the joined table, appended to the query's ordering.
    var ordering: [SQLOrdering] = []
    /// Whether the joined table's columns are selected (`including`) or not (`joining`).
    var isSelected: Bool
    /// Joins made from this joined table.
    var joins: [SQLJoin] = []
}

/// An aggregate of the rows an association links to each row of a query
/// (`Author.books.count`), written as a correlated subquery so that several
/// aggregates never multiply each other's rows, as joins would.
package struct SQLAssociationAggregate: Sendable {
    /// What the subquery computes.
    enum Kind: Sendable {
        /// An aggregate expression, evaluated on the destination table:
        /// `(SELECT AVG("books"."rating") FROM ...)`.
        case value(SQLExpression)
        /// Whether no row is linked: `NOT EXISTS (SELECT 1 FROM ...)`.
        case isEmpty
    }

    /// The association's join chain; its first table is correlated with the
    /// table of the query the aggregate is used in.
    var join: SQLJoin
    /// The alias of the association's destination table (the last step).
    var destination: TableAlias
    var kind: Kind
    /// The default column name of the aggregate in `annotated(with:)`.
    var key: String
}

/// How the rows of a joined table match its parent's rows.
enum SQLJoinCondition: Sendable {
    /// Explicit column pairs: `parent.column = child.column` for each pair.
    case columns([(parent: String, child: String)])
    /// Discover the pairs from the schema's foreign keys when generating SQL.
    /// `childHoldsForeignKey` tells which side holds the foreign key.
    case foreignKey(childHoldsForeignKey: Bool, foreignKeyColumns: [String]?)
    /// Any condition, written with the aliases `parent` and `child` for the
    /// two tables: `"player"."team_id" = "team"."id" AND …`.
    case expression(SQLExpression, parent: TableAlias, child: TableAlias)
    /// The joined table's rowid equals the parent's rowid (its INTEGER
    /// PRIMARY KEY, when it has one): an FTS5 table joined to its content
    /// table, `"book_ft"."rowid" = "book"."id"`.
    case rowid
    /// A condition that could not be built; generating SQL throws this error.
    case invalid(any Error)
}
