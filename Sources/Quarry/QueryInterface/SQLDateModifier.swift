// SQLDateModifier: the modifiers of the date and time functions of the
// query interface (QueryExpression+DateFunctions.swift), bound as statement
// arguments in SQLite's spelling, and written as interval arithmetic on
// PostgreSQL (QuarryPostgres/PostgreSQLDialect+DateFunctions.swift).
//
// See https://www.sqlite.org/lang_datefunc.html#modifiers.

/// A modifier of SQLite's date and time functions: it shifts the date, or
/// changes how the time value is read.
///
/// ```swift
/// dateTime(\Order.createdAt, .day(-7), .startOfDay)
/// // datetime("createdAt", ?, ?) with the arguments '-7 days', 'start of day'
/// ```
///
/// Modifiers apply left to right. Each one is bound as a statement argument,
/// in SQLite's spelling (`.day(-7)` is `'-7 days'`), never written into the
/// SQL text. A modifier SQLite refuses (`.weekday(7)`, `.second(.nan)`) makes
/// the function return `NULL`.
///
/// On PostgreSQL, each modifier is an operation on the time value `t`, its
/// number bound: `.day(-7)` is `t + make_interval(days => ?)` with the
/// argument `-7`, and likewise `secs`, `mins`, `hours`, `months` and
/// `years`; `.startOfDay` is `date_trunc('day', t)`, and `'month'`, `'year'`;
/// `.weekday(n)` is `t + make_interval(days => (? + 7 - CAST(extract(dow FROM
/// t) AS INTEGER)) % 7)`. Adding months or years clamps the day to the end of
/// the month there: a month after 2024-01-31 is 2024-02-29, and a year after
/// 2024-02-29 is 2025-02-28. `.unixEpoch` reads the number before it with
/// `to_timestamp`, and must come right after it. `.localTime`, `.utc`, and a
/// modifier PostgreSQL refuses (`.weekday(7)`, `.second(.nan)`) make the
/// request throw instead, naming the modifier.
///
/// See <https://www.sqlite.org/lang_datefunc.html#modifiers>.
public enum SQLDateModifier: Sendable, Hashable {
    /// Adds a number of seconds, which may have a fractional part: `'1.5 seconds'`.
    case second(Double)
    /// Adds a number of minutes: `'-2 minutes'`.
    case minute(Int)
    /// Adds a number of hours: `'3 hours'`.
    case hour(Int)
    /// Adds a number of days: `'-7 days'`.
    case day(Int)
    /// Adds a number of months: `'1 months'`. SQLite normalizes a day past
    /// the end of the month into the next one: a month after 2024-01-31 is
    /// 2024-03-02 (2024-02-29 on PostgreSQL, which clamps it).
    case month(Int)
    /// Adds a number of years: `'-1 years'`.
    case year(Int)
    /// Goes back to midnight of the same day: `'start of day'`.
    case startOfDay
    /// Goes back to the first day of the month, at midnight: `'start of month'`.
    case startOfMonth
    /// Goes back to the first of January, at midnight: `'start of year'`.
    case startOfYear
    /// Goes forward to the next day whose weekday is `n` (0 is Sunday, 6 is
    /// Saturday), or stays on the day if it is one: `'weekday 0'`. SQLite
    /// refuses other numbers.
    case weekday(Int)
    /// Reads a number as seconds since 1970-01-01 00:00:00 UTC rather than
    /// as a Julian day: `'unixepoch'`. It must come first, right after the
    /// time value: for a `Date` column stored as seconds or milliseconds the
    /// functions already add it, and a second one gives `NULL`.
    case unixEpoch
    /// Converts from UTC to the local time of the machine that runs SQLite:
    /// `'localtime'`. SQLite-only: it throws on PostgreSQL.
    case localTime
    /// Converts from local time to UTC: `'utc'`. SQLite-only: it throws on
    /// PostgreSQL.
    case utc

    /// The modifier as SQLite spells it.
    var sqlText: String {
        switch self {
        case .second(let seconds): return "\(seconds) seconds"
        case .minute(let minutes): return "\(minutes) minutes"
        case .hour(let hours): return "\(hours) hours"
        case .day(let days): return "\(days) days"
        case .month(let months): return "\(months) months"
        case .year(let years): return "\(years) years"
        case .startOfDay: return "start of day"
        case .startOfMonth: return "start of month"
        case .startOfYear: return "start of year"
        case .weekday(let weekday): return "weekday \(weekday)"
        case .unixEpoch: return "unixepoch"
        case .localTime: return "localtime"
        case .utc: return "utc"
        }
    }
}
