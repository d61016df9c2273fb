// SQL: SQL text written as a Swift string literal, whose interpolations are
// bound as statement arguments or quoted as identifiers, never pasted as text.
//
//     let sql: SQL = "UPDATE player SET score = \(score) WHERE id = \(id)"
//     // UPDATE player SET score = ? WHERE id = ?   [score, id]
//
// The literal keeps its pieces (text, values, expressions, identifiers,
// lists) until SQLGenerationContext renders them, so that an interpolated
// expression or request is generated like any other: its columns quoted and
// qualified, its values bound. This file has the interpolations of values and
// of SQL; QueryInterface/SQLInterpolation+QueryInterface.swift adds record
// types, key paths, expressions and requests.

/// SQL text with bound values, written as a string literal with
/// interpolations.
///
/// Each interpolated value becomes a `?` placeholder bound to it, so that a
/// value never changes the meaning of the SQL, whatever it contains:
///
/// ```swift
/// let name = "O'Brien; DROP TABLE player"
/// try db.execute(literal: "INSERT INTO player (name, score) VALUES (\(name), \(10))")
/// // INSERT INTO player (name, score) VALUES (?, ?)   ["O'Brien; DROP TABLE player", 10]
/// ```
///
/// What can be interpolated:
///
/// | Interpolation | Becomes |
/// | --- | --- |
/// | `\(value)` (any ``DatabaseValueConvertible``, or nil) | `?`, bound to the value |
/// | `\(ids)` (a sequence of values) | `(?, ?, ?)`, for `IN` |
/// | `\(Player.self)` (a ``TableRecord`` type) | `"player"`, the quoted table name |
/// | `\(\Player.score)` (a key path of a record) | `"score"`, the quoted column |
/// | `\(Column("score"))`, `\(expression)` | the expression's SQL, values bound |
/// | `\(request)` (a ``QueryRequest``) | `SELECT …`, without parentheses: write `IN (\(request))` or `= (\(request))` |
/// | `\(identifier: name)` | the quoted identifier |
/// | `\(sql: "…", arguments: …)` | the raw SQL, with its arguments |
/// | `\(literal: other)` or `\(other)` (an `SQL`) | the other literal |
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// One piece of a literal.
    package enum Element: Sendable {
        /// SQL text, used as written.
        case text(String)
        /// An expression: a bound value, a column, a subquery…
        case expression(SQLExpression)
        /// An identifier, quoted when rendered.
        case identifier(String)
        /// `(a, b, c)`: a parenthesized list, for `IN`.
        case list([SQLExpression])
        /// `SELECT …`: a request's query, without parentheses (as GRDB
        /// interpolates requests), so that `IN (\(request))` reads every row.
        case query(SQLSelectQuery)
    }

    var elements: [Element]

    package init(elements: [Element]) {
        self.elements = elements
    }

    /// SQL text without interpolations.
    public init(stringLiteral value: String) {
        elements = value.isEmpty ? [] : [.text(value)]
    }

    /// SQL text with interpolations.
    public init(stringInterpolation: SQLInterpolation) {
        elements = stringInterpolation.elements
    }

    /// Raw SQL with positional (`?`) or named (`:name`) parameters bound to
    /// `arguments`.
    ///
    /// The SQL is used as written: never build it from user input.
    public init(sql: String, arguments: StatementArguments = StatementArguments()) {
        if arguments.isEmpty {
            elements = sql.isEmpty ? [] : [.text(sql)]
        } else {
            elements = [.expression(SQLExpression(sql: sql, arguments: arguments))]
        }
    }

    /// An expression of the query interface, as a literal.
    public init(_ expression: SQLExpression) {
        elements = [.expression(expression)]
    }

    /// Whether the literal holds no SQL at all.
    public var isEmpty: Bool {
        elements.allSatisfy { element in
            if case .text(let text) = element { return text.isEmpty }
            return false
        }
    }

    /// Appends `other`.
    public mutating func append(_ other: SQL) {
        elements += other.elements
    }

    /// Appends `other`, GRDB's spelling of ``append(_:)``:
    ///
    /// ```swift
    /// var sql: SQL = "SELECT * FROM player"
    /// sql.append(literal: " WHERE score > \(10)")   // SELECT * FROM player WHERE score > ?
    /// ```
    public mutating func append(literal other: SQL) {
        append(other)
    }

    /// Appends raw SQL (never built from user input).
    public mutating func append(sql: String, arguments: StatementArguments = StatementArguments()) {
        append(SQL(sql: sql, arguments: arguments))
    }

    /// `lhs` followed by `rhs`.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(elements: lhs.elements + rhs.elements)
    }

    /// Appends `rhs` to `lhs`.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.append(rhs)
    }

    /// The elements of `literals` separated by `separator`: `", "` joins a
    /// list of columns or values.
    public static func joined(_ literals: some Sequence<SQL>, separator: SQL) -> SQL {
        var result = SQL(elements: [])
        for (index, literal) in literals.enumerated() {
            if index > 0 { result.append(separator) }
            result.append(literal)
        }
        return result
    }

    /// The SQL text and arguments of the literal, as it runs on `db`.
    ///
    /// ```swift
    /// let generated = try SQL("SELECT * FROM \(Player.self) WHERE id = \(1)").sql(db)
    /// // SELECT * FROM "player" WHERE id = ?   [1]
    /// ```
    public func sql(_ db: Database) throws -> GeneratedSQL {
        let context = SQLGenerationContext(db: db)
        let text = try context.sql(self)
        return GeneratedSQL(sql: text, arguments: StatementArguments(databaseValues: context.arguments))
    }

    /// The literal with its interpolations shown as placeholders, for
    /// debugging: `SELECT * FROM player WHERE id = ?`.
    public var description: String {
        let context = SQLGenerationContext(db: nil)
        return (try? context.sql(self)) ?? "<invalid SQL literal>"
    }
}

/// The interpolations of an ``SQL`` literal. Each one is documented at
/// ``SQL``; the compiler calls these methods, you write `\(…)`.
public struct SQLInterpolation: StringInterpolationProtocol, Sendable {
    var elements: [SQL.Element] = []

    /// Starts an interpolation.
    public init(literalCapacity: Int, interpolationCount: Int) {
        elements.reserveCapacity(interpolationCount * 2 + 1)
    }

    /// Appends SQL text.
    public mutating func appendLiteral(_ literal: String) {
        if !literal.isEmpty { elements.append(.text(literal)) }
    }

    /// Appends `?`, bound to `value` (`NULL` for nil).
    public mutating func appendInterpolation(_ value: (any DatabaseValueConvertible)?) {
        elements.append(.expression(SQLExpression.bound(value)))
    }

    /// Appends `?`, bound to the text.
    public mutating func appendInterpolation<S: StringProtocol>(_ string: S) {
        elements.append(.expression(.value(.text(String(string)))))
    }

    /// Appends `(?, ?, …)`, each placeholder bound to one element, for `IN`.
    /// An empty sequence gives `()`, which SQLite accepts: `x IN ()` is false.
    @_disfavoredOverload
    public mutating func appendInterpolation<S: Sequence>(_ values: S) where S.Element: DatabaseValueConvertible {
        elements.append(.list(values.map { SQLExpression.bound($0) }))
    }

    /// Appends `(?, ?, …)` for a sequence of optional values.
    @_disfavoredOverload
    public mutating func appendInterpolation<S: Sequence, Wrapped: DatabaseValueConvertible>(_ values: S)
    where S.Element == Wrapped? {
        elements.append(.list(values.map { SQLExpression.bound($0) }))
    }

    /// Appends an expression of the query interface.
    public mutating func appendInterpolation(_ expression: SQLExpression) {
        elements.append(.expression(expression))
    }

    /// Appends another literal.
    public mutating func appendInterpolation(_ literal: SQL) {
        elements += literal.elements
    }

    /// Appends another literal.
    public mutating func appendInterpolation(literal: SQL) {
        elements += literal.elements
    }

    /// Appends raw SQL with its arguments (never built from user input).
    public mutating func appendInterpolation(sql: String, arguments: StatementArguments = StatementArguments()) {
        elements += SQL(sql: sql, arguments: arguments).elements
    }

    /// Appends a quoted identifier: a table, column or alias name that is
    /// not known until run time.
    public mutating func appendInterpolation(identifier: String) {
        elements.append(.identifier(identifier))
    }
}

extension SQLExpression {
    /// A bound value; a value that fails to convert makes SQL generation
    /// throw its error.
    static func bound(_ value: (any DatabaseValueConvertible)?) -> SQLExpression {
        guard let value else { return .value(.null) }
        do {
            return .value(try value.databaseValue)
        } catch {
            return SQLExpression(.invalid(error))
        }
    }
}

extension SQLGenerationContext {
    /// The SQL of a literal: its text, with each interpolation rendered.
    func sql(_ literal: SQL) throws -> String {
        var text = ""
        for element in literal.elements {
            switch element {
            case .text(let piece):
                text += piece
            case .expression(let expression):
                text += try sql(expression)
            case .identifier(let name):
                text += name.quotedDatabaseIdentifier
            case .list(let items):
                text += "(" + (try items.map { try sql($0) }.joined(separator: ", ")) + ")"
            case .query(let query):
                text += try selectSQL(query)
            }
        }
        return text
    }
}
