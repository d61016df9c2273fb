// DatabaseValueConvertible: how a Swift type becomes a database value and back.
//
// The protocol has a slow, general path (through `DatabaseValue`) and a fast
// path that reads a column straight from a statement without building a
// `DatabaseValue` first. Row fetching and the record decoder use the fast path
// for every cell, so the standard conformances override it. The fast paths
// are SQLite's: they live in SQLite/StandardTypes+FromStatement.swift.

import Foundation

/// A type that can be stored in a single database column and read back.
///
/// Quarry provides conformances for `Bool`, all fixed-width integers, `Double`,
/// `Float`, `String`, `Data`, `Date`, `UUID`, `URL`, `Decimal` and
/// `DatabaseValue` itself. An enum with raw values gets a conformance by
/// declaring it:
///
/// ```swift
/// enum Color: String, DatabaseValueConvertible {
///     case red, green
/// }
/// let colors = try Color.fetchAll(db, sql: "SELECT color FROM paint")
/// ```
///
/// A conversion that cannot be done is never silent: writing a `UInt64` larger
/// than `Int64.max` throws, and reading a value of the wrong type throws a
/// ``RowDecodingError`` that names the column and the expected type.
public protocol DatabaseValueConvertible: Sendable {
    /// The database value that stores `self`.
    ///
    /// Throws when `self` has no faithful representation in SQLite
    /// (for example a `UInt64` above `Int64.max`).
    var databaseValue: DatabaseValue { get throws }

    /// Returns the value stored in `dbValue`, or nil if `dbValue` does not hold
    /// a value of this type (including `NULL`).
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// Fast path: reads the value of a column of the current row of a statement.
    ///
    /// Quarry calls this method only for columns that are not `NULL`. Return nil
    /// if the column does not hold a value of this type. The default
    /// implementation goes through ``fromDatabaseValue(_:)``.
    ///
    /// - parameters:
    ///   - sqliteStatement: A statement positioned on a row
    ///     (<https://www.sqlite.org/c3ref/column_blob.html>).
    ///   - index: The zero-based column index.
    static func fromStatement(_ sqliteStatement: OpaquePointer, index: Int32) -> Self?
}

// MARK: - RawRepresentable

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    /// The database value of the raw value.
    public var databaseValue: DatabaseValue {
        get throws { try rawValue.databaseValue }
    }

    /// The case whose raw value is stored in `dbValue`, if any.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(dbValue).flatMap(Self.init(rawValue:))
    }
}

// MARK: - DatabaseValue

extension DatabaseValue: DatabaseValueConvertible {
    /// `self`.
    public var databaseValue: DatabaseValue { self }

    /// `dbValue`, unless it is `NULL`.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? {
        dbValue.isNull ? nil : dbValue
    }
}
