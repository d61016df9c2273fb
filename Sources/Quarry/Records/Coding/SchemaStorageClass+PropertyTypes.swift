// The storage classes a record's property types read and write, for the
// start-up schema check (Database+SchemaCheck.swift): the Records half of
// SchemaStorageClass (Schema/SchemaStorageClass.swift), which needs the
// record coding strategies.

import Foundation

extension SchemaStorageClass {
    /// The storage classes a property of `type` reads, or nil when it is not
    /// known (a custom DatabaseValueConvertible type, a type whose decoding
    /// cannot be observed).
    static func read(by type: Any.Type, dateStrategy: DatabaseDateDecodingStrategy) -> Set<Self>? {
        read(by: type, dateStrategy: dateStrategy, depth: 0)
    }

    fileprivate static func read(by type: Any.Type, dateStrategy: DatabaseDateDecodingStrategy, depth: Int) -> Set<Self>? {
        guard depth < 8 else { return nil }
        switch type {
        case is Bool.Type: return [.integer, .real]
        case is String.Type, is URL.Type: return [.text]
        case is Data.Type, is UUID.Type: return [.blob, .text]
        case is Decimal.Type: return [.integer, .real, .text]
        case is Date.Type:
            switch dateStrategy {
            case .default: return [.text, .integer, .real]
            case .millisecondsSince1970: return [.integer, .real]
            }
        default: break
        }
        if type is any FixedWidthInteger.Type || type is any BinaryFloatingPoint.Type { return [.integer, .real] }
        if let raw = type as? any RawRepresentable.Type {
            return read(by: rawValueType(raw), dateStrategy: dateStrategy, depth: depth + 1)
        }
        if type is any DatabaseValueConvertible.Type { return nil }
        guard let decodable = type as? any Decodable.Type else { return nil }
        return shape(of: decodable, dateStrategy: dateStrategy, depth: depth)
    }

    /// Whether a property of `type` writes a blob (Data, a UUID stored as
    /// bytes): PostgreSQL accepts it only in a bytea column.
    static func writesBlob(_ type: Any.Type, uuidStrategy: DatabaseUUIDEncodingStrategy) -> Bool {
        if type is Data.Type { return true }
        if type is UUID.Type, case .blob = uuidStrategy { return true }
        if let raw = type as? any RawRepresentable.Type {
            let rawType = rawValueType(raw)
            return rawType is Data.Type || (rawType is UUID.Type && uuidStrategy == .blob)
        }
        return false
    }

    private static func rawValueType<R: RawRepresentable>(_ type: R.Type) -> Any.Type { R.RawValue.self }

    /// The storage classes a Codable type reads, from what its `init(from:)`
    /// asks for first: one value, or a container (JSON).
    private static func shape<T: Decodable>(of type: T.Type, dateStrategy: DatabaseDateDecodingStrategy, depth: Int) -> Set<Self>? {
        do {
            _ = try T(from: ShapeDecoder(dateStrategy: dateStrategy, depth: depth))
            return nil
        } catch let found as ShapeDecoder.Found {
            return found.classes
        } catch {
            return nil
        }
    }
}

/// A decoder that stops at the first thing `init(from:)` asks for, and
/// throws what it reads: a container is JSON, one value reads its type's classes.
private struct ShapeDecoder: Decoder, SingleValueDecodingContainer {
    struct Found: Error { let classes: Set<SchemaStorageClass>? }

    let dateStrategy: DatabaseDateDecodingStrategy
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// JSON text, or a blob of JSON bytes.
    private static let json = Found(classes: [.text, .blob])

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw Self.json }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.json }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    private func found(_ type: Any.Type) -> Found {
        Found(classes: SchemaStorageClass.read(by: type, dateStrategy: dateStrategy, depth: depth + 1))
    }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { throw found(type) }
    func decode(_ type: String.Type) throws -> String { throw found(type) }
    func decode(_ type: Double.Type) throws -> Double { throw found(type) }
    func decode(_ type: Float.Type) throws -> Float { throw found(type) }
    func decode(_ type: Int.Type) throws -> Int { throw found(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { throw found(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { throw found(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { throw found(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { throw found(type) }
    func decode(_ type: UInt.Type) throws -> UInt { throw found(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { throw found(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { throw found(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { throw found(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { throw found(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { throw found(type) }
}
