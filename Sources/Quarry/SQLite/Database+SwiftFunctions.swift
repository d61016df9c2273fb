// SQLite's side of Swift collations and SQL functions (Functions/DatabaseCollation.swift,
// Functions/DatabaseFunction.swift): their registration, and the C callbacks
// through which SQLite calls the Swift code
// (https://www.sqlite.org/c3ref/create_collation.html,
// https://www.sqlite.org/c3ref/create_function.html).
//
// The Swift code lives in a box retained for SQLite: the box is passed as the
// user data with one retain, and SQLite's destructor callback releases it when
// the collation or function is replaced, removed, or the connection closes,
// and when a function's registration fails. So the code lives exactly as long
// as SQLite may call it: no leak, no use after free.

import CSQLite
import Foundation

extension Database {
    /// Makes `compare` the collation `name` of this connection, replacing a
    /// collation of the same name.
    func createSQLiteCollation(_ name: String, compare: @escaping @Sendable (String, String) -> ComparisonResult) throws {
        let context = Unmanaged.passRetained(CollationBox(compare)).toOpaque()
        let code = sqlite3_create_collation_v2(
            sqliteConnection, name, SQLITE_UTF8, context,
            { context, count1, bytes1, count2, bytes2 in CollationBox.compare(context, count1, bytes1, count2, bytes2) },
            { context in
                guard let context else { return }
                Unmanaged<CollationBox>.fromOpaque(context).release()
            })
        // Unlike sqlite3_create_function_v2, a failed registration does not
        // call the destructor: release the box here.
        if code != SQLITE_OK { Unmanaged<CollationBox>.fromOpaque(context).release() }
        try checkRegistration(code, "add collation \(name)")
    }

    /// Removes the collation `name` of this connection.
    func removeSQLiteCollation(_ name: String) throws {
        try checkRegistration(
            sqlite3_create_collation_v2(sqliteConnection, name, SQLITE_UTF8, nil, nil, nil), "remove collation \(name)")
    }

    /// Makes `call` the scalar function `name` of this connection (any
    /// number of arguments when `argumentCount` is nil), replacing a function
    /// of the same name and argument count.
    func createSQLiteFunction(
        _ name: String, argumentCount: Int32?, pure: Bool,
        call: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?
    ) throws {
        let box = FunctionBox(call: { context, count, values in
            do {
                setResult(context, try call(arguments(count, values))?.databaseValue ?? .null)
            } catch {
                setError(context, error)
            }
        })
        try createSQLiteFunction(name, argumentCount, pure, box)
    }

    /// Makes the aggregate function `name` of this connection: `make` starts
    /// each group of rows, `step` adds a row to it, `finalize` gives its result.
    func createSQLiteAggregate<Accumulator>(
        _ name: String, argumentCount: Int32?, pure: Bool, make: @escaping () -> Accumulator,
        step: @escaping (inout Accumulator, [DatabaseValue]) throws -> Void,
        finalize: @escaping (Accumulator) throws -> (any DatabaseValueConvertible)?
    ) throws {
        let box = FunctionBox(step: { context, count, values in
            guard let slot = groupSlot(context, create: true) else {
                sqlite3_result_error_nomem(context)
                return
            }
            let group: AggregateGroup<Accumulator>
            if let pointer = slot.pointee {
                group = Unmanaged.fromOpaque(pointer).takeUnretainedValue()
            } else {
                group = AggregateGroup(make())  // the group's first row
                slot.pointee = Unmanaged.passRetained(group).toOpaque()
            }
            guard group.error == nil else { return }
            do {
                try step(&group.accumulator, arguments(count, values))
            } catch {
                group.error = error  // reported by finalize, which SQLite always calls
            }
        }, finalize: { context in
            let slot = groupSlot(context, create: false)
            // No row in the group: finalize a fresh aggregate.
            let group = slot?.pointee.map { Unmanaged<AggregateGroup<Accumulator>>.fromOpaque($0).takeRetainedValue() }
                ?? AggregateGroup(make())
            slot?.pointee = nil
            do {
                if let error = group.error { throw error }
                setResult(context, try finalize(group.accumulator)?.databaseValue ?? .null)
            } catch {
                setError(context, error)
            }
        })
        try createSQLiteFunction(name, argumentCount, pure, box)
    }

    /// Registers `box` with the callbacks it has: `call`, or `step` and `finalize`.
    private func createSQLiteFunction(_ name: String, _ argumentCount: Int32?, _ pure: Bool, _ box: FunctionBox) throws {
        var flags = SQLITE_UTF8 | (pure ? SQLITE_DETERMINISTIC : 0)
        if configuration.acceptsUntrustedFiles { flags |= SQLITE_DIRECTONLY }
        let code = sqlite3_create_function_v2(
            sqliteConnection, name, argumentCount ?? -1, flags, Unmanaged.passRetained(box).toOpaque(),
            box.call == nil ? nil : { context, count, values in
                if let context { FunctionBox.of(context)?.call?(context, count, values) }
            },
            box.step == nil ? nil : { context, count, values in
                if let context { FunctionBox.of(context)?.step?(context, count, values) }
            },
            box.finalize == nil ? nil : { context in if let context { FunctionBox.of(context)?.finalize?(context) } },
            { context in if let context { Unmanaged<FunctionBox>.fromOpaque(context).release() } })
        // On failure SQLite has called the destructor already.
        try checkRegistration(code, "add function \(name)")
    }

    /// Removes the function `name` with `argumentCount` arguments (nil: any
    /// number) of this connection.
    func removeSQLiteFunction(_ name: String, argumentCount: Int32?) throws {
        let code = sqlite3_create_function_v2(
            sqliteConnection, name, argumentCount ?? -1, SQLITE_UTF8, nil, nil, nil, nil, nil)
        try checkRegistration(code, "remove function \(name)")
    }

    /// Throws SQLite's error when a registration (`code`) failed; `action`
    /// names what failed in the message ("could not add collation x: ...").
    private func checkRegistration(_ code: Int32, _ action: @autoclosure () -> String) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(sqliteConnection)),
                message: "could not \(action()): \(String(cString: sqlite3_errmsg(sqliteConnection)))")
        }
    }
}

/// The comparison of one collation, retained for SQLite (see the top of this file).
private final class CollationBox {
    let compare: @Sendable (String, String) -> ComparisonResult
    init(_ compare: @escaping @Sendable (String, String) -> ComparisonResult) { self.compare = compare }

    static func compare(
        _ context: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32,
        _ bytes2: UnsafeRawPointer?
    ) -> Int32 {
        guard let context else { return 0 }
        let box = Unmanaged<CollationBox>.fromOpaque(context).takeUnretainedValue()
        switch box.compare(text(bytes1, count1), text(bytes2, count2)) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    private static func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
}

/// One function's callbacks, retained for SQLite (see the top of this
/// file): `call` for a scalar function, `step` and `finalize` for an aggregate.
private final class FunctionBox {
    typealias Callback = (OpaquePointer, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let call, step: Callback?
    let finalize: ((OpaquePointer) -> Void)?

    init(call: Callback? = nil, step: Callback? = nil, finalize: ((OpaquePointer) -> Void)? = nil) {
        (self.call, self.step, self.finalize) = (call, step, finalize)
    }

    /// The box of the function SQLite is calling: its user data.
    static func of(_ context: OpaquePointer) -> FunctionBox? {
        sqlite3_user_data(context).map { Unmanaged<FunctionBox>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The accumulator of one group of rows of an aggregate, retained by the
/// slot of SQLite's aggregate context from the group's first step to its
/// finalize.
private final class AggregateGroup<Accumulator> {
    var accumulator: Accumulator
    var error: (any Error)?
    init(_ accumulator: Accumulator) { self.accumulator = accumulator }
}

/// The slot of SQLite's aggregate context that holds the current group;
/// `create` allocates it (zeroed) on the group's first step.
private func groupSlot(_ context: OpaquePointer, create: Bool) -> UnsafeMutablePointer<UnsafeMutableRawPointer?>? {
    let size = create ? Int32(MemoryLayout<UnsafeMutableRawPointer?>.size) : 0
    return sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
}

// MARK: Arguments and results

private func arguments(_ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
    guard let values, count > 0 else { return [] }
    return (0..<Int(count)).map { DatabaseValue(sqliteValue: values[$0]) }
}

private func setResult(_ context: OpaquePointer, _ value: DatabaseValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let integer): sqlite3_result_int64(context, integer)
    case .real(let real): sqlite3_result_double(context, real)
    case .text(let text):
        sqlite3_result_text64(context, text, sqlite3_uint64(text.utf8.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
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
private func setError(_ context: OpaquePointer, _ error: any Error) {
    if let error = error as? DatabaseError {
        sqlite3_result_error(context, error.message, -1)
        sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
    } else {
        sqlite3_result_error(context, "\(error)", -1)
    }
}

extension DatabaseValue {
    /// Reads an SQL function argument.
    fileprivate init(sqliteValue: OpaquePointer?) {
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
