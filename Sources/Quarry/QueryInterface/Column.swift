// Column: a column by name, with no type, for the code that GRDB users write
// (`Column("score") > 10`, `enum Columns { static let name = Column(CodingKeys.name) }`).
//
// Key paths stay the recommended way to name columns: they are checked by the
// compiler, values included. A Column works with no type annotation: its
// comparisons take the record type (Root) from the request they filter.

/// A column of a table, by name.
///
/// ```swift
/// Player.filter(Column("score") > 10)           // "score" > ?
/// Player.filter(Column("teamID") == nil)         // "teamID" IS NULL
/// Player.order(Column("score").desc)             // ORDER BY "score" DESC
///
/// struct Player: Codable, FetchableRecord, PersistableRecord {
///     var id: Int64
///     var name: String
///     enum Columns {
///         static let name = Column(CodingKeys.name)
///     }
/// }
/// Player.filter(Player.Columns.name == "Arthur") // "name" = ?
/// ```
///
/// Comparisons bind their values in the format of the request's record (its
/// date and UUID strategies), like key paths do; unlike key paths, the value's
/// type is not checked against the column.
///
/// GRDB's other forms work too, and give ``QueryExpression``s
/// (Column+Expressions.swift): arithmetic (`Column("score") + 1`, typed by the
/// value), `??`, `collating(_:)`, `ascNullsLast`/`descNullsFirst`, ranges
/// (`(0...10).contains(Column("score"))`), aggregates
/// (`max(Column("score"))`), `cast(_:as:)`, `lower`/`upper`, and ``rank``.
/// For the other methods and functions of ``QueryExpression``, wrap the
/// column: `QueryExpression<Player, String>(Column("name")).hasPrefix("A")`.
public struct Column: Sendable, CustomStringConvertible {
    /// The column name.
    public let name: String

    /// The SQL the column stands for: the column itself, or an expression of
    /// it (``lowercased``).
    let sqlExpression: SQLExpression

    /// Whether the column stands for itself, not an expression of it.
    private let isPlain: Bool

    /// The column named `name`.
    public init(_ name: String) {
        self.name = name
        self.sqlExpression = .column(name)
        self.isPlain = true
    }

    /// The column of a coding key: its `stringValue`.
    public init(_ codingKey: some CodingKey) {
        self.init(codingKey.stringValue)
    }

    /// An expression of the column `name`, untyped like a column.
    private init(name: String, expression: SQLExpression) {
        self.name = name
        self.sqlExpression = expression
        self.isPlain = false
    }

    /// The hidden `rowid` column (<https://www.sqlite.org/rowidtable.html>).
    public static let rowID = Column("rowid")

    /// The quoted name, `"score"`, or the SQL of an expression of the
    /// column, `lower("name")`.
    public var description: String {
        isPlain ? name.quotedDatabaseIdentifier : SQL(sqlExpression).description
    }

    /// The column's text in lower case, GRDB's spelling: `lower("name")`.
    /// An untyped expression, usable wherever a ``Column`` is:
    ///
    /// ```swift
    /// Player.filter(Player.Columns.name.lowercased == "arthur")   // WHERE lower("name") = ?
    /// Player.order(Player.Columns.name.lowercased)                 // ORDER BY lower("name")
    /// ```
    ///
    /// Unlike GRDB's, which folds case as Swift's `lowercased()` does with a
    /// function it registers, this is SQL's `lower()`, which folds ASCII
    /// letters only on SQLite (and every letter on PostgreSQL), and runs on
    /// both databases with nothing registered.
    public var lowercased: Column {
        Column(name: name, expression: .function("lower", [sqlExpression]))
    }

    /// The column's text in upper case, GRDB's spelling: `upper("name")`.
    /// See ``lowercased``.
    public var uppercased: Column {
        Column(name: name, expression: .function("upper", [sqlExpression]))
    }

    /// Ascending order: `ORDER BY "score"`.
    public var asc: SQLOrdering { SQLOrdering(expression: sqlExpression, isDescending: false) }

    /// Descending order: `ORDER BY "score" DESC`.
    public var desc: SQLOrdering { SQLOrdering(expression: sqlExpression, isDescending: true) }

    /// Whether the column is `NULL`: `"teamID" IS NULL`.
    public func isNull<Root>() -> QueryExpression<Root, Bool> { self == nil }

    /// SQL `LIKE` (<https://www.sqlite.org/lang_expr.html#like>): `"name" LIKE ?`.
    public func like<Root>(_ pattern: String) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, String>(self).like(pattern)
    }

    /// Sets the column in a batch update: `Column("score").set(to: 0)`.
    public func set<Root>(to value: (any DatabaseValueConvertible)?) -> ColumnAssignment<Root> {
        ColumnAssignment(sqlExpression, .bound(value, in: Root.self, near: sqlExpression))
    }
}

// MARK: - Comparisons

/// A comparison of a column with a value, bound in the format of the record `Root`.
private func comparison<Root>(_ op: String, _ column: Column, _ value: (any DatabaseValueConvertible)?) -> QueryExpression<Root, Bool> {
    let bound = SQLExpression.bound(value, in: Root.self, near: column.sqlExpression)
    if bound.isNullValue && (op == "=" || op == "<>") {
        return QueryExpression(SQLExpression(.postfix(column.sqlExpression, op == "=" ? "IS NULL" : "IS NOT NULL")))
    }
    return QueryExpression(SQLExpression(.infix(op, column.sqlExpression, bound)))
}

/// `Column("a") == value`: SQL `=`; `== nil` is `IS NULL`.
public func == <Root>(lhs: Column, rhs: (any DatabaseValueConvertible)?) -> QueryExpression<Root, Bool> {
    comparison("=", lhs, rhs)
}

/// `Column("a") != value`: SQL `<>`; `!= nil` is `IS NOT NULL`.
public func != <Root>(lhs: Column, rhs: (any DatabaseValueConvertible)?) -> QueryExpression<Root, Bool> {
    comparison("<>", lhs, rhs)
}

/// `Column("a") < value`: SQL `<`.
public func < <Root>(lhs: Column, rhs: any DatabaseValueConvertible) -> QueryExpression<Root, Bool> {
    comparison("<", lhs, rhs)
}

/// `Column("a") <= value`: SQL `<=`.
public func <= <Root>(lhs: Column, rhs: any DatabaseValueConvertible) -> QueryExpression<Root, Bool> {
    comparison("<=", lhs, rhs)
}

/// `Column("a") > value`: SQL `>`.
public func > <Root>(lhs: Column, rhs: any DatabaseValueConvertible) -> QueryExpression<Root, Bool> {
    comparison(">", lhs, rhs)
}

/// `Column("a") >= value`: SQL `>=`.
public func >= <Root>(lhs: Column, rhs: any DatabaseValueConvertible) -> QueryExpression<Root, Bool> {
    comparison(">=", lhs, rhs)
}

/// `Column("a") == Column("b")`: SQL `=` between two columns.
public func == <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("=", lhs.sqlExpression, rhs.sqlExpression)))
}

/// `Column("a") != Column("b")`: SQL `<>` between two columns.
public func != <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("<>", lhs.sqlExpression, rhs.sqlExpression)))
}

extension Sequence where Element: DatabaseValueConvertible {
    /// Whether the column's value is one of the elements: `"id" IN (?, ?, ?)`.
    ///
    /// ```swift
    /// Player.filter([1, 2, 3].contains(Column("id")))
    /// ```
    public func contains<Root>(_ column: Column) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(SQLExpression(.inList(
            column.sqlExpression, map { .bound($0, in: Root.self, near: column.sqlExpression) }, negated: false)))
    }
}

/// `Column("a") < Column("b")`: SQL `<` between two columns.
public func < <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("<", lhs.sqlExpression, rhs.sqlExpression)))
}

/// `Column("a") <= Column("b")`: SQL `<=` between two columns.
public func <= <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("<=", lhs.sqlExpression, rhs.sqlExpression)))
}

/// `Column("a") > Column("b")`: SQL `>` between two columns.
public func > <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix(">", lhs.sqlExpression, rhs.sqlExpression)))
}

/// `Column("a") >= Column("b")`: SQL `>=` between two columns.
public func >= <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix(">=", lhs.sqlExpression, rhs.sqlExpression)))
}
