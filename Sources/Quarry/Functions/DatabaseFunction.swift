// DatabaseFunction: a Swift function or aggregate callable from SQL
// (https://www.sqlite.org/c3ref/create_function.html).
//
// The Swift closure lives in a box retained for SQLite: the box is passed as
// the function's user data with one retain, and SQLite's destructor callback
// releases it when the function is replaced, removed, or the connection
// closes, and also when registration fails. So the closure lives exactly as
// long as SQLite may call it: no leak, no use after free.

import CSQLite
import Foundation

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
        let box = FunctionBox(function)
        let context = Unmanaged.passRetained(box).toOpaque()
        var flags = SQLITE_UTF8 | (function.isPure ? SQLITE_DETERMINISTIC : 0)
        if configuration.acceptsUntrustedFiles { flags |= SQLITE_DIRECTONLY }
        let code: Int32
        switch function.kind {
        case .scalar:
            code = sqlite3_create_function_v2(
                sqliteConnection, function.name, function.argumentCount ?? -1, flags, context,
                { context, count, values in FunctionBox.call(context, count, values) }, nil, nil,
                { context in FunctionBox.release(context) })
        case .aggregate:
            code = sqlite3_create_function_v2(
                sqliteConnection, function.name, function.argumentCount ?? -1, flags, context, nil,
                { context, count, values in FunctionBox.step(context, count, values) },
                { context in FunctionBox.finalize(context) },
                { context in FunctionBox.release(context) })
        }
        // On failure SQLite has called the destructor already.
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
                message: "could not add function \(function.name): \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
    }

    /// Removes a function added with ``add(function:)`` (same name and
    /// argument count).
    public func remove(function: DatabaseFunction) throws {
        let code = sqlite3_create_function_v2(
            sqliteConnection, function.name, function.argumentCount ?? -1, SQLITE_UTF8, nil, nil, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
                message: "could not remove function \(function.name): \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
    }
}

/// The function of one registration, retained for SQLite (see the top of this file).
private final class FunctionBox {
    let function: DatabaseFunction
    init(_ function: DatabaseFunction) { self.function = function }

    static func box(_ context: OpaquePointer?) -> FunctionBox? {
        guard let context, let pointer = sqlite3_user_data(context) else { return nil }
        return Unmanaged<FunctionBox>.fromOpaque(pointer).takeUnretainedValue()
    }

    static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<FunctionBox>.fromOpaque(pointer).release()
    }

    static func arguments(_ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
        guard let values, count > 0 else { return [] }
        return (0..<Int(count)).map { DatabaseValue(sqliteValue: values[$0]) }
    }

    // MARK: Scalar functions

    static func call(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let context, let box = box(context), case .scalar(let function) = box.function.kind else { return }
        do {
            setResult(context, try function(arguments(count, values)))
        } catch {
            setError(context, error)
        }
    }

    // MARK: Aggregates

    /// The accumulator of one group, kept in SQLite's aggregate context.
    final class Group {
        var aggregate: any DatabaseAggregate
        var error: (any Error)?
        init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
    }

    /// The group of the current row; made on the first step of a group.
    static func group(_ context: OpaquePointer, create: Bool) -> Group? {
        let size = Int32(create ? MemoryLayout<UnsafeMutableRawPointer?>.size : 0)
        guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        else { return nil }
        if let existing = slot.pointee { return Unmanaged<Group>.fromOpaque(existing).takeUnretainedValue() }
        guard create, let box = box(context), case .aggregate(let make) = box.function.kind else { return nil }
        let group = Group(make())
        slot.pointee = Unmanaged.passRetained(group).toOpaque()
        return group
    }

    static func step(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let context else { return }
        guard let group = group(context, create: true) else {
            sqlite3_result_error_nomem(context)
            return
        }
        guard group.error == nil else { return }
        do {
            try group.aggregate.step(arguments(count, values))
        } catch {
            group.error = error  // reported by finalize, which SQLite always calls
        }
    }

    static func finalize(_ context: OpaquePointer?) {
        guard let context else { return }
        let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        let group: Group
        if let pointer = slot?.pointee {
            group = Unmanaged<Group>.fromOpaque(pointer).takeRetainedValue()
            slot?.pointee = nil
        } else {
            // No row in the group: finalize a fresh aggregate.
            guard let box = box(context), case .aggregate(let make) = box.function.kind else { return }
            group = Group(make())
        }
        if let error = group.error {
            setError(context, error)
            return
        }
        do {
            setResult(context, try group.aggregate.finalize())
        } catch {
            setError(context, error)
        }
    }

    // MARK: Results

    static func setResult(_ context: OpaquePointer, _ result: (any DatabaseValueConvertible)?) {
        let value: DatabaseValue
        do {
            value = try result?.databaseValue ?? .null
        } catch {
            setError(context, error)
            return
        }
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let integer): sqlite3_result_int64(context, integer)
        case .real(let real): sqlite3_result_double(context, real)
        case .text(let text):
            var text = text
            text.withUTF8 { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    sqlite3_result_text(context, "", 0, SQLITE_TRANSIENT)
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { characters in
                    sqlite3_result_text64(context, characters, sqlite3_uint64(buffer.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { buffer in
                if let base = buffer.baseAddress, buffer.count > 0 {
                    sqlite3_result_blob64(context, base, sqlite3_uint64(buffer.count), SQLITE_TRANSIENT)
                } else {
                    sqlite3_result_zeroblob(context, 0)
                }
            }
        }
    }

    /// Makes the calling statement fail with `error`: a ``DatabaseError``
    /// keeps its code and message (a function can fail with
    /// `SQLITE_CONSTRAINT`, and callers match on it), any other error
    /// fails with `SQLITE_ERROR` and its description.
    static func setError(_ context: OpaquePointer, _ error: any Error) {
        if let error = error as? DatabaseError {
            sqlite3_result_error(context, error.message, -1)
            sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
        } else {
            sqlite3_result_error(context, "\(error)", -1)
        }
    }
}

extension DatabaseValue {
    /// Reads an SQL function argument.
    init(sqliteValue: OpaquePointer?) {
        switch sqlite3_value_type(sqliteValue) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(sqliteValue))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(sqliteValue))
        case SQLITE_TEXT:
            // sqlite3_value_text before sqlite3_value_bytes (https://www.sqlite.org/c3ref/value_blob.html).
            guard let text = sqlite3_value_text(sqliteValue) else {
                self = .text("")
                return
            }
            let count = Int(sqlite3_value_bytes(sqliteValue))
            self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(sqliteValue))
            if count > 0, let bytes = sqlite3_value_blob(sqliteValue) {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        default:
            self = .null
        }
    }
}
