// PersistenceContainer: the column values a record writes, in order.

/// The columns and values of a record, as ``EncodableRecord/encode(to:)`` fills them.
///
/// A hand-written encoding sets values by column name:
///
/// ```swift
/// struct Player: EncodableRecord {
///     var id: Int64?
///     var name: String
///     func encode(to container: inout PersistenceContainer) throws {
///         container["id"] = id
///         container["name"] = name
///     }
/// }
/// ```
///
/// Setting a column twice keeps the last value (column names are compared
/// case-insensitively, as SQLite does). `nil` is `NULL`.
public struct PersistenceContainer {
    /// The column names, in the order they were set.
    public internal(set) var columns: [String]
    /// The values, paired with ``columns``.
    public internal(set) var databaseValues: [DatabaseValue]

    /// The first value that could not be converted, thrown when the record is
    /// written (a subscript setter cannot throw).
    var conversionError: (any Error)?

    /// The encoding layout used by the Codable encoder, when the container is
    /// filled by a persistence method (see PersistenceEncoder.swift).
    var encodingLayout: EncodingLayout?

    /// An empty container.
    public init() {
        columns = []
        databaseValues = []
    }

    /// The values of `record`.
    public init<Record: EncodableRecord>(_ record: Record) throws {
        self.init()
        try record.encode(to: &self)
        try checkConversion()
    }

    /// The value of a column: nil if the column was not set, `.null` for NULL.
    ///
    /// Setting it converts the value with
    /// ``DatabaseValueConvertible/databaseValue``; nil stores `NULL`.
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get { databaseValue(forColumn: column) }
        set {
            let value: DatabaseValue
            if let newValue {
                do {
                    value = try newValue.databaseValue
                } catch {
                    if conversionError == nil { conversionError = error }
                    value = .null
                }
            } else {
                value = .null
            }
            setDatabaseValue(value, forColumn: column)
        }
    }

    /// The value of a column, nil if it was not set.
    public func databaseValue(forColumn column: String) -> DatabaseValue? {
        index(ofColumn: column).map { databaseValues[$0] }
    }

    /// Sets the value of a column, replacing a previous value of the same column.
    public mutating func setDatabaseValue(_ value: DatabaseValue, forColumn column: String) {
        if let index = index(ofColumn: column) {
            databaseValues[index] = value
        } else {
            columns.append(column)
            databaseValues.append(value)
        }
    }

    /// The index of the leftmost column named `column`, compared as SQLite
    /// compares identifiers (case-insensitively for ASCII letters only).
    func index(ofColumn column: String) -> Int? {
        let folded = column.asciiLowercased
        return columns.firstIndex { $0 == column || $0.asciiLowercased == folded }
    }

    /// Throws the first conversion error of the subscript setter.
    func checkConversion() throws {
        if let conversionError { throw conversionError }
    }
}
