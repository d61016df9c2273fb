// PostgreSQLDialect's translations of what Quarry writes in SQLite's SQL:
// function calls (TOTAL, IFNULL, group_concat, the JSON functions…),
// hasSuffix, a JSON path after `->>`, and GLOB as a LIKE. SQLite's date and
// time functions are in PostgreSQLDialect+DateFunctions.swift.

import Quarry

extension PostgreSQLDialect {
    // MARK: - Functions

    /// SQLite's date and time functions, translated by
    /// `SQLExpression.postgreSQLDateFunction(_:_:)`.
    package func rewrittenFunctionCall(_ name: String, _ arguments: [SQLExpression]) throws -> SQLExpression? {
        try SQLExpression.postgreSQLDateFunction(name, arguments)
    }

    /// The PostgreSQL spelling of an SQLite function whose name or result
    /// type differs there, or nil when the function is written as on SQLite:
    ///
    /// | SQLite | PostgreSQL |
    /// |---|---|
    /// | `TOTAL(x)` (a real, 0.0 without rows) | `CAST(COALESCE(SUM(x), 0) AS DOUBLE PRECISION)` |
    /// | `AVG(x)` (a real) | `CAST(AVG(x) AS DOUBLE PRECISION)` (not `numeric`) |
    /// | `IFNULL(a, b)` | `COALESCE(a, b)` |
    /// | `instr(a, b)` | `strpos(a, b)` |
    /// | `group_concat(x[, separator])` | `string_agg(CAST(x AS TEXT), separator)` (`','` by default) |
    /// | `json_group_array(x)`, `json_group_object(k, v)` | `json_agg(x)`, `json_object_agg(k, v)` |
    /// | `json_object(k, v, …)`, `json_array(…)` | `json_build_object(CAST(k AS TEXT), v, …)`, `json_build_array(…)` |
    /// | a JSON member read as a number, a boolean | `CAST(x AS DOUBLE PRECISION)`, `CAST(x AS BOOLEAN)` (`->>` returns text) |
    package func functionCallSQL(_ name: String, arguments: [String], distinct: Bool, filter: String) -> String? {
        let distinctSQL = distinct ? "DISTINCT " : ""
        let list = distinctSQL + arguments.joined(separator: ", ")
        switch name.uppercased() {
        case "TOTAL": return "CAST(COALESCE(SUM(" + list + ")" + filter + ", 0) AS DOUBLE PRECISION)"
        case "AVG": return "CAST(AVG(" + list + ")" + filter + " AS DOUBLE PRECISION)"
        case "IFNULL": return "COALESCE(" + list + ")" + filter
        case "INSTR": return "strpos(" + list + ")" + filter
        case "GROUP_CONCAT":
            guard let first = arguments.first else { return nil }
            let separator = arguments.count > 1 ? arguments[1] : "','"
            return "string_agg(" + distinctSQL + "CAST(" + first + " AS TEXT), " + separator + ")" + filter
        case "JSON_GROUP_ARRAY": return "json_agg(" + list + ")" + filter
        case "JSON_GROUP_OBJECT": return "json_object_agg(" + list + ")" + filter
        case "JSON_OBJECT":
            // Keys are text: a bound key would otherwise have no type the
            // server can infer ("could not determine data type of parameter").
            let pairs = arguments.enumerated().map { $0.offset.isMultiple(of: 2) ? "CAST(" + $0.element + " AS TEXT)" : $0.element }
            return "json_build_object(" + distinctSQL + pairs.joined(separator: ", ") + ")" + filter
        case "JSON_ARRAY": return "json_build_array(" + list + ")" + filter
        case SQLExpression.jsonNumberFunction: return "CAST(" + list + " AS DOUBLE PRECISION)" + filter
        case SQLExpression.jsonBooleanFunction: return "CAST(" + list + " AS BOOLEAN)" + filter
        default: return nil
        }
    }

    /// PostgreSQL text holds no NUL, and its `right` counts characters:
    /// `right(x, char_length(CAST(? AS TEXT))) = CAST(? AS TEXT)`.
    package func hasSuffix(_ text: SQLExpression, _ suffix: SQLExpression) -> SQLExpression {
        SQLExpression(.interpolated(SQL(elements: [
            .text("right("), .expression(text), .text(", char_length(CAST("), .expression(suffix),
            .text(" AS TEXT))) = CAST("), .expression(suffix), .text(" AS TEXT)"),
        ])))
    }

    // MARK: - JSON

    /// PostgreSQL's `->>` takes one key: a path is `#>>` and an array of
    /// keys, `CAST(x AS JSONB) #>> ?` with the array bound.
    package func jsonPathExtraction(_ json: SQLExpression, path: String) -> SQLExpression? {
        guard let keys = Self.jsonPathKeys(path) else { return nil }
        let jsonb = SQLExpression(.function("CAST", [SQLExpression(.postfix(json, "AS JSONB"))], distinct: false))
        return SQLExpression(.infix("#>>", jsonb, SQLExpression(.value(.text(keys)))))
    }

    /// The PostgreSQL text array (`{"address","city"}`) of the keys of a JSON
    /// path as Quarry writes it for SQLite (`$.address.city`, `$."a.b"`), or
    /// nil for another form of path.
    package static func jsonPathKeys(_ path: String) -> String? {
        var scalars = path.unicodeScalars[...]
        guard scalars.first == "$" else { return nil }
        scalars = scalars.dropFirst()
        var keys: [String] = []
        while let dot = scalars.first {
            guard dot == "." else { return nil }
            scalars = scalars.dropFirst()
            var key = String.UnicodeScalarView()
            if scalars.first == "\"" {
                // A quoted key: \" and \\ are escapes.
                scalars = scalars.dropFirst()
                var closed = false
                while let scalar = scalars.first {
                    scalars = scalars.dropFirst()
                    if scalar == "\\" {
                        guard let escaped = scalars.first else { return nil }
                        key.append(escaped)
                        scalars = scalars.dropFirst()
                    } else if scalar == "\"" {
                        closed = true
                        break
                    } else {
                        key.append(scalar)
                    }
                }
                guard closed else { return nil }
            } else {
                while let scalar = scalars.first, scalar != "." {
                    key.append(scalar)
                    scalars = scalars.dropFirst()
                }
            }
            keys.append(String(key))
        }
        guard !keys.isEmpty else { return nil }
        let quoted = keys.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        return "{" + quoted.joined(separator: ",") + "}"
    }

    // MARK: - GLOB

    /// PostgreSQL has no GLOB: the same match as a case-sensitive LIKE, whose
    /// pattern is bound. Throws for a pattern that is not a text value, or
    /// that LIKE cannot express.
    package func likePattern(forGlob pattern: SQLExpression) throws -> String? {
        guard case .value(.text(let glob)) = pattern.node else {
            throw DatabaseError.misuse("GLOB with a pattern that is not a value is SQLite-only")
        }
        guard let like = Self.likePattern(glob: glob) else {
            throw DatabaseError.misuse("the GLOB pattern \(glob.debugDescription) has a character set or range, which is SQLite-only")
        }
        return like
    }

    /// The LIKE pattern (with `\` as its escape character) that matches
    /// what a GLOB pattern matches (<https://www.sqlite.org/lang_expr.html#glob>):
    /// `*` is `%`, `?` is `_`, a bracketed `[c]` of one character is `c`, and
    /// `%`, `_` and `\` are escaped. Nil for a GLOB set or range (`[ab]`,
    /// `[a-z]`, `[^x]`) or an unclosed bracket, which LIKE cannot express.
    package static func likePattern(glob: String) -> String? {
        var result = ""
        let scalars = Array(glob.unicodeScalars)
        func escaped(_ scalar: Unicode.Scalar) -> String {
            scalar == "%" || scalar == "_" || scalar == "\\" ? "\\" + String(scalar) : String(scalar)
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "*": result += "%"
            case "?": result += "_"
            case "[":
                // Only "[c]", the character c.
                guard index + 2 < scalars.count, scalars[index + 2] == "]" else { return nil }
                result += escaped(scalars[index + 1])
                index += 2
            default: result += escaped(scalar)
            }
            index += 1
        }
        return result
    }
}
