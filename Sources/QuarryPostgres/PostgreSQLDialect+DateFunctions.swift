// PostgreSQLDialect's spelling of SQLite's date and time functions (built by
// Quarry's QueryInterface/QueryExpression+DateFunctions.swift), written by
// Quarry's SQLGenerationContext, through PostgreSQLDialect.rewrittenFunctionCall,
// in place of a call to `date`, `time`, `datetime`,
// `julianday`, `strftime` or `unixepoch` on a PostgreSQL connection.
//
// The translation reads the SQLite call that the query interface builds:
// `[format,] time value, modifiers...`, every modifier a bound text. So it
// needs nothing more than the call, and the SQLite SQL stays as it is.
//
// | SQLite | PostgreSQL |
// |---|---|
// | time value `x` (text, a `TIMESTAMPTZ`) | `CAST(x AS TIMESTAMPTZ)` |
// | `x, 'unixepoch'` (seconds) | `to_timestamp(x)` |
// | `x / 1000.0, 'unixepoch'` (milliseconds) | `to_timestamp(x / 1000.0)` |
// | a bound number `?` (a Julian day) | `to_timestamp((? - 2440587.5) * 86400.0)` |
// | `'-7 days'`, `'1.5 seconds'`… | `t + make_interval(days => ?)`, `t + make_interval(secs => ?)`… (the number bound) |
// | `'start of day'`, `'start of month'`, `'start of year'` | `date_trunc('day', t)`, `date_trunc('month', t)`, `date_trunc('year', t)` |
// | `'weekday 3'` | `t + make_interval(days => (? + 7 - CAST(extract(dow FROM t) AS INTEGER)) % 7)` |
// | `date(…)` | `to_char(t, 'YYYY-MM-DD')` |
// | `time(…)` | `to_char(t, 'HH24:MI:SS')` |
// | `datetime(…)` | `to_char(t, 'YYYY-MM-DD HH24:MI:SS')` |
// | `julianday(…)` | `CAST(round(extract(epoch FROM t) * 1000) + 210866760000000 AS DOUBLE PRECISION) / 86400000.0` |
// | `unixepoch(…)` | `CAST(floor(extract(epoch FROM t)) AS BIGINT)` |
// | `strftime(?, …)` | `to_char(t, ?)` with a bound template, joined with `||` to `extract` for `%w`, `%W` and `%s` |
//
// Results are in UTC: every PostgreSQL connection runs with TimeZone=UTC.
// julianday counts whole milliseconds, as SQLite does, so both give the same
// Double. The modifiers 'localtime', 'utc', a 'unixepoch' anywhere but right
// after the time value, and SQLite's other modifiers throw, naming the
// modifier; so does a strftime substitution without a translation (`%J`).

import Foundation
import Quarry

extension SQLExpression {
    /// The PostgreSQL expression of a call to one of SQLite's date and time
    /// functions, `name(arguments)`, or nil when `name` is not one of them.
    static func postgreSQLDateFunction(_ name: String, _ arguments: [SQLExpression]) throws -> SQLExpression? {
        let function = name.lowercased()
        guard ["date", "time", "datetime", "julianday", "strftime", "unixepoch"].contains(function) else { return nil }
        var remaining = arguments[...]
        var format: String?
        if function == "strftime" {
            guard case .value(.text(let text))? = remaining.first?.node else {
                throw DatabaseError.misuse("strftime() on PostgreSQL needs its format as a text value")
            }
            format = text
            remaining = remaining.dropFirst()
        }
        guard let timeValue = remaining.first else {
            throw DatabaseError.misuse("\(name)() without a time value is SQLite-only: give the time value, \"now\" for instance")
        }
        var modifiers = try remaining.dropFirst().map { argument -> String in
            guard case .value(.text(let text)) = argument.node else {
                throw DatabaseError.misuse("a modifier of \(name)() on PostgreSQL must be a text value, an SQLDateModifier")
            }
            return text
        }

        var time: SQLExpression
        if let first = modifiers.first, Self.normalizedModifier(first) == "unixepoch" {
            // Seconds since 1970: a record's seconds or milliseconds
            // strategy, or `.unixEpoch` given right after a number.
            modifiers.removeFirst()
            time = .postgreSQL(.text("to_timestamp("), .expression(timeValue), .text(")"))
        } else if timeValue.isBoundNumber {
            // SQLite reads a number as a Julian day.
            time = .postgreSQL(.text("to_timestamp(("), .expression(timeValue), .text(" - 2440587.5) * 86400.0)"))
        } else {
            time = .postgreSQL(.text("CAST("), .expression(timeValue), .text(" AS TIMESTAMPTZ)"))
        }
        for modifier in modifiers {
            time = try Self.postgreSQLApplying(modifier, to: time)
        }

        switch function {
        case "date": return .postgreSQL(.text("to_char("), .expression(time), .text(", 'YYYY-MM-DD')"))
        case "time": return .postgreSQL(.text("to_char("), .expression(time), .text(", 'HH24:MI:SS')"))
        case "datetime": return .postgreSQL(.text("to_char("), .expression(time), .text(", 'YYYY-MM-DD HH24:MI:SS')"))
        case "julianday":
            // Whole milliseconds since the Julian epoch, divided as a Double:
            // SQLite's own arithmetic, and so its result.
            return .postgreSQL(
                .text("CAST(round(extract(epoch FROM "), .expression(time),
                .text(") * 1000) + 210866760000000 AS DOUBLE PRECISION) / 86400000.0"))
        case "unixepoch":
            return epochSeconds(time)
        default:
            return try Self.postgreSQLStrftime(format ?? "", time)
        }
    }

    /// Whole seconds since 1970 of the time value: `unixepoch(…)`, and
    /// strftime's `%s` as text.
    private static func epochSeconds(_ time: SQLExpression) -> SQLExpression {
        .postgreSQL(.text("CAST(floor(extract(epoch FROM "), .expression(time), .text(")) AS BIGINT)"))
    }

    /// Whether the expression is a bound integer or real.
    private var isBoundNumber: Bool {
        switch node {
        case .value(.integer), .value(.real): return true
        default: return false
        }
    }

    /// An expression made of SQL text and expressions.
    private static func postgreSQL(_ elements: SQL.Element...) -> SQLExpression {
        SQLExpression(.interpolated(SQL(elements: elements)))
    }

    /// A modifier as SQLite reads it: lower case, without surrounding spaces.
    private static func normalizedModifier(_ modifier: String) -> String {
        modifier.lowercased().trimmingCharacters(in: .whitespaces)
    }

    /// The time value `time` with one of SQLite's modifiers applied.
    private static func postgreSQLApplying(_ modifier: String, to time: SQLExpression) throws -> SQLExpression {
        let normalized = normalizedModifier(modifier)
        switch normalized {
        case "start of day": return .postgreSQL(.text("date_trunc('day', "), .expression(time), .text(")"))
        case "start of month": return .postgreSQL(.text("date_trunc('month', "), .expression(time), .text(")"))
        case "start of year": return .postgreSQL(.text("date_trunc('year', "), .expression(time), .text(")"))
        case "localtime", "utc":
            throw DatabaseError.misuse(
                "the date modifier '\(modifier)' is SQLite-only: PostgreSQL connections run in UTC, and the functions' results are in UTC")
        case "unixepoch":
            throw DatabaseError.misuse(
                "the date modifier 'unixepoch' must come right after the time value, and only once (SQLite gives NULL otherwise)")
        default:
            break
        }
        let words = normalized.split(whereSeparator: \.isWhitespace)
        if words.count == 2, words[0] == "weekday" {
            guard let weekday = Int(words[1]), (0...6).contains(weekday) else {
                throw DatabaseError.misuse("the date modifier '\(modifier)' needs a weekday from 0 (Sunday) to 6 (Saturday)")
            }
            // Forward to the next day of that weekday, or stay on it.
            return .postgreSQL(
                .expression(time), .text(" + make_interval(days => ("), .expression(SQLExpression(.value(.integer(Int64(weekday))))),
                .text(" + 7 - CAST(extract(dow FROM "), .expression(time), .text(") AS INTEGER)) % 7)"))
        }
        if words.count == 2 {
            var unit = String(words[1])
            if unit.hasSuffix("s") { unit.removeLast() }
            let number = words[0].hasPrefix("+") ? String(words[0].dropFirst()) : String(words[0])
            if unit == "second" {
                guard let seconds = Double(number), seconds.isFinite else {
                    throw DatabaseError.misuse("the date modifier '\(modifier)' needs a finite number of seconds")
                }
                return .postgreSQL(
                    .expression(time), .text(" + make_interval(secs => "), .expression(SQLExpression(.value(.real(seconds)))), .text(")"))
            }
            let parameters = ["minute": "mins", "hour": "hours", "day": "days", "month": "months", "year": "years"]
            if let parameter = parameters[unit] {
                // make_interval takes 32-bit integers.
                guard let count = Int32(number) else {
                    throw DatabaseError.misuse(
                        "the date modifier '\(modifier)' needs a whole number of \(unit)s from -2147483648 to 2147483647 on PostgreSQL")
                }
                return .postgreSQL(
                    .expression(time), .text(" + make_interval(\(parameter) => "), .expression(SQLExpression(.value(.integer(Int64(count))))),
                    .text(")"))
            }
        }
        throw DatabaseError.misuse("the date modifier '\(modifier)' is SQLite-only: it has no PostgreSQL translation")
    }

    /// strftime(format, time) on PostgreSQL: the substitutions that `to_char`
    /// writes go into one bound template (the text between them quoted in
    /// it), and `%w`, `%W` and `%s`, which it does not write, are computed
    /// with `extract`; the pieces are joined with `||`.
    private static func postgreSQLStrftime(_ format: String, _ time: SQLExpression) throws -> SQLExpression {
        var pieces: [SQLExpression] = []
        var template = ""
        var literal = ""
        // A pattern follows another: `""` keeps `DD` then `DDD` from reading as `DDDDD`.
        var templateEndsWithPattern = false

        func appendPattern(_ pattern: String) {
            flushLiteral()
            if templateEndsWithPattern { template += "\"\"" }
            template += pattern
            templateEndsWithPattern = true
        }
        func flushLiteral() {
            guard !literal.isEmpty else { return }
            template += "\"" + literal.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            literal = ""
            templateEndsWithPattern = false
        }
        func flushTemplate() {
            flushLiteral()
            guard !template.isEmpty else { return }
            pieces.append(.postgreSQL(
                .text("to_char("), .expression(time), .text(", "), .expression(SQLExpression(.value(.text(template)))), .text(")")))
            template = ""
            templateEndsWithPattern = false
        }

        var characters = format.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                literal.append(character)
                continue
            }
            guard let specifier = characters.next() else {
                throw DatabaseError.misuse("the strftime format \(format.debugDescription) ends with a lone %")
            }
            switch specifier {
            case "Y": appendPattern("YYYY")
            case "m": appendPattern("MM")
            case "d": appendPattern("DD")
            case "H": appendPattern("HH24")
            case "M": appendPattern("MI")
            case "S": appendPattern("SS")
            case "f": appendPattern("SS\".\"MS")
            case "j": appendPattern("DDD")
            case "%": literal.append("%")
            case "w":
                flushTemplate()
                pieces.append(.postgreSQL(.text("CAST(CAST(extract(dow FROM "), .expression(time), .text(") AS INTEGER) AS TEXT)")))
            case "W":
                // SQLite's week of the year, 00-53: weeks start on Monday,
                // and the days before the first Monday are in week 00.
                flushTemplate()
                pieces.append(.postgreSQL(
                    .text("lpad(CAST(CAST(extract(doy FROM "), .expression(time), .text(") + 7 - extract(isodow FROM "),
                    .expression(time), .text(") AS INTEGER) / 7 AS TEXT), 2, '0')")))
            case "s":
                flushTemplate()
                pieces.append(.postgreSQL(.text("CAST("), .expression(epochSeconds(time)), .text(" AS TEXT)")))
            default:
                throw DatabaseError.misuse(
                    "the strftime substitution %\(specifier) is SQLite-only: PostgreSQL translates %Y %m %d %H %M %S %f %j %w %W %s and %%")
            }
        }
        flushTemplate()

        guard let first = pieces.first else {
            // An empty format: empty text, or NULL for no date.
            return .postgreSQL(.text("CASE WHEN "), .expression(time), .text(" IS NULL THEN NULL ELSE '' END"))
        }
        guard pieces.count > 1 else { return first }
        var elements: [SQL.Element] = [.text("(")]
        for (index, piece) in pieces.enumerated() {
            if index > 0 { elements.append(.text(" || ")) }
            elements.append(.expression(piece))
        }
        elements.append(.text(")"))
        return SQLExpression(.interpolated(SQL(elements: elements)))
    }
}
