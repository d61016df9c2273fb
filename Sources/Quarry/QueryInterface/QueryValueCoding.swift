// QueryValueCoding: Codable values (such as enums that are only Codable, or
// nested structs stored as JSON) used as query arguments or selected values,
// coded exactly the way records store them.

import Foundation

/// Encodes a Swift value that is not DatabaseValueConvertible into the
/// database value a record would store for it.
enum DatabaseValueEncoding {
    /// The single value the type encodes to, or its JSON text (sorted keys)
    /// when it encodes as a keyed or unkeyed container.
    static func databaseValue(of value: any Encodable) throws -> DatabaseValue {
        if let single = try SingleDatabaseValueEncoder.databaseValue(of: value, dateStrategy: .default, uuidStrategy: .blob) {
            return single
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// Decodes a Swift value that is not DatabaseValueConvertible from a database
/// value, the way records read it.
enum DatabaseValueDecoding {
    /// The value of `type` stored in `value`: a single value, or JSON text.
    static func decode(_ type: any Decodable.Type, from value: DatabaseValue, column: String) throws -> Any {
        let decoder = SingleDatabaseValueDecoder(value: value, dateStrategy: .default)
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
                return try JSONDecoder().decode(type, from: data)
            } catch {
                throw RowDecodingError(reason: .other("invalid JSON: \(value)"), column: column, expectedType: "\(type)")
            }
        } catch is SingleDatabaseValueDecoder.Mismatch {
            throw RowDecodingError(reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: column, expectedType: "\(type)")
        }
    }
}
