// QueryValueCoding: Swift values that meet SQL in the query interface (filter
// arguments, assignments, selected values), coded exactly the way the
// request's record stores them (RecordValueFormat).

import Foundation

extension SQLExpression {
    /// A Swift value of any type, bound as a statement argument, in the
    /// format the record `Root` stores it (its date and UUID strategies, its
    /// JSON encoder), so that `\.createdAt == date` matches what `insert`
    /// wrote.
    ///
    /// `nil` is `NULL`; ``DatabaseValueConvertible`` values use their database
    /// value; other `Encodable` values (such as `Codable` enums, or nested
    /// structs stored as JSON) are stored the way records store them.
    /// `column`, when the value is compared with or assigned to a column,
    /// picks that column's JSON encoder.
    static func bound<Root, Value>(_ value: Value, in root: Root.Type, near column: SQLExpression? = nil) -> SQLExpression {
        if let optional = value as? any OptionalValue, optional.isNone { return .value(.null) }
        if !RecordValueFormat.dependsOnFormat(value), let convertible = value as? any DatabaseValueConvertible {
            return .value(of: convertible)  // the common case: no format to look up
        }
        var columnName: String?
        if let column, case .column(let name, _) = column.node { columnName = name }
        do {
            if let databaseValue = try RecordValueFormat.of(Root.self).databaseValue(of: value, column: columnName) {
                return .value(databaseValue)
            }
        } catch {
            return SQLExpression(.invalid(error))
        }
        return SQLExpression(.invalid(DatabaseError.misuse(
            "a value of type \(Value.self) cannot be used in SQL: make \(Value.self) conform to DatabaseValueConvertible")))
    }
}

/// Decodes a Swift value that is not DatabaseValueConvertible from a database
/// value, the way records read it.
enum DatabaseValueDecoding {
    /// The value of `type` stored in `value`: a single value, or JSON text,
    /// read with the formats of `format` (a record's date strategy and JSON
    /// decoder).
    static func decode(
        _ type: any Decodable.Type, from value: DatabaseValue, column: String, format: RecordValueFormat = .standard
    ) throws -> Any {
        let decoder = SingleDatabaseValueDecoder(value: value, dateStrategy: format.dateDecoding)
        do {
            return try type.init(from: decoder)
        } catch is SingleDatabaseValueDecoder.NestedValueRequest {
            let data: Data
            switch value {
            case .text(let text): data = Data(text.utf8)
            case .blob(let blob): data = blob
            default:
                throw RowDecodingError(reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: column, expectedType: "\(type)")
            }
            do {
                return try format.jsonDecoder(column).decode(type, from: data)
            } catch {
                throw RowDecodingError(reason: .other("invalid JSON: \(value)"), column: column, expectedType: "\(type)")
            }
        } catch is SingleDatabaseValueDecoder.Mismatch {
            throw RowDecodingError(reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: column, expectedType: "\(type)")
        }
    }
}
