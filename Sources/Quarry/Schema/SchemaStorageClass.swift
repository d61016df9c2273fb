// SchemaStorageClass: the kinds of values a column declares it holds, and the
// kinds a property type can read — the type half of the start-up schema
// check (Database+SchemaCheck.swift).
//
// The check only flags what surely fails, so both sides are answered
// conservatively, nil meaning "anything may work, do not judge":
//
// - A column's declared type gives its values' storage class. On SQLite,
//   through its type affinity
//   (<https://www.sqlite.org/datatype3.html#determination_of_column_affinity>):
//   INTEGER affinity holds integers, TEXT affinity texts (it turns numbers
//   into text), REAL reals, a declared BLOB blobs; no declared type and
//   NUMERIC affinity (NUMERIC, BOOLEAN, DATE, DATETIME, JSON, ANY…) accept
//   anything: nil (SQLiteDialect.storageClasses(ofDeclaredType:)). On
//   PostgreSQL, from the type name `format_type` prints, as QuarryPostgres
//   reads its values (its dialect's storageClasses(ofDeclaredType:)).
// - A property type reads the storage classes its `fromDatabaseValue`
//   accepts (Int: integers and reals; String: text; Data: blobs and text;
//   Date: text and numbers, numbers only with the milliseconds strategy…);
//   an enum with raw values those of its raw value; another Codable type
//   either asks for one value (those of that value) or is JSON (text or a
//   blob of JSON bytes). A custom DatabaseValueConvertible type: nil.

import Foundation

/// A storage class of database values.
package enum SchemaStorageClass: String, Hashable, Comparable, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"

    package static func < (lhs: Self, rhs: Self) -> Bool {
        let order: [Self] = [.integer, .real, .text, .blob]
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }

    /// `INTEGER or REAL`.
    static func describe(_ classes: Set<Self>) -> String {
        let names = classes.sorted().map(\.rawValue)
        guard let last = names.last else { return "nothing" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

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
