// Row: a copied database row, with typed access by column name or index.

import Foundation

/// A database row: the values of one result row, with their column names.
///
/// ```swift
/// let row = try Row.fetchOne(db, sql: "SELECT name, score, team_id FROM player")!
/// let name: String = try row["name"]
/// let score: Int = try row[1]
/// let teamID: Int64? = try row["team_id"]     // nil for NULL
/// ```
///
/// Column names are matched as SQLite matches them: case-insensitively for
/// ASCII letters only (`"NAME"` finds `name`, `"É"` does not find `é`), and
/// when several columns match, the leftmost one wins (`SELECT 1 AS name,
/// 2 AS NAME` gives 1 for both `row["name"]` and `row["NAME"]`). Reading a column that
/// does not exist, `NULL` into a non-optional type, or a value that does not
/// convert throws a ``RowDecodingError`` that names the column and the type.
///
/// A row is a value: it holds copies of the database values, so it can be kept
/// and sent across tasks after the database access has ended.
public struct Row: Sendable, Hashable, CustomStringConvertible {
    /// The column names, shared by all rows of one fetch.
    let layout: RowLayout

    /// The values of the row, in column order.
    public let databaseValues: [DatabaseValue]

    /// The rows of the named scopes that a ``RowAdapter`` gave the row: the
    /// columns of each table of a raw-SQL join, for example (empty without
    /// an adapter). Scopes are not compared by ``==(_:_:)``.
    ///
    /// ```swift
    /// let team = try row.scopes["team"].map(Team.init(row:))
    /// ```
    public internal(set) var scopes: [String: Row] = [:]

    /// Creates a row from column names and values, paired in order.
    ///
    /// Throws if there are not as many names as values.
    public init(columnNames: [String], databaseValues: [DatabaseValue]) throws {
        guard columnNames.count == databaseValues.count else {
            throw DatabaseError.misuse("a row needs as many column names (\(columnNames.count)) as values (\(databaseValues.count))")
        }
        self.init(layout: RowLayout(columnNames: columnNames), databaseValues: databaseValues)
    }

    init(layout: RowLayout, databaseValues: [DatabaseValue]) {
        self.layout = layout
        self.databaseValues = databaseValues
    }

    /// The column names, in order.
    public var columnNames: [String] { layout.columnNames }

    /// The number of columns.
    public var count: Int { databaseValues.count }

    /// Whether the row has a column with this name (case-insensitive).
    public func hasColumn(_ name: String) -> Bool { layout.index(of: name) != nil }

    /// The database value at `index`. Throws if the index is out of range.
    public subscript(_ index: Int) -> DatabaseValue {
        get throws { try databaseValue(at: index, expectedType: DatabaseValue.self) }
    }

    /// The database value of the column named `name`. Throws if there is no such column.
    public subscript(_ name: String) -> DatabaseValue {
        get throws { try databaseValues[columnIndex(name, expectedType: DatabaseValue.self)] }
    }

    /// The value at `index`, converted to `Value`.
    ///
    /// Throws for an index out of range, `NULL`, or a value that does not convert.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        get throws { try convert(databaseValue(at: index, expectedType: Value.self), column: index) }
    }

    /// The value at `index`, converted to `Value`, or nil for `NULL`.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value? {
        get throws {
            let value = try databaseValue(at: index, expectedType: Value.self)
            return value.isNull ? nil : try convert(value, column: index) as Value
        }
    }

    /// The value of the column named `name`, converted to `Value`.
    ///
    /// Throws for a missing column, `NULL`, or a value that does not convert.
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        get throws {
            let index = try columnIndex(name, expectedType: Value.self)
            return try convert(databaseValues[index], column: index)
        }
    }

    /// The value of the column named `name`, converted to `Value`, or nil for `NULL`.
    ///
    /// Throws for a missing column or a value that does not convert.
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value? {
        get throws {
            let index = try columnIndex(name, expectedType: Value.self)
            let value = databaseValues[index]
            return value.isNull ? nil : try convert(value, column: index) as Value
        }
    }

    /// `[name: 'Arthur', score: 100]`.
    public var description: String {
        "[" + zip(columnNames, databaseValues).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }

    /// Whether both rows have the same column names and values.
    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.columnNames == rhs.columnNames && lhs.databaseValues == rhs.databaseValues
    }

    /// Hashes the column names and values, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(databaseValues)
    }

    // MARK: - Private

    private func databaseValue(at index: Int, expectedType: Any.Type) throws -> DatabaseValue {
        guard databaseValues.indices.contains(index) else {
            throw RowDecodingError(
                reason: .indexOutOfRange, column: "#\(index)", expectedType: "\(expectedType)",
                availableColumns: columnNames)
        }
        return databaseValues[index]
    }

    private func columnIndex(_ name: String, expectedType: Any.Type) throws -> Int {
        guard let index = layout.index(of: name) else {
            throw RowDecodingError(
                reason: .columnNotFound, column: name, expectedType: "\(expectedType)", availableColumns: columnNames)
        }
        return index
    }

    private func convert<Value: DatabaseValueConvertible>(_ value: DatabaseValue, column index: Int) throws -> Value {
        if value.isNull {
            throw RowDecodingError(reason: .unexpectedNull, column: columnNames[index], expectedType: "\(Value.self)")
        }
        guard let converted = Value.fromDatabaseValue(value) else {
            throw RowDecodingError(
                reason: .valueMismatch(value), column: columnNames[index], expectedType: "\(Value.self)")
        }
        return converted
    }
}

/// The column names of a set of rows, with a case-insensitive index, computed
/// once per fetch and shared by every row of it.
final class RowLayout: Sendable {
    let columnNames: [String]
    private let exactIndexes: [String: Int]
    private let lowercasedIndexes: [String: Int]

    init(columnNames: [String]) {
        self.columnNames = columnNames
        var folded: [String: Int] = [:]
        for (index, name) in columnNames.enumerated() {
            let key = name.asciiLowercased
            if folded[key] == nil { folded[key] = index }
        }
        // The exact spelling of each column leads to the leftmost column of
        // its case-folded name: `SELECT 1 AS name, 2 AS NAME` reads "NAME" at
        // index 0, as SQLite does.
        var exact: [String: Int] = [:]
        for name in columnNames where exact[name] == nil {
            exact[name] = folded[name.asciiLowercased]
        }
        exactIndexes = exact
        lowercasedIndexes = folded
    }

    /// The index of the leftmost column named `name`, compared as SQLite
    /// compares identifiers: case-insensitively for ASCII letters only
    /// (<https://www.sqlite.org/lang_keywords.html>).
    func index(of name: String) -> Int? {
        exactIndexes[name] ?? lowercasedIndexes[name.asciiLowercased]
    }
}
