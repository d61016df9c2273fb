// SQLite's side of Swift collations and SQL functions (Functions/DatabaseCollation.swift,
// Functions/DatabaseFunction.swift): their registration, and the C callbacks
// through which SQLite calls the Swift code
// (https://www.sqlite.org/c3ref/create_collation.html,
// https://www.sqlite.org/c3ref/create_function.html).
//
// The Swift code lives in a box retained for SQLite: the box is passed as the
// user data with one retain, and SQLite's destructor callback releases it when
// the collation or function is replaced, removed, or the connection closes.
// So the code lives exactly as long as SQLite may call it: no leak, no use
// after free.

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
