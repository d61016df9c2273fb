// Methods of QueryExpression: NULL tests, IN, BETWEEN, text matching, and
// collation. In closures (`Player.filter { $0.name.hasPrefix("A") }`) they
// apply to columns directly.

/// The Swift types of text columns: `String` and `String?`. Text methods such
/// as ``QueryExpression/like(_:escape:)`` exist only for them.
public protocol DatabaseTextValue {}
extension String: DatabaseTextValue {}
extension Optional: DatabaseTextValue where Wrapped == String {}

extension QueryExpression {
    /// Whether the value is `NULL`: SQL `IS NULL`.
    public var isNull: QueryExpression<Root, Bool> { QueryExpression<Root, Bool>(SQLExpression(.postfix(sqlExpression, "IS NULL"))) }

    /// Whether the value is not `NULL`: SQL `IS NOT NULL`.
    public var isNotNull: QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(SQLExpression(.postfix(sqlExpression, "IS NOT NULL")))
    }

    /// Whether the value is one of `values`: SQL `IN (?, ?, ...)`.
    public func `in`<S: Sequence>(_ values: S) -> QueryExpression<Root, Bool> where S.Element == Value {
        QueryExpression<Root, Bool>(SQLExpression(.inList(
            sqlExpression, values.map { .bound($0, in: Root.self, near: sqlExpression) }, negated: false)))
    }

    /// Whether the value is none of `values`: SQL `NOT IN (?, ?, ...)`.
    public func notIn<S: Sequence>(_ values: S) -> QueryExpression<Root, Bool> where S.Element == Value {
        QueryExpression<Root, Bool>(SQLExpression(.inList(
            sqlExpression, values.map { .bound($0, in: Root.self, near: sqlExpression) }, negated: true)))
    }

    /// Whether the value is between two values, both included: SQL `BETWEEN ? AND ?`.
    public func between(_ lower: Value, and upper: Value) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(SQLExpression(.between(
            sqlExpression, .bound(lower, in: Root.self, near: sqlExpression), .bound(upper, in: Root.self, near: sqlExpression),
            negated: false)))
    }

    /// The expression compared with a collation: SQL `COLLATE`.
    ///
    /// ```swift
    /// Player.filter { $0.name.collating(.nocase) == "arthur" }   // "name" COLLATE "NOCASE" = ?
    /// ```
    public func collating(_ collation: Collation) -> QueryExpression {
        QueryExpression(SQLExpression(.collate(sqlExpression, collation.name)))
    }

    /// Ascending order.
    /// The same expression, typed as optional: compares with, or is
    /// assigned to, an optional column. SQL is unchanged.
    ///
    /// ```swift
    /// // `id` is `Int64?`, `score` is `Int`:
    /// Player.filter(\.id == (\Player.score * 10).optional)   // "id" = ("score" * ?)
    /// ```
    public var optional: QueryExpression<Root, Value?> { QueryExpression<Root, Value?>(sqlExpression) }

    public var asc: QueryOrdering<Root> { QueryOrdering(self, descending: false) }

    /// Descending order.
    public var desc: QueryOrdering<Root> { QueryOrdering(self, descending: true) }

    /// Ascending order, `NULL`s last.
    public var ascNullsLast: QueryOrdering<Root> { QueryOrdering(self, descending: false, nulls: .last) }

    /// Descending order, `NULL`s first.
    public var descNullsFirst: QueryOrdering<Root> { QueryOrdering(self, descending: true, nulls: .first) }
}

extension QueryExpression where Value == Bool {
    /// The condition with its comparisons made under a collation: the
    /// collation applies to the compared value of each `=`, `<>`, `<`, `<=`,
    /// `>`, `>=`, `IN` and `BETWEEN` (through `AND`, `OR` and `NOT`).
    ///
    /// ```swift
    /// Player.filter((\.name == "arthur").collating(.nocase))
    /// // "name" COLLATE "NOCASE" = ?
    /// Player.filter(["arthur", "barbara"].contains(\.name).collating(.nocase))
    /// // "name" COLLATE "NOCASE" IN (?, ?)
    /// ```
    ///
    /// SQLite compares with the collation of the left operand
    /// (<https://www.sqlite.org/datatype3.html#collation>); collating the
    /// 0/1 result of the condition, as `(… = ?) COLLATE …` would, changes
    /// nothing. A condition whose comparisons a collation cannot reach (`LIKE`
    /// and `GLOB`, which ignore collations, `hasPrefix` and the other text
    /// methods, a function call, raw SQL) makes the request throw
    /// `SQLITE_MISUSE`: collate the column instead.
    public func collating(_ collation: Collation) -> QueryExpression {
        QueryExpression(sqlExpression.collatingComparisons(collation.name))
    }
}

extension QueryExpression where Value: DatabaseTextValue {
    /// SQL `LIKE`: `%` matches any text, `_` any character, case-insensitive
    /// for ASCII letters (<https://www.sqlite.org/lang_expr.html#like>).
    ///
    /// - parameters:
    ///   - pattern: the pattern, bound as an argument.
    ///   - escape: a character that makes the next `%` or `_` literal.
    public func like(_ pattern: String, escape: Character? = nil) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(SQLExpression(.match(
            "LIKE", sqlExpression, .value(.text(pattern)), escape: escape.map(String.init), negated: false)))
    }

    /// SQL `GLOB`: `*` matches any text, `?` any character, case-sensitive
    /// (<https://www.sqlite.org/lang_expr.html#glob>).
    public func glob(_ pattern: String) -> QueryExpression<Root, Bool> {
        QueryExpression<Root, Bool>(SQLExpression(.match("GLOB", sqlExpression, .value(.text(pattern)), escape: nil, negated: false)))
    }

    /// Whether the text starts with `prefix`, case-sensitively. `%`, `_`, `*`
    /// and `?` in `prefix` are literal, and NUL characters count like any other.
    ///
    /// Text is compared by Unicode scalars, as SQLite compares text, not by
    /// grapheme clusters as `String.hasPrefix` does: `"e\u{301}"` (an e and a
    /// combining accent) starts with `"e"` here.
    ///
    /// Under a collation (`$0.name.collating(.nocase).hasPrefix("a")`), the
    /// collation compares the text's first characters with `prefix`:
    /// `substr("name", 1, length(CAST(? AS TEXT))) COLLATE "NOCASE" = ?`.
    public func hasPrefix(_ prefix: String) -> QueryExpression<Root, Bool> {
        if case .collate(let text, let collation) = sqlExpression.node {
            return QueryExpression<Root, Bool>(SQLExpression.collatedTextMatch(.prefix, text, collation, prefix))
        }
        // GLOB reads its pattern only up to a NUL; instr() compares every byte
        // (but, unlike a GLOB prefix, cannot use an index).
        guard prefix.utf8.contains(0) else { return glob(Self.globEscaped(prefix) + "*") }
        return QueryExpression<Root, Bool>(SQLExpression(.infix(
            "=", SQLExpression(.function("instr", [sqlExpression, SQLExpression(.value(.text(prefix)))], distinct: false)),
            SQLExpression(.value(.integer(1))))))
    }

    /// Whether the text ends with `suffix`, case-sensitively, comparing Unicode
    /// scalars. Wildcard and NUL characters in `suffix` are literal.
    ///
    /// Under a collation, the collation compares the text's last characters
    /// with `suffix`, as ``hasPrefix(_:)`` does its first.
    public func hasSuffix(_ suffix: String) -> QueryExpression<Root, Bool> {
        if case .collate(let text, let collation) = sqlExpression.node {
            return QueryExpression<Root, Bool>(SQLExpression.collatedTextMatch(.suffix, text, collation, suffix))
        }
        guard !suffix.isEmpty else { return glob("*") }
        // Written per dialect: the trailing bytes on SQLite, right() on PostgreSQL.
        return QueryExpression<Root, Bool>(SQLExpression(.function(
            SQLExpression.hasSuffixFunction, [sqlExpression, SQLExpression(.value(.text(suffix)))], distinct: false)))
    }

    /// Whether the text contains `substring`, case-sensitively, comparing
    /// Unicode scalars. Wildcard and NUL characters in `substring` are literal.
    ///
    /// Under the `NOCASE` collation, case is ignored as `lower()` ignores
    /// it: `instr(lower("name"), lower(CAST(? AS TEXT))) > 0` (ASCII letters
    /// on SQLite; all letters on PostgreSQL, whose `lower` follows the
    /// database's locale). Under another collation, SQL has no way to search
    /// with it, and the request throws an error that says so.
    public func contains(_ substring: String) -> QueryExpression<Root, Bool> {
        if case .collate(let text, let collation) = sqlExpression.node {
            return QueryExpression<Root, Bool>(SQLExpression.collatedTextMatch(.substring, text, collation, substring))
        }
        // instr() compares every byte, NUL included (GLOB stops at a NUL).
        return QueryExpression<Root, Bool>(SQLExpression(.infix(
            ">", SQLExpression(.function("instr", [sqlExpression, SQLExpression(.value(.text(substring)))], distinct: false)),
            SQLExpression(.value(.integer(0))))))
    }

    /// The text in lower case (ASCII letters only): SQL `lower()`.
    public var lowercased: QueryExpression<Root, Value> { QueryExpression(.function("lower", [sqlExpression])) }

    /// The text in upper case (ASCII letters only): SQL `upper()`.
    public var uppercased: QueryExpression<Root, Value> { QueryExpression(.function("upper", [sqlExpression])) }

    /// The number of characters: SQL `length()`.
    public var length: QueryExpression<Root, Int> { QueryExpression<Root, Int>(.function("length", [sqlExpression])) }

    /// Makes `*`, `?` and `[` literal in a GLOB pattern by putting them in brackets.
    ///
    /// Scalar by scalar: GLOB reads scalars, and a wildcard followed by a
    /// combining mark (`"[\u{301}"`) is a single `Character` in Swift.
    static func globEscaped(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "*": result.append(contentsOf: "[*]".unicodeScalars)
            case "?": result.append(contentsOf: "[?]".unicodeScalars)
            case "[": result.append(contentsOf: "[[]".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}

// MARK: - IN and BETWEEN from collections

extension Sequence {
    /// Whether the column's value is one of the elements: SQL `IN (?, ?, ...)`.
    ///
    /// ```swift
    /// Player.filter([1, 2, 3].contains(\.id))   // "id" IN (?, ?, ?)
    /// ```
    public func contains<Root: Decodable>(_ keyPath: KeyPath<Root, Element>) -> QueryExpression<Root, Bool> {
        QueryExpression(keyPath).in(self)
    }

    /// Whether the optional column's value is one of the elements: SQL `IN (?, ?, ...)`.
    public func contains<Root: Decodable>(_ keyPath: KeyPath<Root, Element?>) -> QueryExpression<Root, Bool> {
        let column = SQLExpression.column(keyPath)
        return QueryExpression<Root, Bool>(SQLExpression(.inList(column, map { .bound($0, in: Root.self, near: column) }, negated: false)))
    }

    /// Whether the expression's value is one of the elements: SQL `IN (?, ?, ...)`.
    public func contains<Root>(_ expression: QueryExpression<Root, Element>) -> QueryExpression<Root, Bool> {
        expression.in(self)
    }
}

extension ClosedRange {
    /// Whether the column's value is in the range: SQL `BETWEEN ? AND ?`.
    ///
    /// ```swift
    /// Player.filter((10...20).contains(\.score))   // "score" BETWEEN ? AND ?
    /// ```
    public func contains<Root: Decodable>(_ keyPath: KeyPath<Root, Bound>) -> QueryExpression<Root, Bool> {
        QueryExpression(keyPath).between(lowerBound, and: upperBound)
    }

    /// Whether the expression's value is in the range: SQL `BETWEEN ? AND ?`.
    public func contains<Root>(_ expression: QueryExpression<Root, Bound>) -> QueryExpression<Root, Bool> {
        expression.between(lowerBound, and: upperBound)
    }
}

extension Range {
    /// Whether the column's value is in the half-open range: SQL `>= ? AND < ?`.
    public func contains<Root: Decodable>(_ keyPath: KeyPath<Root, Bound>) -> QueryExpression<Root, Bool> {
        contains(QueryExpression(keyPath))
    }

    /// Whether the expression's value is in the half-open range: SQL `>= ? AND < ?`.
    public func contains<Root>(_ expression: QueryExpression<Root, Bound>) -> QueryExpression<Root, Bool> {
        expression >= lowerBound && expression < upperBound
    }
}
