// Conformances of the standard library's value types to DatabaseValueConvertible.
//
// Integers and Bool are stored as INTEGER, Double and Float as REAL, String as
// TEXT. Each type also overrides the fast path so that reading a cell calls the
// matching sqlite3_column_* function directly: those overrides are SQLite's,
// in SQLite/StandardTypes+FromStatement.swift.

import Foundation

// MARK: - Integers

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Stores the integer, or throws if it does not fit in SQLite's 64-bit
    /// signed integer (a `UInt64` above `Int64.max`).
    public var databaseValue: DatabaseValue {
        get throws {
            guard let value = Int64(exactly: self) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISMATCH,
                    message: "\(Self.self) value \(self) does not fit in SQLite's 64-bit signed integer")
            }
            return .integer(value)
        }
    }

    /// Converts an integer, or an integral real, that fits in `Self`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        switch dbValue {
        case .integer(let value): return Self(exactly: value)
        case .real(let value): return Self(exactly: value)
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {}
extension Int8: DatabaseValueConvertible {}
extension Int16: DatabaseValueConvertible {}
extension Int32: DatabaseValueConvertible {}
extension Int64: DatabaseValueConvertible {}
extension UInt: DatabaseValueConvertible {}
extension UInt8: DatabaseValueConvertible {}
extension UInt16: DatabaseValueConvertible {}
extension UInt32: DatabaseValueConvertible {}
extension UInt64: DatabaseValueConvertible {}

// MARK: - Bool

extension Bool: DatabaseValueConvertible {
    /// 1 for `true`, 0 for `false`.
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }

    /// Any non-zero number is `true`, zero is `false`; other values are not Bool.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        switch dbValue {
        case .integer(let value): return value != 0
        case .real(let value): return value != 0
        default: return nil
        }
    }
}

// MARK: - Floating point

extension Double: DatabaseValueConvertible {
    /// A real value. NaN is stored as `NULL` by SQLite itself
    /// (<https://www.sqlite.org/c3ref/bind_blob.html>); infinities are stored as is.
    public var databaseValue: DatabaseValue { .real(self) }

    /// Converts a real or an integer.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
}

extension Float: DatabaseValueConvertible {
    /// A real value.
    public var databaseValue: DatabaseValue { .real(Double(self)) }

    /// Converts a real or an integer.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Float? {
        Double.fromDatabaseValue(dbValue).map(Float.init)
    }
}

// MARK: - String

extension String: DatabaseValueConvertible {
    /// A text value.
    public var databaseValue: DatabaseValue { .text(self) }

    /// Converts text; numbers and blobs are not strings.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        if case .text(let value) = dbValue { return value }
        return nil
    }
}

// MARK: - Data

extension Data: DatabaseValueConvertible {
    /// A blob value (an empty `Data` is an empty blob, not `NULL`).
    public var databaseValue: DatabaseValue { .blob(self) }

    /// Converts a blob, or the UTF-8 bytes of a text.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue {
        case .blob(let value): return value
        case .text(let value): return Data(value.utf8)
        default: return nil
        }
    }
}
