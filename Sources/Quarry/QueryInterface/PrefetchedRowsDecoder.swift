// PrefetchedRowsDecoder: decodes an array property from the rows that
// `including(all:)` prefetched for a parent row (see AssociatedRowDecoder.swift).

import Foundation

/// Decodes an array (or any unkeyed collection) from prefetched rows.
struct PrefetchedRowsDecoder: Decoder {
    let rows: [ScopedRow]
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(
            [String: Any].self, .init(codingPath: codingPath, debugDescription: "prefetched records decode as an array"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Container(rows: rows, codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "prefetched records decode as an array"))
    }

    struct Container: UnkeyedDecodingContainer {
        let rows: [ScopedRow]
        var codingPath: [any CodingKey]
        var count: Int? { rows.count }
        var isAtEnd: Bool { currentIndex >= rows.count }
        var currentIndex = 0

        init(rows: [ScopedRow], codingPath: [any CodingKey]) {
            self.rows = rows
            self.codingPath = codingPath
        }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return try rows[currentIndex].decode(T.self)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return KeyedDecodingContainer(AssociatedRowDecoder.KeyedContainer<NestedKey>(scope: rows[currentIndex], codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a prefetched row is not a list"))
        }

        mutating func superDecoder() throws -> any Decoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return AssociatedRowDecoder(scope: rows[currentIndex], codingPath: codingPath)
        }
    }
}
