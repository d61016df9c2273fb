// Everyday SQL functions of the query interface: CAST, text concatenation,
// trim, substr, replace and instr, on key paths, expressions and `Column`s.
//
// Each writes the same SQL on SQLite and PostgreSQL, except where the
// dialect needs its own spelling, which SQLGenerationContext writes:
// `instr` is `strpos` on PostgreSQL, and CAST's type is the dialect's
// (`INTEGER` is `BIGINT` on PostgreSQL, `REAL` `DOUBLE PRECISION`, `BLOB`
// `BYTEA`: SQLDialect.columnTypeSQL(_:)).

// MARK: - CAST

/// The expression converted to `type`: `CAST(x AS TEXT)`
/// (<https://www.sqlite.org/lang_expr.html#castexpr>).
///
/// ```swift
/// Player.filter(cast(\.score, as: .text) == "10")     // CAST("score" AS TEXT) = ?
/// Player.select(cast(Column("score"), as: .real), as: Double.self)
/// ```
///
/// The type is written as the database spells it: `CAST("score" AS BIGINT)`
/// for ``DatabaseColumnType/integer`` on PostgreSQL. The result has no Swift
/// type; give it one with ``cast(_:as:to:)-(QueryExpression<Root,Value>,_,_)``.
public func cast<Root, Value>(_ expression: QueryExpression<Root, Value>, as type: DatabaseColumnType) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(castExpression(expression.sqlExpression, type))
}

/// The expression converted to `type`, typed as `Result`:
/// `cast(\.score, as: .text, to: String.self).hasPrefix("1")` is
/// `CAST("score" AS TEXT) GLOB ?`.
public func cast<Root, Value, Result>(
    _ expression: QueryExpression<Root, Value>, as type: DatabaseColumnType, to result: Result.Type
) -> QueryExpression<Root, Result> {
    QueryExpression(castExpression(expression.sqlExpression, type))
}

/// The column converted to `type`: `CAST("score" AS TEXT)`.
public func cast<Root: Decodable, Value>(_ keyPath: KeyPath<Root, Value>, as type: DatabaseColumnType) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(castExpression(.column(keyPath), type))
}

/// The column converted to `type`, typed as `Result`: `CAST("score" AS TEXT)`.
public func cast<Root: Decodable, Value, Result>(
    _ keyPath: KeyPath<Root, Value>, as type: DatabaseColumnType, to result: Result.Type
) -> QueryExpression<Root, Result> {
    QueryExpression(castExpression(.column(keyPath), type))
}

/// The ``Column`` converted to `type`: `CAST("score" AS REAL)`, as GRDB's
/// `cast(Column("score"), as: .real)`.
public func cast<Root>(_ column: Column, as type: DatabaseColumnType) -> QueryExpression<Root, DatabaseValue> {
    QueryExpression(castExpression(column.sqlExpression, type))
}

/// The ``Column`` converted to `type`, typed as `Result`.
public func cast<Root, Result>(_ column: Column, as type: DatabaseColumnType, to result: Result.Type) -> QueryExpression<Root, Result> {
    QueryExpression(castExpression(column.sqlExpression, type))
}

private func castExpression(_ expression: SQLExpression, _ type: DatabaseColumnType) -> SQLExpression {
    SQLExpression(.function(SQLExpression.castFunction, [expression, SQLExpression(.value(.text(type.rawValue)))], distinct: false))
}

// MARK: - Text functions

extension QueryExpression where Value: DatabaseTextValue {
    /// The text followed by `text`: SQL `||`.
    ///
    /// ```swift
    /// Player.filter { $0.firstName.appending(" ").appending($0.lastName) == "Arthur Dent" }
    /// // ("firstName" || ?) || "lastName" = ?
    /// ```
    ///
    /// `NULL` on either side gives `NULL`, on SQLite and PostgreSQL.
    public func appending(_ text: String) -> QueryExpression {
        QueryExpression(SQLExpression(.infix("||", sqlExpression, SQLExpression(.value(.text(text))))))
    }

    /// The text followed by another text expression: SQL `||`.
    public func appending(_ other: QueryExpression<Root, some DatabaseTextValue>) -> QueryExpression {
        QueryExpression(SQLExpression(.infix("||", sqlExpression, other.sqlExpression)))
    }
}

/// The text without leading and trailing spaces, or `characters`:
/// `trim("name")`, `trim("name", ?)`.
public func trim<Root, Value: DatabaseTextValue>(_ expression: QueryExpression<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("trim", expression.sqlExpression, characters))
}

/// The column's text without leading and trailing spaces, or `characters`: `trim("name")`.
public func trim<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("trim", .column(keyPath), characters))
}

/// The ``Column``'s text without leading and trailing spaces, or `characters`: `trim("name")`.
public func trim<Root>(_ column: Column, characters: String? = nil) -> QueryExpression<Root, String> {
    QueryExpression(trimExpression("trim", column.sqlExpression, characters))
}

/// The text without leading spaces, or `characters`: `ltrim("name")`, `ltrim("name", ?)`.
public func ltrim<Root, Value: DatabaseTextValue>(_ expression: QueryExpression<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("ltrim", expression.sqlExpression, characters))
}

/// The column's text without leading spaces, or `characters`: `ltrim("name")`.
public func ltrim<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("ltrim", .column(keyPath), characters))
}

/// The ``Column``'s text without leading spaces, or `characters`: `ltrim("name")`.
public func ltrim<Root>(_ column: Column, characters: String? = nil) -> QueryExpression<Root, String> {
    QueryExpression(trimExpression("ltrim", column.sqlExpression, characters))
}

/// The text without trailing spaces, or `characters`: `rtrim("name")`, `rtrim("name", ?)`.
public func rtrim<Root, Value: DatabaseTextValue>(_ expression: QueryExpression<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("rtrim", expression.sqlExpression, characters))
}

/// The column's text without trailing spaces, or `characters`: `rtrim("name")`.
public func rtrim<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>, characters: String? = nil) -> QueryExpression<Root, Value> {
    QueryExpression(trimExpression("rtrim", .column(keyPath), characters))
}

/// The ``Column``'s text without trailing spaces, or `characters`: `rtrim("name")`.
public func rtrim<Root>(_ column: Column, characters: String? = nil) -> QueryExpression<Root, String> {
    QueryExpression(trimExpression("rtrim", column.sqlExpression, characters))
}

private func trimExpression(_ name: String, _ text: SQLExpression, _ characters: String?) -> SQLExpression {
    var arguments = [text]
    if let characters { arguments.append(SQLExpression(.value(.text(characters)))) }
    return SQLExpression(.function(name, arguments, distinct: false))
}

/// The characters of the text from `start` (the first is 1), `length` of
/// them or all the rest: `substr("name", ?, ?)`.
///
/// ```swift
/// Player.filter(substr(\.name, 1, 3) == "Art")   // substr("name", ?, ?) = ?
/// ```
public func substr<Root, Value: DatabaseTextValue>(
    _ expression: QueryExpression<Root, Value>, _ start: Int, _ length: Int? = nil
) -> QueryExpression<Root, Value> {
    QueryExpression(substrExpression(expression.sqlExpression, start, length))
}

/// The characters of the column's text from `start` (the first is 1): `substr("name", ?, ?)`.
public func substr<Root: Decodable, Value: DatabaseTextValue>(
    _ keyPath: KeyPath<Root, Value>, _ start: Int, _ length: Int? = nil
) -> QueryExpression<Root, Value> {
    QueryExpression(substrExpression(.column(keyPath), start, length))
}

/// The characters of the ``Column``'s text from `start` (the first is 1): `substr("name", ?, ?)`.
public func substr<Root>(_ column: Column, _ start: Int, _ length: Int? = nil) -> QueryExpression<Root, String> {
    QueryExpression(substrExpression(column.sqlExpression, start, length))
}

private func substrExpression(_ text: SQLExpression, _ start: Int, _ length: Int?) -> SQLExpression {
    var arguments = [text, SQLExpression(.value(.integer(Int64(start))))]
    if let length { arguments.append(SQLExpression(.value(.integer(Int64(length))))) }
    return SQLExpression(.function("substr", arguments, distinct: false))
}

/// The text with every occurrence of `pattern` replaced by `replacement`
/// (case-sensitive, no wildcards): `replace("name", ?, ?)`.
public func replace<Root, Value: DatabaseTextValue>(
    _ expression: QueryExpression<Root, Value>, _ pattern: String, with replacement: String
) -> QueryExpression<Root, Value> {
    QueryExpression(.function("replace", [expression.sqlExpression, .value(.text(pattern)), .value(.text(replacement))]))
}

/// The column's text with every occurrence of `pattern` replaced: `replace("name", ?, ?)`.
public func replace<Root: Decodable, Value: DatabaseTextValue>(
    _ keyPath: KeyPath<Root, Value>, _ pattern: String, with replacement: String
) -> QueryExpression<Root, Value> {
    replace(QueryExpression(keyPath), pattern, with: replacement)
}

/// The position (from 1) of the first occurrence of `substring`, 0 when there
/// is none: `instr("name", ?)` (`strpos("name", $1)` on PostgreSQL).
public func instr<Root, Value: DatabaseTextValue>(_ expression: QueryExpression<Root, Value>, _ substring: String) -> QueryExpression<Root, Int> {
    QueryExpression(.function("instr", [expression.sqlExpression, .value(.text(substring))]))
}

/// The position (from 1) of `substring` in the column's text, 0 when there is none: `instr("name", ?)`.
public func instr<Root: Decodable, Value: DatabaseTextValue>(_ keyPath: KeyPath<Root, Value>, _ substring: String) -> QueryExpression<Root, Int> {
    instr(QueryExpression(keyPath), substring)
}
