// Column+Expressions: the expression forms of GRDB's `Column` beyond
// comparisons: arithmetic, `??`, collations, text case, ordering with NULLs
// placed, ranges and aggregates, so that code written for GRDB
// (`Player.Columns.score + 1`, `max(Player.Columns.score)`) compiles.
//
// Each form returns a `QueryExpression` and writes the same SQL as the key
// path form. A column has no Swift type: arithmetic takes its type from the
// other operand (`Column("score") + 1` is an `Int` expression), and forms
// with nothing to take a type from are `DatabaseValue` expressions.
//
// The operators are `@_disfavoredOverload` (except `??` between two columns,
// which must rank above the standard library's: see below): they only apply
// when an operand is a `Column`, so this changes no meaning, and the type
// checker tries the others first (Benchmarks/README.md, "Compile time").

// MARK: - Arithmetic

/// `Column("score") + 1` is `"score" + ?`, typed by the value (here `Int`).
@_disfavoredOverload
public func + <Root, Value: Numeric>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, value: rhs)
}

/// `1 + Column("score")` is `? + "score"`, typed by the value.
@_disfavoredOverload
public func + <Root, Value: Numeric>(lhs: Value, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("+", .bound(lhs, in: Root.self, near: rhs.sqlExpression), rhs.sqlExpression)
}

/// `Column("score") + Column("bonus") > 10` is `"score" + "bonus" > ?`: the sum is typed by
/// what it is compared or computed with.
@_disfavoredOverload
public func + <Root, Value: Numeric>(lhs: Column, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") + Column("bonus")` with nothing to type it, as in
/// `(Column("score") + Column("bonus")).desc`: `"score" + "bonus"`, untyped.
@_disfavoredOverload
public func + <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, DatabaseValue> {
    arithmetic("+", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") + Column("bonus") * 2` is `"score" + ("bonus" * ?)`.
@_disfavoredOverload
public func + <Root, Value: Numeric>(lhs: Column, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") * 2 + Column("bonus")` is `("score" * ?) + "bonus"`.
@_disfavoredOverload
public func + <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") - 1` is `"score" - ?`, typed by the value.
@_disfavoredOverload
public func - <Root, Value: Numeric>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, value: rhs)
}

/// `100 - Column("score")` is `? - "score"`, typed by the value.
@_disfavoredOverload
public func - <Root, Value: Numeric>(lhs: Value, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("-", .bound(lhs, in: Root.self, near: rhs.sqlExpression), rhs.sqlExpression)
}

/// `Column("score") - Column("bonus")` is `"score" - "bonus"`, typed by what it is compared with.
@_disfavoredOverload
public func - <Root, Value: Numeric>(lhs: Column, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") - Column("bonus")` with nothing to type it, as in
/// `(Column("score") - Column("bonus")).desc`: `"score" - "bonus"`, untyped.
@_disfavoredOverload
public func - <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, DatabaseValue> {
    arithmetic("-", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") - Column("bonus") * 2` is `"score" - ("bonus" * ?)`.
@_disfavoredOverload
public func - <Root, Value: Numeric>(lhs: Column, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") * 2 - Column("bonus")` is `("score" * ?) - "bonus"`.
@_disfavoredOverload
public func - <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") * 2` is `"score" * ?`, typed by the value.
@_disfavoredOverload
public func * <Root, Value: Numeric>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, value: rhs)
}

/// `2 * Column("score")` is `? * "score"`, typed by the value.
@_disfavoredOverload
public func * <Root, Value: Numeric>(lhs: Value, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("*", .bound(lhs, in: Root.self, near: rhs.sqlExpression), rhs.sqlExpression)
}

/// `Column("score") * Column("bonus")` is `"score" * "bonus"`, typed by what it is compared with.
@_disfavoredOverload
public func * <Root, Value: Numeric>(lhs: Column, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") * Column("bonus")` with nothing to type it, as in
/// `(Column("score") * Column("bonus")).desc`: `"score" * "bonus"`, untyped.
@_disfavoredOverload
public func * <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, DatabaseValue> {
    arithmetic("*", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") * (Column("bonus") + 1)` is `"score" * ("bonus" + ?)`.
@_disfavoredOverload
public func * <Root, Value: Numeric>(lhs: Column, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, rhs.sqlExpression)
}

/// `(Column("score") + 1) * Column("bonus")` is `("score" + ?) * "bonus"`.
@_disfavoredOverload
public func * <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") / 2` is `"score" / ?`, typed by the value (an integer
/// division for integers, on SQLite and PostgreSQL alike).
@_disfavoredOverload
public func / <Root, Value: Numeric>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, value: rhs)
}

/// `100 / Column("score")` is `? / "score"`, typed by the value.
@_disfavoredOverload
public func / <Root, Value: Numeric>(lhs: Value, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("/", .bound(lhs, in: Root.self, near: rhs.sqlExpression), rhs.sqlExpression)
}

/// `Column("score") / Column("bonus")` is `"score" / "bonus"`, typed by what it is compared with.
@_disfavoredOverload
public func / <Root, Value: Numeric>(lhs: Column, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") / Column("bonus")` with nothing to type it, as in
/// `(Column("score") / Column("bonus")).desc`: `"score" / "bonus"`, untyped.
@_disfavoredOverload
public func / <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, DatabaseValue> {
    arithmetic("/", lhs.sqlExpression, rhs.sqlExpression)
}

/// `Column("score") / (Column("bonus") + 1)` is `"score" / ("bonus" + ?)`.
@_disfavoredOverload
public func / <Root, Value: Numeric>(lhs: Column, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, rhs.sqlExpression)
}

/// `(Column("score") + 1) / Column("bonus")` is `("score" + ?) / "bonus"`.
@_disfavoredOverload
public func / <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Column) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, rhs.sqlExpression)
}

/// `-Column("score") < -100` is `-"score" < ?`: typed by what it is compared with.
@_disfavoredOverload
public prefix func - <Root, Value: SignedNumeric>(operand: Column) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("-", operand.sqlExpression)))
}

// MARK: - Coalescing

/// The column's value, or `defaultValue` when it is `NULL`:
/// `Column("teamID") ?? 0` is `IFNULL("teamID", ?)` (`COALESCE` on PostgreSQL).
@_disfavoredOverload
public func ?? <Root, Value>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, .bound(rhs, in: Root.self, near: lhs.sqlExpression)]))
}

// Between two columns, the standard library's `??` would compile too, by
// wrapping the left column in an Optional and returning it unchanged:
// `(Column("nickname") ?? Column("name")).desc` would order by "nickname"
// alone. These two rank above it (no optional promotion), the first when
// the result is compared or computed with a typed value, the second
// otherwise. Neither is disfavored, which would rank it below the standard
// library's.

/// The first column's value, or the second's when it is `NULL`:
/// `IFNULL("nickname", "name")`, typed by what it is compared with.
public func ?? <Root, Value>(lhs: Column, rhs: Column) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression]))
}

/// The first column's value, or the second's when it is `NULL`:
/// `IFNULL("nickname", "name")`, untyped, as in `(Column("nickname") ?? Column("name")).desc`.
public func ?? <Root>(lhs: Column, rhs: Column) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression]))
}

// MARK: - Methods

extension Column {
    /// The column compared and ordered with a collation: SQL `COLLATE`.
    ///
    /// ```swift
    /// Player.filter(Column("name").collating(.nocase) == "arthur")  // "name" COLLATE "NOCASE" = ?
    /// Player.order(Column("name").collating(.nocase))               // ORDER BY "name" COLLATE "NOCASE"
    /// ```
    ///
    /// The result is a text expression, so ``QueryExpression/hasPrefix(_:)``
    /// and the other text methods apply (with the collation).
    public func collating<Root>(_ collation: Collation) -> QueryExpression<Root, String> {
        QueryExpression<Root, String>(self).collating(collation)
    }

    /// Ascending order, `NULL`s last: `ORDER BY "teamID" NULLS LAST`.
    public var ascNullsLast: SQLOrdering { SQLOrdering(expression: sqlExpression, isDescending: false, nulls: .last) }

    /// Descending order, `NULL`s first: `ORDER BY "teamID" DESC NULLS FIRST`.
    public var descNullsFirst: SQLOrdering { SQLOrdering(expression: sqlExpression, isDescending: true, nulls: .first) }

    /// The hidden `rank` column of an FTS5 table, for `ORDER BY rank`
    /// (<https://www.sqlite.org/fts5.html#sorting_by_auxiliary_function_results>):
    ///
    /// ```swift
    /// BookFT.matching(pattern).order(Column.rank)   // ORDER BY "rank"
    /// ```
    public static let rank = Column("rank")
}

// MARK: - Text functions

/// The text in lower case (ASCII letters only): `lower("name")`.
///
/// GRDB spells it `Column("name").lowercased`, and folds case as Swift's
/// `lowercased()` does, with a function it registers: this is SQL's `lower()`,
/// which keeps letters outside ASCII.
public func lower<Root>(_ column: Column) -> QueryExpression<Root, String> {
    QueryExpression<Root, String>(column).lowercased
}

/// The text in upper case (ASCII letters only): `upper("name")`.
public func upper<Root>(_ column: Column) -> QueryExpression<Root, String> {
    QueryExpression<Root, String>(column).uppercased
}

// MARK: - Ranges

extension ClosedRange {
    /// Whether the column's value is in the range: `"score" BETWEEN ? AND ?`.
    ///
    /// ```swift
    /// Player.filter((10...20).contains(Column("score")))
    /// ```
    public func contains<Root>(_ column: Column) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bound>(column).between(lowerBound, and: upperBound)
    }
}

extension Range {
    /// Whether the column's value is in the half-open range:
    /// `"score" >= ? AND "score" < ?`.
    ///
    /// ```swift
    /// Player.filter((10..<20).contains(Column("score")))
    /// ```
    public func contains<Root>(_ column: Column) -> QueryExpression<Root, Bool> {
        contains(QueryExpression<Root, Bound>(column))
    }
}

// MARK: - Aggregates

/// The number of rows where the column is not `NULL`: `COUNT("email")`.
public func count<Root>(_ column: Column) -> QueryExpression<Root, Int> {
    QueryExpression(.function("COUNT", [column.sqlExpression]))
}

/// The number of distinct non-`NULL` values: `COUNT(DISTINCT "email")`.
public func count<Root>(distinct column: Column) -> QueryExpression<Root, Int> {
    QueryExpression(.function("COUNT", [column.sqlExpression], distinct: true))
}

/// The largest value, `NULL` without rows: `MAX("score")`.
///
/// ```swift
/// let best = try Player.select(max(Column("score")), as: Int.self).fetchOne(db)
/// ```
public func max<Root>(_ column: Column) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(.function("MAX", [column.sqlExpression]))
}

/// The smallest value, `NULL` without rows: `MIN("score")`.
public func min<Root>(_ column: Column) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(.function("MIN", [column.sqlExpression]))
}

/// The sum, `NULL` without rows: `SUM("score")`.
public func sum<Root>(_ column: Column) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(.function("SUM", [column.sqlExpression]))
}

/// The sum as a real number, 0.0 without rows: `TOTAL("score")`
/// (`CAST(COALESCE(SUM("score"), 0) AS DOUBLE PRECISION)` on PostgreSQL).
public func total<Root>(_ column: Column) -> QueryExpression<Root, Double> {
    QueryExpression(.function("TOTAL", [column.sqlExpression]))
}

/// The average, `nil` without rows: `AVG("score")`.
public func average<Root>(_ column: Column) -> QueryExpression<Root, Double?> {
    QueryExpression(.function("AVG", [column.sqlExpression]))
}
