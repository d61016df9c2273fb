// Operators of the query interface: comparisons, logic and arithmetic on key
// paths, expressions and values.
//
// Each operator comes in the same six forms, all delegating to one function:
// key path or expression on the left; value, key path or expression on the
// right. Both sides have the same Swift type, so `\.score > "ten"` does not
// compile. Values are bound, never written into the SQL.
//
// The mixed forms (a key path with an expression) are `@_disfavoredOverload`:
// they are the only ones that apply when they do, so this changes no meaning,
// and it lets the type checker try the others first — 16% less time on the
// slowest expressions of TypeCheckBudgetTests (Benchmarks/README.md,
// "Compile time").

// MARK: - Comparison

/// `\.column == value`: SQL `=`. Comparing with `nil` gives `IS NULL`.
public func == <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("=", .column(lhs), value: rhs)
}

/// `expression == value`: SQL `=`. Comparing with `nil` gives `IS NULL`.
public func == <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("=", lhs.sqlExpression, value: rhs)
}

/// `\.column == \.other`: SQL `=` between two columns.
public func == <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("=", .column(lhs), .column(rhs))
}

/// `expression == expression`: SQL `=`.
public func == <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("=", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column == expression`: SQL `=`.
@_disfavoredOverload
public func == <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("=", .column(lhs), rhs.sqlExpression)
}

/// `expression == \.column`: SQL `=`.
@_disfavoredOverload
public func == <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("=", lhs.sqlExpression, .column(rhs))
}

/// `\.column != value`: SQL `<>`. Comparing with `nil` gives `IS NOT NULL`.
public func != <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<>", .column(lhs), value: rhs)
}

/// `expression != value`: SQL `<>`. Comparing with `nil` gives `IS NOT NULL`.
public func != <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<>", lhs.sqlExpression, value: rhs)
}

/// `\.column != \.other`: SQL `<>` between two columns.
public func != <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<>", .column(lhs), .column(rhs))
}

/// `expression != expression`: SQL `<>`.
public func != <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<>", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column != expression`: SQL `<>`.
@_disfavoredOverload
public func != <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<>", .column(lhs), rhs.sqlExpression)
}

/// `expression != \.column`: SQL `<>`.
@_disfavoredOverload
public func != <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<>", lhs.sqlExpression, .column(rhs))
}

/// `\.column < value`: SQL `<`.
public func < <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<", .column(lhs), value: rhs)
}

/// `expression < value`: SQL `<`.
public func < <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<", lhs.sqlExpression, value: rhs)
}

/// `\.column < \.other`: SQL `<` between two columns.
public func < <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<", .column(lhs), .column(rhs))
}

/// `expression < expression`: SQL `<`.
public func < <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column < expression`: SQL `<`.
@_disfavoredOverload
public func < <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<", .column(lhs), rhs.sqlExpression)
}

/// `expression < \.column`: SQL `<`.
@_disfavoredOverload
public func < <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<", lhs.sqlExpression, .column(rhs))
}

/// `\.column <= value`: SQL `<=`.
public func <= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<=", .column(lhs), value: rhs)
}

/// `expression <= value`: SQL `<=`.
public func <= <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison("<=", lhs.sqlExpression, value: rhs)
}

/// `\.column <= \.other`: SQL `<=` between two columns.
public func <= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<=", .column(lhs), .column(rhs))
}

/// `expression <= expression`: SQL `<=`.
public func <= <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<=", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column <= expression`: SQL `<=`.
@_disfavoredOverload
public func <= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<=", .column(lhs), rhs.sqlExpression)
}

/// `expression <= \.column`: SQL `<=`.
@_disfavoredOverload
public func <= <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison("<=", lhs.sqlExpression, .column(rhs))
}

/// `\.column > value`: SQL `>`.
public func > <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison(">", .column(lhs), value: rhs)
}

/// `expression > value`: SQL `>`.
public func > <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison(">", lhs.sqlExpression, value: rhs)
}

/// `\.column > \.other`: SQL `>` between two columns.
public func > <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">", .column(lhs), .column(rhs))
}

/// `expression > expression`: SQL `>`.
public func > <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column > expression`: SQL `>`.
@_disfavoredOverload
public func > <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">", .column(lhs), rhs.sqlExpression)
}

/// `expression > \.column`: SQL `>`.
@_disfavoredOverload
public func > <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">", lhs.sqlExpression, .column(rhs))
}

/// `\.column >= value`: SQL `>=`.
public func >= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison(">=", .column(lhs), value: rhs)
}

/// `expression >= value`: SQL `>=`.
public func >= <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Bool> {
    comparison(">=", lhs.sqlExpression, value: rhs)
}

/// `\.column >= \.other`: SQL `>=` between two columns.
public func >= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">=", .column(lhs), .column(rhs))
}

/// `expression >= expression`: SQL `>=`.
public func >= <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">=", lhs.sqlExpression, rhs.sqlExpression)
}

/// `\.column >= expression`: SQL `>=`.
@_disfavoredOverload
public func >= <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">=", .column(lhs), rhs.sqlExpression)
}

/// `expression >= \.column`: SQL `>=`.
@_disfavoredOverload
public func >= <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Bool> {
    comparison(">=", lhs.sqlExpression, .column(rhs))
}

/// A comparison with a value, bound in the format the record `Root` stores
/// it (its date and UUID strategies, the column's JSON encoder).
private func comparison<Root, Value>(_ op: String, _ lhs: SQLExpression, value: Value) -> QueryExpression<Root, Bool> {
    comparison(op, lhs, .bound(value, in: Root.self, near: lhs))
}

/// One comparison, with `= NULL` and `<> NULL` turned into `IS NULL` and `IS NOT NULL`.
private func comparison<Root>(_ op: String, _ lhs: SQLExpression, _ rhs: SQLExpression) -> QueryExpression<Root, Bool> {
    if rhs.isNullValue && (op == "=" || op == "<>") {
        return QueryExpression(SQLExpression(.postfix(lhs, op == "=" ? "IS NULL" : "IS NOT NULL")))
    }
    return QueryExpression(SQLExpression(.infix(op, lhs, rhs)))
}

// MARK: - Logic

/// Both conditions: SQL `AND`.
public func && <Root>(lhs: QueryExpression<Root, Bool>, rhs: QueryExpression<Root, Bool>) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("AND", lhs.sqlExpression, rhs.sqlExpression)))
}

/// Either condition: SQL `OR`.
public func || <Root>(lhs: QueryExpression<Root, Bool>, rhs: QueryExpression<Root, Bool>) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.infix("OR", lhs.sqlExpression, rhs.sqlExpression)))
}

/// The opposite condition: SQL `NOT`.
public prefix func ! <Root>(operand: QueryExpression<Root, Bool>) -> QueryExpression<Root, Bool> {
    QueryExpression(SQLExpression(.prefix("NOT ", operand.sqlExpression)))
}

/// A Boolean column and a condition: SQL `AND`.
@_disfavoredOverload
public func && <Root: Decodable>(lhs: KeyPath<Root, Bool>, rhs: QueryExpression<Root, Bool>) -> QueryExpression<Root, Bool> {
    QueryExpression(lhs) && rhs
}

/// A condition and a Boolean column: SQL `AND`.
@_disfavoredOverload
public func && <Root: Decodable>(lhs: QueryExpression<Root, Bool>, rhs: KeyPath<Root, Bool>) -> QueryExpression<Root, Bool> {
    lhs && QueryExpression(rhs)
}

/// A Boolean column or a condition: SQL `OR`.
@_disfavoredOverload
public func || <Root: Decodable>(lhs: KeyPath<Root, Bool>, rhs: QueryExpression<Root, Bool>) -> QueryExpression<Root, Bool> {
    QueryExpression(lhs) || rhs
}

/// A condition or a Boolean column: SQL `OR`.
@_disfavoredOverload
public func || <Root: Decodable>(lhs: QueryExpression<Root, Bool>, rhs: KeyPath<Root, Bool>) -> QueryExpression<Root, Bool> {
    lhs || QueryExpression(rhs)
}

/// The opposite of a Boolean column: SQL `NOT`.
public prefix func ! <Root: Decodable>(operand: KeyPath<Root, Bool>) -> QueryExpression<Root, Bool> {
    !QueryExpression(operand)
}

// MARK: - Arithmetic

/// The sum of a column and a value: SQL `+`.
public func + <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("+", .column(lhs), value: rhs)
}

/// The sum of an expression and a value: SQL `+`.
public func + <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, value: rhs)
}

/// The sum of two columns: SQL `+`.
public func + <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("+", .column(lhs), .column(rhs))
}

/// The sum of two expressions: SQL `+`.
public func + <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, rhs.sqlExpression)
}

/// The sum of a column and an expression: SQL `+`.
@_disfavoredOverload
public func + <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("+", .column(lhs), rhs.sqlExpression)
}

/// The sum of an expression and a column: SQL `+`.
@_disfavoredOverload
public func + <Root: Decodable, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("+", lhs.sqlExpression, .column(rhs))
}

/// The difference of a column and a value: SQL `-`.
public func - <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("-", .column(lhs), value: rhs)
}

/// The difference of an expression and a value: SQL `-`.
public func - <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, value: rhs)
}

/// The difference of two columns: SQL `-`.
public func - <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("-", .column(lhs), .column(rhs))
}

/// The difference of two expressions: SQL `-`.
public func - <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, rhs.sqlExpression)
}

/// The difference of a column and an expression: SQL `-`.
@_disfavoredOverload
public func - <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("-", .column(lhs), rhs.sqlExpression)
}

/// The difference of an expression and a column: SQL `-`.
@_disfavoredOverload
public func - <Root: Decodable, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("-", lhs.sqlExpression, .column(rhs))
}

/// The product of a column and a value: SQL `*`.
public func * <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("*", .column(lhs), value: rhs)
}

/// The product of an expression and a value: SQL `*`.
public func * <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, value: rhs)
}

/// The product of two columns: SQL `*`.
public func * <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("*", .column(lhs), .column(rhs))
}

/// The product of two expressions: SQL `*`.
public func * <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, rhs.sqlExpression)
}

/// The product of a column and an expression: SQL `*`.
@_disfavoredOverload
public func * <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("*", .column(lhs), rhs.sqlExpression)
}

/// The product of an expression and a column: SQL `*`.
@_disfavoredOverload
public func * <Root: Decodable, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("*", lhs.sqlExpression, .column(rhs))
}

/// The quotient of a column and a value: SQL `/`.
public func / <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("/", .column(lhs), value: rhs)
}

/// The quotient of an expression and a value: SQL `/`.
public func / <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, value: rhs)
}

/// The quotient of two columns: SQL `/`.
public func / <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("/", .column(lhs), .column(rhs))
}

/// The quotient of two expressions: SQL `/`.
public func / <Root, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, rhs.sqlExpression)
}

/// The quotient of a column and an expression: SQL `/`.
@_disfavoredOverload
public func / <Root: Decodable, Value: Numeric>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("/", .column(lhs), rhs.sqlExpression)
}

/// The quotient of an expression and a column: SQL `/`.
@_disfavoredOverload
public func / <Root: Decodable, Value: Numeric>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("/", lhs.sqlExpression, .column(rhs))
}

/// `lhs op value`, the value bound in the format of the record `Root`.
func arithmetic<Root, Value>(_ op: String, _ lhs: SQLExpression, value: Value) -> QueryExpression<Root, Value> {
    arithmetic(op, lhs, .bound(value, in: Root.self, near: lhs))
}

/// `lhs op rhs`, typed `Value`: the binary operators of the query interface
/// (arithmetic here, and those of Column+Expressions.swift and
/// QueryExpression+IntegerOperators.swift).
func arithmetic<Root, Value>(_ op: String, _ lhs: SQLExpression, _ rhs: SQLExpression) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.infix(op, lhs, rhs)))
}

/// The negated value: SQL unary `-`.
public prefix func - <Root: Decodable, Value: SignedNumeric>(operand: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("-", .column(operand))))
}

/// The negated value: SQL unary `-`.
public prefix func - <Root, Value: SignedNumeric>(operand: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("-", operand.sqlExpression)))
}

// MARK: - Coalescing

/// The column's value, or `defaultValue` when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: KeyPath<Root, Value?>, rhs: Value) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [.column(lhs), .bound(rhs, in: Root.self, near: .column(lhs))]))
}

/// The first column's value, or the second's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: KeyPath<Root, Value?>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [.column(lhs), .column(rhs)]))
}

/// The expression's value, or `defaultValue` when it is `NULL`: SQL `IFNULL`.
public func ?? <Root, Value>(lhs: QueryExpression<Root, Value?>, rhs: Value) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, .bound(rhs, in: Root.self, near: lhs.sqlExpression)]))
}

/// The first expression's value, or the second's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root, Value>(lhs: QueryExpression<Root, Value?>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression]))
}

// Between two columns or expressions of the same type, optional or not, the
// query interface's `??` must win over the standard library's, which would
// otherwise compile (with a mere warning) by wrapping the left key path or
// expression in an Optional and return it unchanged, dropping the right side:
// `(\.age ?? \.fallbackAge) > 18` would filter on "age" alone. These exact
// matches rank above the standard library's optional promotion.

/// The first column's value, or the second's when it is `NULL`: SQL `IFNULL`.
/// The result is optional when both columns are.
public func ?? <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [.column(lhs), .column(rhs)]))
}

/// The expression's value, or the other's when it is `NULL`: SQL `IFNULL`.
/// The result is optional when both expressions are.
public func ?? <Root, Value>(lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, rhs.sqlExpression]))
}

/// The column's value, or the expression's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: KeyPath<Root, Value>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [.column(lhs), rhs.sqlExpression]))
}

/// The expression's value, or the column's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: QueryExpression<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, .column(rhs)]))
}

/// The optional column's value, or the expression's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: KeyPath<Root, Value?>, rhs: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [.column(lhs), rhs.sqlExpression]))
}

/// The optional expression's value, or the column's when it is `NULL`: SQL `IFNULL`.
public func ?? <Root: Decodable, Value>(lhs: QueryExpression<Root, Value?>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(.function("IFNULL", [lhs.sqlExpression, .column(rhs)]))
}
