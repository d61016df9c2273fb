// SQLScanner: finds the parameters and the statement ends of raw SQL text,
// skipping what is not SQL code: string literals, quoted identifiers and
// comments — and, in PostgreSQL, dollar-quoted strings, escape strings and the
// `::` cast operator.
//
// Raw SQL written for Quarry uses SQLite's parameters (`?`, `?NNN`, `:name`,
// `@name`, `$name`; <https://www.sqlite.org/lang_expr.html#varparam>). The
// SQL layer rewrites them: as plain `?` inside larger generated statements
// (SQLExpression+Arguments.swift), and as `$1…$n` for PostgreSQL
// (<https://www.postgresql.org/docs/15/sql-syntax-lexical.html>), where `$1`
// written by hand is accepted too.

/// A parameter of raw SQL: `?` (nil), `?NNN` or `$NNN` (its number), or
/// `:name` (`@name`, `$name`).
enum SQLParameter: Equatable {
    case positional(Int?)
    case named(String)
}

/// One piece of scanned SQL.
enum SQLToken: Equatable {
    /// Text copied as is: SQL code, literals, quoted identifiers, comments.
    case text(String)
    /// A parameter: `?` (nil), `?NNN` or `$NNN` (its number), or `:name`.
    case parameter(SQLParameter)
    /// A `;` outside literals and comments.
    case semicolon
}

enum SQLScanner {
    /// The tokens of `sql`, read with a dialect's lexical `rules`.
    static func tokens(_ sql: String, rules: SQLLexicalRules = .sqlite) -> [SQLToken] {
        let scalars = Array(sql.unicodeScalars)
        var tokens: [SQLToken] = []
        var text = String.UnicodeScalarView()
        var index = 0

        func flush() {
            if !text.isEmpty { tokens.append(.text(String(text))) }
            text = String.UnicodeScalarView()
        }
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar.value > 0x7F
        }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        /// The digits at `index`, read past.
        func readDigits() -> String {
            var digits = ""
            while index < scalars.count, isDigit(scalars[index]) {
                digits.unicodeScalars.append(scalars[index])
                index += 1
            }
            return digits
        }
        /// Copies scalars up to and including `close` (a doubled `close`
        /// stays inside); `backslashEscapes`: `\x` stays inside too.
        func copyQuoted(close: Unicode.Scalar, doubling: Bool, backslashEscapes: Bool = false) {
            text.append(scalars[index])
            index += 1
            while index < scalars.count {
                let scalar = scalars[index]
                text.append(scalar)
                if backslashEscapes, scalar == "\\", index + 1 < scalars.count {
                    text.append(scalars[index + 1])
                    index += 2
                    continue
                }
                if scalar == close {
                    if doubling, index + 1 < scalars.count, scalars[index + 1] == close {
                        text.append(scalars[index + 1])
                        index += 2
                        continue
                    }
                    index += 1
                    return
                }
                index += 1
            }
        }
        /// The length of the PostgreSQL dollar-quote delimiter at `index`
        /// (`$$`, `$tag$`), or nil.
        func dollarQuoteLength(at start: Int) -> Int? {
            var end = start + 1
            while end < scalars.count, scalars[end] != "$" {
                let scalar = scalars[end]
                // A tag is an identifier: no digit first.
                guard isNameScalar(scalar), !(end == start + 1 && isDigit(scalar)) else { return nil }
                end += 1
            }
            return end < scalars.count ? end - start + 1 : nil
        }

        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar {
            case "'":
                // PostgreSQL's escape strings (E'…') take backslash escapes.
                let isEscapeString = rules.escapeStrings && index > 0 && (scalars[index - 1] == "E" || scalars[index - 1] == "e")
                    && (index < 2 || !isNameScalar(scalars[index - 2]))
                copyQuoted(close: "'", doubling: true, backslashEscapes: isEscapeString)
            case "\"":
                copyQuoted(close: "\"", doubling: true)
            case "`" where rules.backtickAndBracketIdentifiers:
                copyQuoted(close: "`", doubling: true)
            case "[" where rules.backtickAndBracketIdentifiers:
                copyQuoted(close: "]", doubling: false)
            case "-" where next == "-":
                while index < scalars.count, scalars[index] != "\n" {
                    text.append(scalars[index])
                    index += 1
                }
            case "/" where next == "*":
                text.append(contentsOf: ["/", "*"])
                index += 2
                while index < scalars.count {
                    if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" {
                        text.append(contentsOf: ["*", "/"])
                        index += 2
                        break
                    }
                    text.append(scalars[index])
                    index += 1
                }
            case ";":
                flush()
                tokens.append(.semicolon)
                index += 1
            case ":" where rules.doubleColonOperator && next == ":":
                // The cast operator, `x::int`.
                text.append(contentsOf: [":", ":"])
                index += 2
            case "$" where rules.numberedDollarParameters && next.map(isDigit) == true:
                // PostgreSQL's own numbered parameter, `$1`.
                index += 1
                let digits = readDigits()
                flush()
                tokens.append(.parameter(.positional(Int(digits) ?? 0)))
            case "$" where rules.dollarQuotedStrings && dollarQuoteLength(at: index) != nil:
                // A dollar-quoted string, `$$…$$` or `$tag$…$tag$`, copied whole.
                let length = dollarQuoteLength(at: index) ?? 2
                let delimiter = Array(scalars[index..<(index + length)])
                text.append(contentsOf: delimiter)
                index += length
                while index < scalars.count {
                    if scalars[index] == "$", index + length <= scalars.count,
                        Array(scalars[index..<(index + length)]) == delimiter
                    {
                        text.append(contentsOf: delimiter)
                        index += length
                        break
                    }
                    text.append(scalars[index])
                    index += 1
                }
            case "?":
                index += 1
                let digits = readDigits()
                flush()
                tokens.append(.parameter(.positional(digits.isEmpty ? nil : (Int(digits) ?? 0))))
            case _ where (scalar == ":" || scalar == "@" || scalar == "$") && next.map(isNameScalar) == true:
                index += 1
                var name = ""
                while index < scalars.count, isNameScalar(scalars[index]) {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                flush()
                tokens.append(.parameter(.named(name)))
            default:
                text.append(scalar)
                index += 1
            }
        }
        flush()
        return tokens
    }

    /// The statements of a script, for a database server: each with its
    /// parameters written as the dialect numbers them (`$1…$n` on
    /// PostgreSQL), and the values they take from `arguments`.
    /// Positional arguments are consumed by the statements in order, as
    /// ``Database/execute(sql:arguments:)`` does on SQLite; `?NNN` and `$NNN`
    /// number the positional arguments of their own statement. Statements
    /// made only of white space and comments are left out.
    static func serverStatements(
        _ sql: String, _ arguments: StatementArguments, dialect: any SQLDialect
    ) throws -> [(sql: String, values: [DatabaseValue])] {
        if let failure = arguments.conversionFailure { throw failure }
        var statements: [(sql: String, values: [DatabaseValue])] = []
        var text = ""
        var values: [DatabaseValue] = []
        var used = 0
        var statementStart = 0
        var isBlankStatement = true
        func finish() {
            if !isBlankStatement { statements.append((text, values)) }
            text = ""
            values = []
            isBlankStatement = true
            statementStart = used
        }
        for token in SQLScanner.tokens(sql, rules: dialect.lexicalRules) {
            switch token {
            case .text(let fragment):
                text += fragment
                if isBlankStatement, !isBlank(fragment) { isBlankStatement = false }
            case .semicolon:
                finish()
            case .parameter(let parameter):
                isBlankStatement = false
                switch parameter {
                case .positional(let number):
                    // A huge `?NNN` is out of range, not an overflow (here or in `position + 1`).
                    let position = number.map { number in
                        let (sum, overflow) = statementStart.addingReportingOverflow(number - 1)
                        return overflow ? Int.max - 1 : min(sum, Int.max - 1)
                    } ?? used
                    guard position >= statementStart, position < arguments.values.count else {
                        throw DatabaseError(
                            resultCode: .SQLITE_RANGE,
                            message: "\(arguments.values.count) argument(s) for parameter ?\(position + 1)", sql: sql)
                    }
                    used = max(used, position + 1)
                    values.append(arguments.values[position])
                case .named(let name):
                    guard let value = arguments.namedValues[name] else {
                        throw DatabaseError(resultCode: .SQLITE_RANGE, message: "missing argument for parameter :\(name)", sql: sql)
                    }
                    values.append(value)
                }
                text += dialect.parameter(values.count)
            }
        }
        finish()
        if used < arguments.values.count {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "\(arguments.values.count) positional argument(s) for \(used) parameter(s)", sql: sql)
        }
        return statements
    }

    /// Whether `text` holds only white space and comments.
    private static func isBlank(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "-", next == "-" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalar == "/", next == "*" {
                index += 2
                while index < scalars.count, !(scalars[index] == "*" && index + 1 < scalars.count && scalars[index + 1] == "/") {
                    index += 1
                }
                index += 2
            } else {
                return false
            }
        }
        return true
    }
}
