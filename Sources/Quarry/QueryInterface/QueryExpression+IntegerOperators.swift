// Integer operators of the query interface: remainder (`%`) and the bitwise
// operators (`&`, `|`, `<<`, `>>`, `~`), on integer key paths, expressions
// and GRDB-style `Column`s. They write the same SQL on SQLite and PostgreSQL.
//
// Forms: key path or expression on the left; value, key path or expression
// of the same type on the right; and a `Column` with a value (disfavored, like
// the other `Column` operators). The budget expressions of
// TypeCheckBudgetTests use none of these operators.

// MARK: - remainder

/// The remainder of the integer division: SQL `%`, as in `\.score % 2 == 0`.
public func % <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("%", .column(lhs), value: rhs)
}

/// The remainder of the integer division, of an expression and a value: SQL `%`.
public func % <Root, Value: BinaryInteger>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("%", lhs.sqlExpression, value: rhs)
}

/// The remainder of the integer division, of two columns: SQL `%`.
public func % <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("%", .column(lhs), .column(rhs))
}

/// The remainder of the integer division, of two expressions: SQL `%`.
public func % <Root, Value: BinaryInteger>(
    lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    arithmetic("%", lhs.sqlExpression, rhs.sqlExpression)
}

/// The remainder of the integer division, of a ``Column`` and a value: SQL `%`, as in `Column("flags") % 2`.
@_disfavoredOverload
public func % <Root, Value: BinaryInteger>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("%", lhs.sqlExpression, value: rhs)
}

// MARK: - bitwise AND

/// The bits set in both: SQL `&`, as in `\.flags & 4 != 0`.
public func & <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("&", .column(lhs), value: rhs)
}

/// The bits set in both, of an expression and a value: SQL `&`.
public func & <Root, Value: BinaryInteger>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("&", lhs.sqlExpression, value: rhs)
}

/// The bits set in both, of two columns: SQL `&`.
public func & <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("&", .column(lhs), .column(rhs))
}

/// The bits set in both, of two expressions: SQL `&`.
public func & <Root, Value: BinaryInteger>(
    lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    arithmetic("&", lhs.sqlExpression, rhs.sqlExpression)
}

/// The bits set in both, of a ``Column`` and a value: SQL `&`, as in `Column("flags") & 2`.
@_disfavoredOverload
public func & <Root, Value: BinaryInteger>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("&", lhs.sqlExpression, value: rhs)
}

// MARK: - bitwise OR

/// The bits set in either: SQL `|`, as in `\.flags | 4`.
public func | <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("|", .column(lhs), value: rhs)
}

/// The bits set in either, of an expression and a value: SQL `|`.
public func | <Root, Value: BinaryInteger>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("|", lhs.sqlExpression, value: rhs)
}

/// The bits set in either, of two columns: SQL `|`.
public func | <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("|", .column(lhs), .column(rhs))
}

/// The bits set in either, of two expressions: SQL `|`.
public func | <Root, Value: BinaryInteger>(
    lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    arithmetic("|", lhs.sqlExpression, rhs.sqlExpression)
}

/// The bits set in either, of a ``Column`` and a value: SQL `|`, as in `Column("flags") | 2`.
@_disfavoredOverload
public func | <Root, Value: BinaryInteger>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("|", lhs.sqlExpression, value: rhs)
}

// MARK: - left shift

/// The bits shifted left: SQL `<<`, as in `\.flags << 2`.
public func << <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("<<", .column(lhs), value: rhs)
}

/// The bits shifted left, of an expression and a value: SQL `<<`.
public func << <Root, Value: BinaryInteger>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("<<", lhs.sqlExpression, value: rhs)
}

/// The bits shifted left, of two columns: SQL `<<`.
public func << <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic("<<", .column(lhs), .column(rhs))
}

/// The bits shifted left, of two expressions: SQL `<<`.
public func << <Root, Value: BinaryInteger>(
    lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    arithmetic("<<", lhs.sqlExpression, rhs.sqlExpression)
}

/// The bits shifted left, of a ``Column`` and a value: SQL `<<`, as in `Column("flags") << 2`.
@_disfavoredOverload
public func << <Root, Value: BinaryInteger>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic("<<", lhs.sqlExpression, value: rhs)
}

// MARK: - right shift

/// The bits shifted right: SQL `>>`, as in `\.flags >> 2`.
public func >> <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic(">>", .column(lhs), value: rhs)
}

/// The bits shifted right, of an expression and a value: SQL `>>`.
public func >> <Root, Value: BinaryInteger>(lhs: QueryExpression<Root, Value>, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic(">>", lhs.sqlExpression, value: rhs)
}

/// The bits shifted right, of two columns: SQL `>>`.
public func >> <Root: Decodable, Value: BinaryInteger>(lhs: KeyPath<Root, Value>, rhs: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    arithmetic(">>", .column(lhs), .column(rhs))
}

/// The bits shifted right, of two expressions: SQL `>>`.
public func >> <Root, Value: BinaryInteger>(
    lhs: QueryExpression<Root, Value>, rhs: QueryExpression<Root, Value>
) -> QueryExpression<Root, Value> {
    arithmetic(">>", lhs.sqlExpression, rhs.sqlExpression)
}

/// The bits shifted right, of a ``Column`` and a value: SQL `>>`, as in `Column("flags") >> 2`.
@_disfavoredOverload
public func >> <Root, Value: BinaryInteger>(lhs: Column, rhs: Value) -> QueryExpression<Root, Value> {
    arithmetic(">>", lhs.sqlExpression, value: rhs)
}

// MARK: - Bitwise NOT

/// The bits inverted: SQL `~`, as in `~\.flags`.
public prefix func ~ <Root: Decodable, Value: BinaryInteger>(operand: KeyPath<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("~", .column(operand))))
}

/// The bits of an expression inverted: SQL `~`.
public prefix func ~ <Root, Value: BinaryInteger>(operand: QueryExpression<Root, Value>) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("~", operand.sqlExpression)))
}

/// The bits of a ``Column`` inverted: SQL `~`, typed by what it is compared with.
@_disfavoredOverload
public prefix func ~ <Root, Value: BinaryInteger>(operand: Column) -> QueryExpression<Root, Value> {
    QueryExpression(SQLExpression(.prefix("~", operand.sqlExpression)))
}

