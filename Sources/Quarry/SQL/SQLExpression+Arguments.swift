// Raw SQL fragments with StatementArguments, positional or named, for the
// `sql:arguments:` methods of requests (filter, order, select, group, having).
//
// A fragment goes inside a larger statement whose other parts bind `?`
// parameters of their own, so named parameters (`:name`, `@name`, `$name`)
// and numbered ones (`?3`) are rewritten as plain `?` with their values in
// order. The scan skips string literals, quoted identifiers and comments, as
// SQLite's tokenizer does (<https://www.sqlite.org/lang_expr.html#varparam>).

extension SQLExpression {
    /// Raw SQL with positional (`?`, `?NNN`) or named (`:name`, `@name`,
    /// `$name`) parameters bound to `arguments`.
    ///
    /// ```swift
    /// SQLExpression(sql: "score > :minimum", arguments: ["minimum": 10])   // score > ?
    /// ```
    ///
    /// An argument missing for a parameter, or left over, makes the SQL
    /// generation throw an error that quotes the fragment.
    public init(sql: String, arguments: StatementArguments) {
        if let failure = arguments.conversionFailure {
            self.init(.invalid(failure))
            return
        }
        do {
            let (text, values) = try SQLFragment.positional(sql, arguments)
            self.init(.literal(text, values))
        } catch {
            self.init(.invalid(error))
        }
    }
}

/// The rewriting of the parameters of raw SQL.
enum SQLFragment {
    /// A parameter of raw SQL: `?` (nil), `?NNN`, or `:name` (`@name`, `$name`).
    enum Parameter {
        case positional(Int?)
        case named(String)
    }

    /// `sql` with each parameter replaced by `?`, and the values they take from `arguments`.
    static func positional(_ sql: String, _ arguments: StatementArguments) throws -> (String, [DatabaseValue]) {
        var values: [DatabaseValue] = []
        var nextPositional = 0
        let text = try rewritingParameters(sql) { parameter in
            switch parameter {
            case .positional(let number):
                let position = number.map { $0 - 1 } ?? nextPositional
                nextPositional = max(nextPositional, position + 1)
                guard position >= 0, position < arguments.values.count else {
                    throw DatabaseError(
                        resultCode: .SQLITE_RANGE,
                        message: "\(arguments.values.count) argument(s) for parameter ?\(position + 1)", sql: sql)
                }
                values.append(arguments.values[position])
            case .named(let name):
                guard let value = arguments.namedValues[name] else {
                    throw DatabaseError(resultCode: .SQLITE_RANGE, message: "missing argument for parameter :\(name)", sql: sql)
                }
                values.append(value)
            }
            return "?"
        }
        if nextPositional < arguments.values.count {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "\(arguments.values.count) positional argument(s) for \(nextPositional) parameter(s)", sql: sql)
        }
        return (text, values)
    }

    /// `sql` with each parameter replaced by what `replace` returns for it.
    /// String literals, quoted identifiers and comments are copied unchanged.
    static func rewritingParameters(_ sql: String, _ replace: (Parameter) throws -> String) throws -> String {
        let scalars = Array(sql.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar.value > 0x7F
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "'", "\"", "`", "[":
                // A literal or quoted identifier: copied up to its end; a doubled quote stays inside.
                let close: Unicode.Scalar = scalar == "[" ? "]" : scalar
                output.append(scalar)
                index += 1
                while index < scalars.count {
                    output.append(scalars[index])
                    if scalars[index] == close {
                        if close != "]", index + 1 < scalars.count, scalars[index + 1] == close {
                            output.append(scalars[index + 1])
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                while index < scalars.count, scalars[index] != "\n" {
                    output.append(scalars[index])
                    index += 1
                }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                output.append(contentsOf: ["/", "*"])
                index += 2
                while index < scalars.count {
                    if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" {
                        output.append(contentsOf: ["*", "/"])
                        index += 2
                        break
                    }
                    output.append(scalars[index])
                    index += 1
                }
            case "?":
                index += 1
                var digits = ""
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    digits.unicodeScalars.append(scalars[index])
                    index += 1
                }
                let number = digits.isEmpty ? nil : (Int(digits) ?? 0)
                output.append(contentsOf: try replace(.positional(number)).unicodeScalars)
            case _ where (scalar == ":" || scalar == "@" || scalar == "$")
                && index + 1 < scalars.count && isNameScalar(scalars[index + 1]):
                index += 1
                var name = ""
                while index < scalars.count, isNameScalar(scalars[index]) {
                    name.unicodeScalars.append(scalars[index])
                    index += 1
                }
                output.append(contentsOf: try replace(.named(name)).unicodeScalars)
            default:
                output.append(scalar)
                index += 1
            }
        }
        return String(output)
    }
}
