// RowDecodingError: the error thrown when a row's value can't become the Swift value asked for.

/// An error thrown when a value read from a row cannot be converted to the
/// requested Swift type.
///
/// Its message names the column, the expected type and what was found:
///
/// ```
/// cannot decode Int from column "score": found NULL — in `SELECT score FROM player`
/// ```
public struct RowDecodingError: Error, Sendable, CustomStringConvertible {
    /// Why decoding failed.
    public enum Reason: Sendable, Equatable {
        /// The row has no column with this name.
        case columnNotFound
        /// The column index is not in the row.
        case indexOutOfRange
        /// The column is `NULL` and the requested type is not optional.
        case unexpectedNull
        /// The column holds a value that does not convert to the requested type.
        case valueMismatch(DatabaseValue)
        /// A custom reason, such as a JSON column that does not decode.
        case other(String)
    }

    /// Why decoding failed.
    public let reason: Reason

    /// The column name, or `#index` when the column was asked for by position.
    public let column: String

    /// The name of the requested Swift type.
    public let expectedType: String

    /// The record type being decoded, if any.
    public var recordType: String?

    /// The SQL of the request that produced the row, if known.
    public var sql: String?

    /// The names of the columns of the row, when the column was not found.
    public var availableColumns: [String]?

    /// Creates an error.
    public init(
        reason: Reason, column: String, expectedType: String,
        recordType: String? = nil, sql: String? = nil, availableColumns: [String]? = nil
    ) {
        self.reason = reason
        self.column = column
        self.expectedType = expectedType
        self.recordType = recordType
        self.sql = sql
        self.availableColumns = availableColumns
    }

    /// A sentence naming the column, the expected type, and what was found.
    public var description: String {
        var text = "cannot decode \(expectedType)"
        if let recordType { text += " for \(recordType)" }
        text += " from column \"\(column)\": "
        switch reason {
        case .columnNotFound:
            text += "no such column"
            if let availableColumns { text += " (the row has \(availableColumns.map { "\"\($0)\"" }.joined(separator: ", ")))" }
        case .indexOutOfRange:
            text += "no column at this index"
            if let availableColumns { text += " (the row has \(availableColumns.count) columns)" }
        case .unexpectedNull:
            text += "found NULL"
        case .valueMismatch(let value):
            text += "found \(value.storageClassName) \(value)"
        case .other(let message):
            text += message
        }
        if let sql { text += " — in `\(sql)`" }
        return text
    }
}

extension RowDecodingError {
    /// `decode`, whose decoding errors name `sql` when they do not name a
    /// statement yet: rows a database server returned are decoded apart
    /// from their statement.
    static func naming<Input, Value>(_ sql: String, _ decode: @escaping (Input) throws -> Value) -> (Input) throws -> Value {
        { input in
            do {
                return try decode(input)
            } catch var error as RowDecodingError where error.sql == nil {
                error.sql = sql
                throw error
            }
        }
    }
}
