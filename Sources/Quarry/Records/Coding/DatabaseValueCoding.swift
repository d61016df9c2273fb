// DatabaseValueCoding: Codable values that are a single database value.
//
// A property whose type is not DatabaseValueConvertible may still encode as
// one value: an enum with raw values that is only Codable, or a wrapper with a
// single-value `encode(to:)`. These coders try that first; a type that asks
// for a keyed or unkeyed container is a nested value and is stored as JSON.

import Foundation

/// Encodes a value that uses a single-value container into one DatabaseValue;
/// `value` stays nil when the type asked for a keyed or unkeyed container.
final class SingleDatabaseValueEncoder: Encoder, SingleValueEncodingContainer {
    let dateStrategy: DatabaseDateEncodingStrategy
    let uuidStrategy: DatabaseUUIDEncodingStrategy
    var value: DatabaseValue?
    var isNested = false

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(dateStrategy: DatabaseDateEncodingStrategy, uuidStrategy: DatabaseUUIDEncodingStrategy) {
        self.dateStrategy = dateStrategy
        self.uuidStrategy = uuidStrategy
    }

    /// The single database value of `value`, or nil if it is a nested value.
    static func databaseValue<T: Encodable>(
        of value: T, dateStrategy: DatabaseDateEncodingStrategy, uuidStrategy: DatabaseUUIDEncodingStrategy
    ) throws -> DatabaseValue? {
        let encoder = SingleDatabaseValueEncoder(dateStrategy: dateStrategy, uuidStrategy: uuidStrategy)
        try value.encode(to: encoder)
        return encoder.isNested ? nil : encoder.value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        isNested = true
        return KeyedEncodingContainer(NestedMarkerKeyedContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        isNested = true
        return NestedMarkerUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { self.value = try value.databaseValue }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { self.value = try value.databaseValue }
    func encode<T: Encodable>(_ value: T) throws {
        if let date = value as? Date {
            self.value = dateStrategy.databaseValue(for: date)
        } else if let uuid = value as? UUID {
            self.value = uuidStrategy.databaseValue(for: uuid)
        } else if let convertible = value as? any DatabaseValueConvertible {
            self.value = try convertible.databaseValue
        } else {
            try value.encode(to: self)
        }
    }
}

private struct NestedMarkerKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(NestedMarkerKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { NestedMarkerUnkeyedContainer() }
    mutating func superEncoder() -> any Encoder { SingleDatabaseValueEncoder(dateStrategy: .default, uuidStrategy: .blob) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { SingleDatabaseValueEncoder(dateStrategy: .default, uuidStrategy: .blob) }
}

private struct NestedMarkerUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(NestedMarkerKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { SingleDatabaseValueEncoder(dateStrategy: .default, uuidStrategy: .blob) }
}

/// Decodes a value that uses a single-value container from one DatabaseValue.
/// Throws `NestedValueRequest` when the type asks for a keyed or unkeyed
/// container: the caller then decodes JSON.
struct SingleDatabaseValueDecoder: Decoder, SingleValueDecodingContainer {
    struct NestedValueRequest: Error {}
    /// A failed conversion, reported by the record decoder with its column.
    struct Mismatch: Error { let expectedType: Any.Type }

    let value: DatabaseValue
    let dateStrategy: DatabaseDateDecodingStrategy

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw NestedValueRequest()
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NestedValueRequest() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try convert(type) }
    func decode(_ type: String.Type) throws -> String { try convert(type) }
    func decode(_ type: Double.Type) throws -> Double { try convert(type) }
    func decode(_ type: Float.Type) throws -> Float { try convert(type) }
    func decode(_ type: Int.Type) throws -> Int { try convert(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try convert(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try convert(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try convert(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try convert(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try convert(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try convert(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try convert(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try convert(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try convert(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self {
            guard let date = dateStrategy.date(from: value) as? T else { throw Mismatch(expectedType: T.self) }
            return date
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let result = convertible.fromDatabaseValue(value) as? T else { throw Mismatch(expectedType: T.self) }
            return result
        }
        return try T(from: self)
    }

    private func convert<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T {
        guard let result = T.fromDatabaseValue(value) else { throw Mismatch(expectedType: T.self) }
        return result
    }
}
