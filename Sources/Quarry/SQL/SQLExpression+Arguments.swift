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
    /// A parameter of raw SQL (see Core/SQLScanner.swift).
    typealias Parameter = SQLParameter

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
    /// String literals, quoted identifiers and comments are copied unchanged
    /// (see SQLScanner.swift).
    static func rewritingParameters(
        _ sql: String, rules: SQLLexicalRules = .sqlite, _ replace: (Parameter) throws -> String
    ) throws -> String {
        var output = ""
        for token in SQLScanner.tokens(sql, rules: rules) {
            switch token {
            case .text(let text): output += text
            case .semicolon: output += ";"
            case .parameter(let parameter): output += try replace(parameter)
            }
        }
        return output
    }
}
