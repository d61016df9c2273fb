// SQLite's date and time functions in the query interface, as free functions
// that take key paths, expressions or values: date(\.createdAt),
// dateTime(\.createdAt, .day(-7)), strftime("%Y-%m", \.createdAt).
//
// A Date column is read the way its record stores it: the functions add the
// 'unixepoch' modifier for dates stored as seconds since 1970, and divide by
// 1000.0 first for milliseconds, so that each function gives the same result
// under every DatabaseDateEncodingStrategy. Modifiers and formats are always
// bound as statement arguments.
//
// On PostgreSQL, SQLGenerationContext writes the same calls with to_char,
// extract, make_interval and date_trunc instead
// (QuarryPostgres/PostgreSQLDialect+DateFunctions.swift).
//
// See https://www.sqlite.org/lang_datefunc.html.

import Foundation

// MARK: - date()

/// The date as text, `YYYY-MM-DD`: SQL `date()`.
///
/// ```swift
/// Order.select(date(\.createdAt), count(\.id)).group(date(\.createdAt))
/// // SELECT date("createdAt"), COUNT("id") FROM "order" GROUP BY date("createdAt")
/// Order.filter(date(\.createdAt, .startOfMonth) == "2024-05-01")
/// // SELECT * FROM "order" WHERE date("createdAt", ?) = ?
/// ```
///
/// A `Date` property is read in the format its record stores it in: for
/// dates stored as seconds since 1970 the SQL is `date("createdAt", ?)` with
/// the argument `'unixepoch'`, and for milliseconds
/// `date("createdAt" / 1000.0, ?)`.
///
/// The result is `nil` when the column is `NULL`, or holds a value SQLite
/// does not read as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD')`, where `t` is the
/// time value as a `TIMESTAMPTZ`, in UTC like every PostgreSQL connection:
/// `CAST(x AS TIMESTAMPTZ)` for text and `TIMESTAMPTZ` columns,
/// `to_timestamp(x)` for seconds since 1970, `to_timestamp(x / 1000.0)`
/// for milliseconds, and `to_timestamp((x - 2440587.5) * 86400.0)` for a
/// Julian day given as a number. The modifiers are written as
/// ``SQLDateModifier`` says. Text that PostgreSQL does not read as a date
/// makes the statement throw there, instead of giving `nil`.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - keyPath: the property whose column holds the time value: a `Date`, or
///     text or a number that SQLite reads as a date.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func date<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("date", .column(keyPath), Value.self, modifiers)
}

/// The date of an expression as text, `YYYY-MM-DD`: SQL `date()`.
///
/// ```swift
/// Order.select { date($0.createdAt, .day(1)) }
/// // SELECT date("createdAt", ?) FROM "order"
/// Order.select(date(max(\.createdAt)))
/// // SELECT date(MAX("createdAt")) FROM "order"
/// ```
///
/// An expression of type `Date` or `Date?` is read in the format `Root`
/// stores dates in, like a key path. The result is `nil` when SQLite does
/// not read the value as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD')`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func date<Root, Value>(
    _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("date", expression.sqlExpression, Value.self, modifiers)
}

/// The date of a value as text, `YYYY-MM-DD`: SQL `date(?)`.
///
/// ```swift
/// Order.filter(date(\.createdAt) == date("now", .day(-1)))
/// // SELECT * FROM "order" WHERE date("createdAt") = date(?, ?)
/// ```
///
/// The value is bound as an argument: a `Date` in the format `Root` stores
/// dates in (and read back with the matching modifiers), text such as
/// `"now"` or `"2024-05-01 12:00:00"`, or a number (a Julian day, or Unix
/// time with ``SQLDateModifier/unixEpoch``). The result is `nil` when SQLite
/// does not read the value as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD')`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func date<Root, Value: DatabaseValueConvertible>(
    _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("date", .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - time()

/// The time of day as text, `HH:MM:SS`: SQL `time()`.
///
/// ```swift
/// Order.select(time(\.createdAt, .hour(2)))
/// // SELECT time("createdAt", ?) FROM "order"   -- '2 hours'
/// ```
///
/// A `Date` property is read in the format its record stores it in (as with
/// `date(_:_:)`). The result is `nil` when the
/// column is `NULL` or not a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'HH24:MI:SS')`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - keyPath: the property whose column holds the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func time<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("time", .column(keyPath), Value.self, modifiers)
}

/// The time of day of an expression as text, `HH:MM:SS`: SQL `time()`.
///
/// ```swift
/// Order.select { time($0.createdAt) }   // SELECT time("createdAt") FROM "order"
/// ```
///
/// An expression of type `Date` or `Date?` is read in the format `Root`
/// stores dates in. The result is `nil` when SQLite does not read the value
/// as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'HH24:MI:SS')`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func time<Root, Value>(
    _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("time", expression.sqlExpression, Value.self, modifiers)
}

/// The time of day of a value as text, `HH:MM:SS`: SQL `time(?)`.
///
/// ```swift
/// Order.select(time("now", .localTime))   // SELECT time(?, ?) FROM "order"
/// ```
///
/// The value is bound as an argument, a `Date` in the format `Root` stores
/// dates in. The result is `nil` when SQLite does not read the value as a
/// date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'HH24:MI:SS')`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func time<Root, Value: DatabaseValueConvertible>(
    _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("time", .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - datetime()

/// The date and time as text, `YYYY-MM-DD HH:MM:SS`: SQL `datetime()`.
///
/// ```swift
/// Order.filter(dateTime(\.createdAt) > dateTime(lastOrderDate, .day(-7)))
/// // SELECT * FROM "order" WHERE datetime("createdAt") > datetime(?, ?)
/// ```
///
/// Comparing `dateTime(…)` on both sides compares the same text format
/// whatever the strategy: a `Date` is bound and read in the format of
/// `Root`, and the stored text of another application (`'2024-05-01
/// 12:00:00'`, without milliseconds) compares as it should.
///
/// A `Date` property is read in the format its record stores it in (as with
/// `date(_:_:)`). The result is `nil` when the
/// column is `NULL` or not a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD HH24:MI:SS')`, where
/// `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - keyPath: the property whose column holds the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func dateTime<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("datetime", .column(keyPath), Value.self, modifiers)
}

/// The date and time of an expression as text, `YYYY-MM-DD HH:MM:SS`: SQL
/// `datetime()`.
///
/// ```swift
/// Order.select { dateTime($0.createdAt, .startOfDay) }
/// // SELECT datetime("createdAt", ?) FROM "order"
/// ```
///
/// An expression of type `Date` or `Date?` is read in the format `Root`
/// stores dates in. The result is `nil` when SQLite does not read the value
/// as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD HH24:MI:SS')`, where
/// `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func dateTime<Root, Value>(
    _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("datetime", expression.sqlExpression, Value.self, modifiers)
}

/// The date and time of a value as text, `YYYY-MM-DD HH:MM:SS`: SQL
/// `datetime(?)`.
///
/// ```swift
/// Order.filter(dateTime(\.createdAt) >= dateTime("now", .day(-7)))
/// // SELECT * FROM "order" WHERE datetime("createdAt") >= datetime(?, ?)
/// ```
///
/// The value is bound as an argument, a `Date` in the format `Root` stores
/// dates in. The result is `nil` when SQLite does not read the value as a
/// date.
///
/// On PostgreSQL, Quarry writes `to_char(t, 'YYYY-MM-DD HH24:MI:SS')`, where
/// `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func dateTime<Root, Value: DatabaseValueConvertible>(
    _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("datetime", .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - julianday()

/// The Julian day, the number of days since noon in Greenwich on November
/// 24, 4714 B.C.: SQL `julianday()`.
///
/// ```swift
/// Order.filter(julianDay(\.createdAt) >= julianDay("now", .day(-30)))
/// // SELECT * FROM "order" WHERE julianday("createdAt") >= julianday(?, ?)
/// ```
///
/// A `Date` property is read in the format its record stores it in (as with
/// `date(_:_:)`). The result is `nil` when the
/// column is `NULL` or not a date.
///
/// On PostgreSQL, Quarry writes `CAST(round(extract(epoch FROM t) * 1000)
/// + 210866760000000 AS DOUBLE PRECISION) / 86400000.0`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`): whole milliseconds, as
/// SQLite counts them, so that both give the same `Double`.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - keyPath: the property whose column holds the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Double?`.
public func julianDay<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Double?> {
    dateFunction("julianday", .column(keyPath), Value.self, modifiers)
}

/// The Julian day of an expression: SQL `julianday()`.
///
/// ```swift
/// Order.order { [julianDay($0.createdAt).desc] }
/// // SELECT * FROM "order" ORDER BY julianday("createdAt") DESC
/// ```
///
/// An expression of type `Date` or `Date?` is read in the format `Root`
/// stores dates in. The result is `nil` when SQLite does not read the value
/// as a date.
///
/// On PostgreSQL, Quarry writes `CAST(round(extract(epoch FROM t) * 1000)
/// + 210866760000000 AS DOUBLE PRECISION) / 86400000.0`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`): whole milliseconds, as
/// SQLite counts them, so that both give the same `Double`.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Double?`.
public func julianDay<Root, Value>(
    _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Double?> {
    dateFunction("julianday", expression.sqlExpression, Value.self, modifiers)
}

/// The Julian day of a value: SQL `julianday(?)`.
///
/// ```swift
/// Order.filter(julianDay(\.createdAt) < julianDay(deadline))
/// // SELECT * FROM "order" WHERE julianday("createdAt") < julianday(?)
/// ```
///
/// The value is bound as an argument, a `Date` in the format `Root` stores
/// dates in. The result is `nil` when SQLite does not read the value as a
/// date.
///
/// On PostgreSQL, Quarry writes `CAST(round(extract(epoch FROM t) * 1000)
/// + 210866760000000 AS DOUBLE PRECISION) / 86400000.0`, where `t` is the
/// time value as a `TIMESTAMPTZ` (see `date(_:_:)`): whole milliseconds, as
/// SQLite counts them, so that both give the same `Double`.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Double?`.
public func julianDay<Root, Value: DatabaseValueConvertible>(
    _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Double?> {
    dateFunction("julianday", .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - strftime()

/// The date formatted as text: SQL `strftime()`.
///
/// ```swift
/// let month = strftime("%Y-%m", \Order.createdAt)
/// Order.select(month, count(\.id)).group(month)
/// // SELECT strftime(?, "createdAt"), COUNT("id") FROM "order" GROUP BY strftime(?, "createdAt")
/// ```
///
/// The format is bound as an argument, never written into the SQL text. Its
/// substitutions are SQLite's, not those of C's `strftime`: `%d`, `%f`
/// (seconds with milliseconds), `%H`, `%j`, `%J`, `%m`, `%M`, `%s`, `%S`,
/// `%w`, `%W`, `%Y` and `%%`.
///
/// A `Date` property is read in the format its record stores it in (as with
/// `date(_:_:)`). The result is `nil` when the
/// column is `NULL` or not a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, ?)`, where `t` is the time
/// value as a `TIMESTAMPTZ` (see `date(_:_:)`) and the format becomes a
/// bound `to_char` template, the text between substitutions quoted in it;
/// `%w`, `%W` and `%s`, which `to_char` does not write, are computed with
/// `extract` and joined with `||`. `%J`, and substitutions not listed above,
/// throw there.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - format: the format.
///   - keyPath: the property whose column holds the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func strftime<Root: Decodable, Value>(
    _ format: String, _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("strftime", format: format, .column(keyPath), Value.self, modifiers)
}

/// An expression's date formatted as text: SQL `strftime()`.
///
/// ```swift
/// Order.filter { strftime("%w", $0.createdAt) == "0" }   // orders of a Sunday
/// // SELECT * FROM "order" WHERE strftime(?, "createdAt") = ?
/// ```
///
/// The format is bound as an argument. An expression of type `Date` or
/// `Date?` is read in the format `Root` stores dates in. The result is `nil`
/// when SQLite does not read the value as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, ?)`, where `t` is the time
/// value as a `TIMESTAMPTZ` (see `date(_:_:)`) and the format becomes a
/// bound `to_char` template, the text between substitutions quoted in it;
/// `%w`, `%W` and `%s`, which `to_char` does not write, are computed with
/// `extract` and joined with `||`. `%J`, and substitutions not listed above,
/// throw there.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - format: the format.
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func strftime<Root, Value>(
    _ format: String, _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("strftime", format: format, expression.sqlExpression, Value.self, modifiers)
}

/// A value's date formatted as text: SQL `strftime(?, ?)`.
///
/// ```swift
/// Order.filter(strftime("%Y", \.createdAt) == strftime("%Y", "now"))
/// // SELECT * FROM "order" WHERE strftime(?, "createdAt") = strftime(?, ?)
/// ```
///
/// The format and the value are bound as arguments, a `Date` in the format
/// `Root` stores dates in. The result is `nil` when SQLite does not read the
/// value as a date.
///
/// On PostgreSQL, Quarry writes `to_char(t, ?)`, where `t` is the time
/// value as a `TIMESTAMPTZ` (see `date(_:_:)`) and the format becomes a
/// bound `to_char` template, the text between substitutions quoted in it;
/// `%w`, `%W` and `%s`, which `to_char` does not write, are computed with
/// `extract` and joined with `||`. `%J`, and substitutions not listed above,
/// throw there.
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - format: the format.
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `String?`.
public func strftime<Root, Value: DatabaseValueConvertible>(
    _ format: String, _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, String?> {
    dateFunction("strftime", format: format, .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - unixepoch()

/// The number of whole seconds since 1970-01-01 00:00:00 UTC: SQL
/// `unixepoch()` (SQLite 3.38 and later).
///
/// ```swift
/// Order.select(unixEpoch(\.createdAt))   // SELECT unixepoch("createdAt") FROM "order"
/// ```
///
/// A `Date` property is read in the format its record stores it in (as with
/// `date(_:_:)`); the fraction of a second is
/// dropped. The result is `nil` when the column is `NULL` or not a date.
///
/// On PostgreSQL, Quarry writes `CAST(floor(extract(epoch FROM t)) AS BIGINT)`,
/// where `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - keyPath: the property whose column holds the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Int?`.
public func unixEpoch<Root: Decodable, Value>(
    _ keyPath: KeyPath<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Int?> {
    dateFunction("unixepoch", .column(keyPath), Value.self, modifiers)
}

/// The number of whole seconds since 1970 of an expression: SQL
/// `unixepoch()` (SQLite 3.38 and later).
///
/// ```swift
/// Order.select { unixEpoch($0.createdAt, .startOfDay) }
/// // SELECT unixepoch("createdAt", ?) FROM "order"
/// ```
///
/// An expression of type `Date` or `Date?` is read in the format `Root`
/// stores dates in. The result is `nil` when SQLite does not read the value
/// as a date.
///
/// On PostgreSQL, Quarry writes `CAST(floor(extract(epoch FROM t)) AS BIGINT)`,
/// where `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - expression: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Int?`.
public func unixEpoch<Root, Value>(
    _ expression: QueryExpression<Root, Value>, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Int?> {
    dateFunction("unixepoch", expression.sqlExpression, Value.self, modifiers)
}

/// The number of whole seconds since 1970 of a value: SQL `unixepoch(?)`
/// (SQLite 3.38 and later).
///
/// ```swift
/// Order.filter(unixEpoch(\.createdAt) > unixEpoch("now", .hour(-1)))
/// // SELECT * FROM "order" WHERE unixepoch("createdAt") > unixepoch(?, ?)
/// ```
///
/// The value is bound as an argument, a `Date` in the format `Root` stores
/// dates in. The result is `nil` when SQLite does not read the value as a
/// date.
///
/// On PostgreSQL, Quarry writes `CAST(floor(extract(epoch FROM t)) AS BIGINT)`,
/// where `t` is the time value as a `TIMESTAMPTZ` (see `date(_:_:)`).
///
/// See <https://www.sqlite.org/lang_datefunc.html>.
///
/// - parameters:
///   - value: the time value.
///   - modifiers: the modifiers, applied left to right.
/// - returns: An expression of type `Int?`.
public func unixEpoch<Root, Value: DatabaseValueConvertible>(
    _ value: Value, _ modifiers: SQLDateModifier...
) -> QueryExpression<Root, Int?> {
    dateFunction("unixepoch", .bound(value, in: Root.self), Value.self, modifiers)
}

// MARK: - Time values

/// A call to the date function `name`: `name([format,] timeValue..., modifiers...)`,
/// everything but the time value bound as arguments.
private func dateFunction<Root, Value, Result>(
    _ name: String, format: String? = nil, _ timeValue: SQLExpression, _ valueType: Value.Type, _ modifiers: [SQLDateModifier]
) -> QueryExpression<Root, Result> {
    var arguments: [SQLExpression] = []
    if let format { arguments.append(.value(.text(format))) }
    arguments += SQLExpression.timeValueArguments(timeValue, of: valueType, in: Root.self)
    arguments += modifiers.map { .value(.text($0.sqlText)) }
    return QueryExpression(.function(name, arguments))
}

extension SQLExpression {
    /// The arguments that make SQLite's date functions read `timeValue`, a
    /// value of Swift type `valueType` in a request on `Root`.
    ///
    /// A `Date` (or `Date?`) is in the format of `Root`'s date strategy
    /// (RecordValueFormat): text is read as it is, a number of seconds
    /// needs the `'unixepoch'` modifier (SQLite reads other numbers as Julian
    /// days), and a number of milliseconds is divided by 1000.0 first. Other
    /// values are read as they are.
    static func timeValueArguments<Root, Value>(
        _ timeValue: SQLExpression, of valueType: Value.Type, in root: Root.Type
    ) -> [SQLExpression] {
        guard valueType == Date.self || valueType == Date?.self else { return [timeValue] }
        switch RecordValueFormat.of(Root.self).dateEncoding {
        case .default, .iso8601:
            return [timeValue]
        case .secondsSince1970:
            return [timeValue, .value(.text(SQLDateModifier.unixEpoch.sqlText))]
        case .millisecondsSince1970:
            return [timeValue.millisecondsToSeconds, .value(.text(SQLDateModifier.unixEpoch.sqlText))]
        }
    }

    /// `x / 1000.0`, with `x` in parentheses unless it is a single term.
    private var millisecondsToSeconds: SQLExpression {
        var elements: [SQL.Element]
        switch node {
        case .column, .value, .function, .countAll, .subquery, .invalid:
            elements = [.expression(self)]
        default:
            elements = [.text("("), .expression(self), .text(")")]
        }
        elements.append(.text(" / 1000.0"))
        return SQLExpression(.interpolated(SQL(elements: elements)))
    }
}
