// AssociatedRowDecoder: decodes a Decodable type from a row that holds a main
// record and the records of included associations, plus the records that
// `including(all:)` prefetched.
//
// A property whose coding key is an association key decodes from that
// association's columns (a record, or nil when a LEFT JOIN found nothing) or
// from its prefetched rows (an array). A property whose type is the request's
// record type, or whose key is the main table name, decodes from the main
// columns. Any other property reads the main column of the same name.

import Foundation

private func cast<T>(_ value: Any, to type: T.Type) throws -> T {
    guard let typed = value as? T else {
        throw DatabaseError.misuse("could not decode \(T.self) from \(Swift.type(of: value))")
    }
    return typed
}

/// The `Decoder` over a ``ScopedRow``.
struct AssociatedRowDecoder: Decoder {
    let scope: ScopedRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(scope: scope, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath, debugDescription: "a row with associations is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "a row with associations is not a single value"))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let scope: ScopedRow
        var codingPath: [any CodingKey]
        var allKeys: [Key] {
            (scope.children.map(\.key) + scope.prefetched.keys + scope.layout.columnNames).compactMap(Key.init(stringValue:))
        }

        func contains(_ key: Key) -> Bool {
            scope.child(key.stringValue) != nil || scope.prefetched[key.stringValue] != nil
                || scope.columnIndex(key.stringValue) != nil || key.stringValue == scope.tableName
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if let child = scope.child(key.stringValue) { return child.isNull }
            if scope.prefetched[key.stringValue] != nil { return false }
            if let index = scope.columnIndex(key.stringValue) { return scope.value(at: index).isNull }
            return key.stringValue != scope.tableName
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let child = scope.child(key.stringValue) {
                return try child.decode(T.self)
            }
            if let rows = scope.prefetched[key.stringValue] {
                return try T(from: PrefetchedRowsDecoder(rows: rows, codingPath: codingPath + [key]))
            }
            if T.self == scope.recordType || key.stringValue == scope.tableName {
                return try scope.mainOnly.decode(T.self)
            }
            if scope.columnIndex(key.stringValue) == nil && T.self is any FetchableRecord.Type {
                // Another record type over the main columns (`var author:
                // AuthorInfo` next to annotations). With associations in the
                // row, a record property that names none of them is a key
                // that does not match: reading the main columns would give
                // the main record's values under another type.
                let keys = scope.children.map(\.key) + scope.prefetched.keys.sorted()
                guard keys.isEmpty else {
                    throw RowDecodingError(
                        reason: .other(
                            "no association is named \"\(key.stringValue)\" (the row has \(keys.map { "\"\($0)\"" }.joined(separator: ", "))); "
                                + "name the association with forKey(_:) or key:, or the property after the association"),
                        column: key.stringValue, expectedType: "\(T.self)")
                }
                return try scope.mainOnly.decode(T.self)
            }
            return try decodeColumn(T.self, key)
        }

        private func decodeColumn<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            guard let index = scope.columnIndex(key.stringValue) else {
                throw RowDecodingError(
                    reason: .columnNotFound, column: key.stringValue, expectedType: "\(T.self)",
                    availableColumns: scope.layout.columnNames)
            }
            let value = scope.value(at: index)
            // In the formats of the scope's record (a date in milliseconds, say).
            let format = scope.recordType.map { RecordValueFormat.of($0) } ?? .standard
            if T.self == Date.self, format.dateDecoding != .default {
                guard let date = format.dateDecoding.date(from: value) else {
                    throw RowDecodingError(
                        reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: key.stringValue,
                        expectedType: "\(T.self)")
                }
                return try cast(date, to: T.self)
            }
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                guard let decoded = convertible.fromDatabaseValue(value) else {
                    throw RowDecodingError(
                        reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: key.stringValue,
                        expectedType: "\(T.self)")
                }
                return try cast(decoded, to: T.self)
            }
            return try cast(
                DatabaseValueDecoding.decode(T.self, from: value, column: key.stringValue, format: format), to: T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            guard let child = scope.child(key.stringValue) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no association \(key.stringValue)"))
            }
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(scope: child, codingPath: codingPath + [key]))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            guard let rows = scope.prefetched[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no prefetched association \(key.stringValue)"))
            }
            return PrefetchedRowsDecoder.Container(rows: rows, codingPath: codingPath + [key])
        }

        func superDecoder() throws -> any Decoder { AssociatedRowDecoder(scope: scope, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { AssociatedRowDecoder(scope: scope, codingPath: codingPath + [key]) }
    }
}
