// RecordSingleValueContainer: records whose `init(from:)` asks for
// `decoder.singleValueContainer()`, the Codable idiom of a wrapper around
// another record or value:
//
//     struct Ranked: Decodable, FetchableRecord {
//         var player: Player
//         init(from decoder: any Decoder) throws {
//             player = try decoder.singleValueContainer().decode(Player.self)
//         }
//     }
//
// As in GRDB, the wrapped value is read from the same row: a record type
// through its own `init(row:)` (its own strategies and hand-written
// initializer apply), another Decodable type through the same decoder (its
// coding keys name the row's columns), and a single value from the row's
// first column.

import Foundation

struct RecordSingleValueContainer: SingleValueDecodingContainer {
    let decoder: RecordDecoder
    var codingPath: [any CodingKey] { [] }

    /// The first column of the record's row.
    private func firstColumn(_ type: Any.Type) throws -> Int32 {
        guard !decoder.columnNames.isEmpty else {
            throw decoder.error(.columnNotFound, column: "#0", expectedType: type)
        }
        return decoder.layout.offset
    }

    private func first<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        let index = try firstColumn(T.self)
        return try decoder.decodeConvertible(T.self, at: index, key: decoder.columnNames[0])
    }

    func decodeNil() -> Bool {
        guard let index = try? firstColumn(Any.self) else { return true }
        return decoder.isNull(at: index)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try first(type) }
    func decode(_ type: String.Type) throws -> String { try first(type) }
    func decode(_ type: Double.Type) throws -> Double { try first(type) }
    func decode(_ type: Float.Type) throws -> Float { try first(type) }
    func decode(_ type: Int.Type) throws -> Int { try first(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try first(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try first(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try first(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try first(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try first(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try first(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try first(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try first(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try first(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let recordType = T.self as? any FetchableRecord.Type {
            // The wrapped record, with its own init(row:) and strategies.
            guard let record = try recordType.init(row: decoder.currentRow()) as? T else {
                throw decoder.error(.other("\(recordType).init(row:) did not return a \(T.self)"), column: "*", expectedType: T.self)
            }
            return record
        }
        if T.self == Date.self || T.self is any DatabaseValueConvertible.Type {
            let index = try firstColumn(T.self)
            if decoder.isNull(at: index) { throw decoder.columnError(.unexpectedNull, index, T.self) }
            return try decoder.decodeAny(T.self, at: index)
        }
        // Another Decodable type: its coding keys read the same row.
        return try T(from: decoder)
    }
}

extension RecordDecoder {
    /// A copy of the record's columns in the current row.
    func currentRow() throws -> Row {
        let values = columnNames.indices.map { databaseValue(at: layout.offset + Int32($0)) }
        return try Row(columnNames: columnNames, databaseValues: values)
    }
}
