// SchemaMismatch: one difference between a record type and its live table,
// found by the start-up schema check (Database+SchemaCheck.swift): what
// differs, where, what was expected and found, and a one-line description.

/// One difference between a record type and its table, found by
/// `Database.checkSchema(of:)`.
///
/// ```swift
/// print(mismatch)
/// // Player: table "player" has no column "score" (expected a column for Int): Player reads and writes it
/// mismatch.kind     // .missingColumn
/// mismatch.column   // "score"
/// ```
public struct SchemaMismatch: Hashable, Sendable, CustomStringConvertible {
    /// What differs.
    public enum Kind: String, Hashable, Sendable {
        /// The record's table (or view) does not exist.
        case missingTable
        /// A column the record reads (a non-optional property) or writes is
        /// not in the table.
        case missingColumn
        /// A non-optional property is read from a column that may hold NULL:
        /// fetching a row where it is NULL fails.
        case nullableColumn
        /// The property's type cannot read the values of the column's
        /// declared type (an `Int` property over a TEXT column), or, on
        /// PostgreSQL, the server refuses the value the property writes
        /// (bytes of a `Data` property in a `uuid` column).
        case incompatibleType
        /// A NOT NULL column without a default that the record never writes:
        /// inserting the record fails.
        case unwrittenColumn
        /// Quarry could not learn the record's columns (its `init(from:)`
        /// refuses every value Quarry tries); its table was found.
        case uninspectableRecord
    }

    /// What differs.
    public let kind: Kind
    /// The record type, as Swift prints it (`Player`).
    public let recordType: String
    /// The table of the record (its ``TableRecord/databaseTableName``).
    public let table: String
    /// The column, or nil when the mismatch is about the whole table.
    public let column: String?
    /// What the record needs (`"a column for Int"`, `"NOT NULL"`, `"INTEGER or REAL"`).
    public let expected: String
    /// What the database has (`"no such column"`, `"nullable"`, `"TEXT"`).
    public let found: String
    /// The reason the line gives after the facts (such as why a type cannot read a column).
    let detail: String

    /// Creates a mismatch.
    public init(kind: Kind, recordType: String, table: String, column: String?, expected: String, found: String) {
        self.init(kind: kind, recordType: recordType, table: table, column: column, expected: expected, found: found, detail: "")
    }

    init(kind: Kind, recordType: String, table: String, column: String?, expected: String, found: String, detail: String) {
        self.kind = kind
        self.recordType = recordType
        self.table = table
        self.column = column
        self.expected = expected
        self.found = found
        self.detail = detail
    }

    /// One line: the record type, the table and column, what was expected and found.
    public var description: String {
        let tableName = "\"\(table)\""
        let columnName = column.map { "\(tableName).\"\($0)\"" } ?? tableName
        let why = detail.isEmpty ? "" : ": \(detail)"
        switch kind {
        case .missingTable:
            return "\(recordType): no table or view \(tableName)"
        case .missingColumn:
            return "\(recordType): table \(tableName) has no column \"\(column ?? "")\" (expected \(expected))\(why)"
        case .nullableColumn:
            return "\(recordType): column \(columnName) is \(found), expected \(expected)\(why)"
        case .incompatibleType:
            return "\(recordType): column \(columnName) is declared \(found), expected \(expected)\(why)"
        case .unwrittenColumn:
            return "\(recordType): column \(columnName) is \(found), expected \(expected)\(why)"
        case .uninspectableRecord:
            return "\(recordType): the columns of the record could not be learned\(why)"
        }
    }
}
