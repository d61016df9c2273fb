// StatementArguments: the values bound to the `?` and `:name` parameters of a statement.
//
// Values are always bound through sqlite3_bind_*, never spliced into SQL text.

import Foundation

/// The values of the parameters of an SQL statement, positional, named, or both.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
/// try db.execute(sql: "UPDATE player SET score = :score WHERE name = :name",
///                arguments: ["name": "Arthur", "score": 110])
/// ```
///
/// Parameters are bound in order: `?` takes the next positional value;
/// `:name`, `@name` and `$name` take the named value, or the next positional
/// value when no name matches. A missing or an extra value throws a
/// ``DatabaseError`` that names the SQL.
/// See <https://www.sqlite.org/lang_expr.html#varparam>.
public struct StatementArguments: Sendable, Equatable, CustomStringConvertible,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// The positional values.
    public private(set) var values: [DatabaseValue]

    /// The named values, keyed by name without the `:`, `@` or `$` prefix.
    public private(set) var namedValues: [String: DatabaseValue]

    /// A value that could not be converted, reported when the arguments are bound.
    private var conversionError: (code: ResultCode, message: String)?

    /// No arguments.
    public init() {
        values = []
        namedValues = [:]
    }

    /// Positional arguments. `nil` is `NULL`.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self.init()
        append(values)
    }

    /// Named arguments. `nil` is `NULL`.
    public init(_ namedValues: [String: (any DatabaseValueConvertible)?]) {
        self.init()
        append(namedValues)
    }

    /// Positional arguments from database values.
    public init(databaseValues: [DatabaseValue]) {
        values = databaseValues
        namedValues = [:]
    }

    /// Positional arguments: `[1, "Arthur", nil]`.
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements)
    }

    /// Named arguments: `["name": "Arthur", "score": 100]`.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        self.init()
        for (name, value) in elements { set(name, value) }
    }

    /// Whether there are no arguments.
    public var isEmpty: Bool { values.isEmpty && namedValues.isEmpty }

    /// Appends positional values.
    public mutating func append(_ newValues: [(any DatabaseValueConvertible)?]) {
        values.reserveCapacity(values.count + newValues.count)
        for value in newValues { values.append(convert(value)) }
    }

    /// Adds named values, replacing values of the same names.
    public mutating func append(_ newNamedValues: [String: (any DatabaseValueConvertible)?]) {
        for (name, value) in newNamedValues { set(name, value) }
    }

    /// Appends positional values and adds named values of `other`.
    public mutating func append(contentsOf other: StatementArguments) {
        values += other.values
        namedValues.merge(other.namedValues) { _, new in new }
        if conversionError == nil { conversionError = other.conversionError }
    }

    /// The concatenation of two argument lists.
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.append(contentsOf: rhs)
        return result
    }

    /// Whether both hold the same values.
    public static func == (lhs: StatementArguments, rhs: StatementArguments) -> Bool {
        lhs.values == rhs.values && lhs.namedValues == rhs.namedValues
    }

    /// `[1, 'a']`, `[name: 'a']`, or both.
    public var description: String {
        var parts = values.map(\.description)
        parts += namedValues.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// The error of a value that could not be converted, if any.
    var conversionFailure: DatabaseError? {
        conversionError.map { DatabaseError(resultCode: $0.code, message: $0.message) }
    }

    private mutating func set(_ name: String, _ value: (any DatabaseValueConvertible)?) {
        var key = name
        if let first = key.unicodeScalars.first, first == ":" || first == "@" || first == "$" {
            key = String(key.unicodeScalars.dropFirst())
        }
        namedValues[key] = convert(value)
    }

    private mutating func convert(_ value: (any DatabaseValueConvertible)?) -> DatabaseValue {
        guard let value else { return .null }
        do {
            return try value.databaseValue
        } catch {
            if conversionError == nil {
                if let error = error as? DatabaseError {
                    conversionError = (error.extendedResultCode, error.message)
                } else {
                    conversionError = (.SQLITE_MISMATCH, "\(error)")
                }
            }
            return .null
        }
    }

    /// Binds the arguments to the parameters of a statement, starting with the
    /// positional value at `positionalIndex`, which is advanced past the values
    /// used. Checking for leftover values is the caller's job, since one list of
    /// arguments can feed several statements.
    func bind(to statement: Statement, positionalIndex: inout Int) throws {
        if let conversionError {
            throw DatabaseError(resultCode: conversionError.code, message: conversionError.message, sql: statement.sql)
        }
        let parameterCount = statement.parameterCount
        guard parameterCount > 0 else { return }
        for index in 1...parameterCount {
            var value: DatabaseValue?
            if let name = statement.parameterName(at: index) {
                // The prefix is one scalar (a combining mark after it would
                // join it in a single Character).
                let bareName = String(name.unicodeScalars.dropFirst())
                if name.unicodeScalars.first == "?" {
                    // ?NNN: an explicitly numbered positional parameter.
                    if let number = Int(bareName), number >= 1, number <= values.count {
                        value = values[number - 1]
                        positionalIndex = max(positionalIndex, number)
                    }
                } else if let named = namedValues[bareName] {
                    value = named
                } else if positionalIndex < values.count {
                    value = values[positionalIndex]
                    positionalIndex += 1
                }
                guard let value else {
                    throw DatabaseError.misuse("missing statement argument for parameter \(name)", sql: statement.sql)
                }
                try statement.bind(value, at: index)
            } else {
                guard positionalIndex < values.count else {
                    throw DatabaseError.misuse(
                        "wrong number of statement arguments: \(values.count) given, more are needed",
                        sql: statement.sql)
                }
                try statement.bind(values[positionalIndex], at: index)
                positionalIndex += 1
            }
        }
    }

    /// Throws if some positional values were not used by the statements.
    func checkAllPositionalValuesUsed(_ usedCount: Int, sql: String) throws {
        if usedCount < values.count {
            throw DatabaseError.misuse(
                "wrong number of statement arguments: \(values.count) given, \(usedCount) used", sql: sql)
        }
    }
}
