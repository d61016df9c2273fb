// DatabaseFunction: a Swift function or aggregate callable from SQL
// (https://www.sqlite.org/c3ref/create_function.html). SQLite's room
// registers it and calls it (SQLite/Database+SwiftFunctions.swift).

/// A function written in Swift and called from SQL: a scalar function, or an
/// aggregate (``DatabaseAggregate``).
///
/// ```swift
/// let slugify = DatabaseFunction("slugify", argumentCount: 1, pure: true) { values in
///     guard case .text(let text) = values[0] else { return nil }
///     return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
/// }
/// db.add(function: slugify)
/// try String.fetchOne(db, sql: "SELECT slugify(?)", arguments: ["Hello, World"])   // "hello-world"
/// Player.filter(slugify(\.name) == "jose")                                        // slugify("name") = ?
/// ```
///
/// Register functions on every connection of a queue or pool through
/// ``Configuration/prepareDatabase``: each connection of a ``DatabasePool``
/// (the writer and every reader, including readers opened later) runs it.
///
/// A Swift error thrown by the function fails the statement with
/// `SQLITE_ERROR` and the error's description as message; the connection
/// stays usable.
public struct DatabaseFunction: Sendable {
    /// The SQL name of the function.
    public let name: String
    /// The number of arguments, or nil for any number.
    public let argumentCount: Int32?
    /// Whether the function always returns the same result for the same
    /// arguments (`SQLITE_DETERMINISTIC`): it can then be used in indexes,
    /// CHECK constraints and generated columns, and SQLite may call it less often.
    public let isPure: Bool
    let kind: Kind

    enum Kind: Sendable {
        case scalar(@Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
        case aggregate(@Sendable () -> any DatabaseAggregate)
    }

    /// A scalar function.
    ///
    /// - parameters:
    ///   - name: the SQL name of the function.
    ///   - argumentCount: the number of arguments, or nil for any number.
    ///   - pure: whether the result depends on the arguments only
    ///     (`SQLITE_DETERMINISTIC`).
    ///   - function: computes the result from the arguments; return nil for `NULL`.
    public init(
        _ name: String, argumentCount: Int32? = nil, pure: Bool = false,
        function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.isPure = pure
        self.kind = .scalar(function)
    }

    /// An aggregate function: SQLite creates a new `Aggregate` for each group
    /// of rows, calls its `step` once per row, then `finalize`.
    ///
    /// ```swift
    /// let median = DatabaseFunction("median", argumentCount: 1, pure: true, aggregate: Median.self)
    /// ```
    ///
    /// - parameters:
    ///   - name: the SQL name of the function.
    ///   - argumentCount: the number of arguments, or nil for any number.
    ///   - pure: whether the result depends on the rows only (`SQLITE_DETERMINISTIC`).
    ///   - aggregate: the type that accumulates the rows of a group.
    public init<Aggregate: DatabaseAggregate>(
        _ name: String, argumentCount: Int32? = nil, pure: Bool = false, aggregate: Aggregate.Type
    ) {
        self.name = name
        self.argumentCount = argumentCount
        self.isPure = pure
        self.kind = .aggregate({ Aggregate() })
    }
}

/// An aggregate function written in Swift: a value that accumulates the rows
/// of one group.
///
/// ```swift
/// struct Median: DatabaseAggregate {
///     var values: [Double] = []
///     mutating func step(_ dbValues: [DatabaseValue]) throws {
///         if let value = Double.fromDatabaseValue(dbValues[0]) { values.append(value) }
///     }
///     func finalize() throws -> (any DatabaseValueConvertible)? {
///         guard !values.isEmpty else { return nil }
///         let sorted = values.sorted(), middle = sorted.count / 2
///         return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
///     }
/// }
/// ```
///
/// A new value is made for each group, with `init()`. A group with no rows
/// (an aggregate over an empty table) is finalized without any step.
public protocol DatabaseAggregate: SendableMetatype {
    /// An empty accumulator.
    init()
    /// Adds the arguments of one row.
    mutating func step(_ dbValues: [DatabaseValue]) throws
    /// The result of the group; nil for `NULL`.
    func finalize() throws -> (any DatabaseValueConvertible)?
}

extension Database {
    /// Makes `function` callable from SQL on this connection, replacing a
    /// function of the same name and argument count.
    ///
    /// To register it on every connection of a queue or pool, call it from
    /// ``Configuration/prepareDatabase``.
    ///
    /// With ``Configuration/acceptsUntrustedFiles``, the function is
    /// registered `SQLITE_DIRECTONLY`: a view or trigger of the file that
    /// calls it fails, so that a hostile file cannot make it run from
    /// there. (SQLite 3.40.1 still evaluates a `CHECK` constraint that
    /// calls it.)
    public func add(function: DatabaseFunction) throws {
        try require(.swiftFunctions, "custom SQL functions (add(function:))")
        switch function.kind {
        case .scalar(let call):
            try createSQLiteFunction(function.name, argumentCount: function.argumentCount, pure: function.isPure, call: call)
        case .aggregate(let make):
            try createSQLiteAggregate(
                function.name, argumentCount: function.argumentCount, pure: function.isPure, make: make,
                step: { aggregate, arguments in try aggregate.step(arguments) }, finalize: { try $0.finalize() })
        }
    }

    /// Removes a function added with ``add(function:)`` (same name and
    /// argument count).
    public func remove(function: DatabaseFunction) throws {
        try removeSQLiteFunction(function.name, argumentCount: function.argumentCount)
    }
}
