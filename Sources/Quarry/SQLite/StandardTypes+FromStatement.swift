// StandardTypes+FromStatement: the SQLite fast paths of DatabaseValueConvertible
// (`fromStatement(_:index:)`), which read a column of the current row straight
// from an SQLite statement with the matching sqlite3_column_* function, without
// building a `DatabaseValue` first. The protocol requirement is declared in
// Core/DatabaseValueConvertible.swift; the slow paths (`fromDatabaseValue(_:)`)
// are there and in Core/StandardTypes+DatabaseValueConvertible.swift.

import CSQLite
import Foundation

extension DatabaseValueConvertible {
    /// The default fast path: builds a ``DatabaseValue`` and converts it.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Self? {
        fromDatabaseValue(DatabaseValue(sqliteStatement: sqliteStatement, index: index))
    }
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// Reads the raw value with its own fast path, then makes the case.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Self? {
        RawValue.fromStatement(sqliteStatement, index: index).flatMap(Self.init(rawValue:))
    }
}

// MARK: - Integers

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Reads an integer column with `sqlite3_column_int64`; other columns go
    /// through ``DatabaseValue``.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Self? {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_INTEGER {
            return Self(exactly: sqlite3_column_int64(sqliteStatement, index))
        }
        return fromDatabaseValue(DatabaseValue(sqliteStatement: sqliteStatement, index: index))
    }
}

// MARK: - Bool

extension Bool {
    /// Reads an integer column with `sqlite3_column_int64`.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Bool? {
        if sqlite3_column_type(sqliteStatement, index) == SQLITE_INTEGER {
            return sqlite3_column_int64(sqliteStatement, index) != 0
        }
        return fromDatabaseValue(DatabaseValue(sqliteStatement: sqliteStatement, index: index))
    }
}

// MARK: - Floating point

extension Double {
    /// Reads a numeric column with `sqlite3_column_double`.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Double? {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_column_double(sqliteStatement, index)
        default: return nil
        }
    }
}

extension Float {
    /// Reads a numeric column with `sqlite3_column_double`.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Float? {
        Double.fromStatement(sqliteStatement, index: index).map(Float.init)
    }
}

// MARK: - String

extension String {
    /// Reads a text column with `sqlite3_column_text`.
    public static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> String? {
        guard sqlite3_column_type(sqliteStatement, index) == SQLITE_TEXT else { return nil }
        return String.fromColumnText(sqliteStatement, index)
    }
}
