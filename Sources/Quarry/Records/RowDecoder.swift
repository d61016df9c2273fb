// RowDecoder: the Decodable path of records, reading straight from SQLite.
//
// Performance choices (see shared design notes, "Codable decoding by name"):
// - No dictionary and no DatabaseValue per cell. Each property is read with
//   `sqlite3_column_*` through the type's `DatabaseValueConvertible.fromStatement`
//   fast path, at a column index.
// - Coding key → column index is resolved once per (record type, statement):
//   the DecodingLayout, stored on the Statement, lists the keys in the order
//   the record asks for them, with their column index. For every row after the
//   first, the N-th key asked for is compared with the N-th key of the layout
//   (a small-string comparison) and its index is used; only a key asked for in
//   another order goes through a dictionary.
// - One RecordDecoder object per fetch, reused for every row. Codable itself
//   allocates one box per row for KeyedDecodingContainer; nothing else is
//   allocated per row for standard property types.
// - The concrete `decode` overloads the synthesized `init(from:)` calls for
//   standard types involve no dynamic cast; other types (Date, UUID, enums,
//   nested JSON) take one cast per value, and JSON uses one JSONDecoder per layout.
// - The same decoder reads a `Row` (for `init(row:)`), through the generic
//   `RowDecodingSource`, so both paths share one implementation and give the
//   same results; the statement source is specialized away in release builds.

import CSQLite
import Foundation

/// Where the record decoder reads column values from.
protocol RowDecodingSource {
    /// The names of the columns the record may read.
    var columnNames: [String] { get }
    /// The SQL that produced the row, for error messages.
    var sql: String? { get }
    func isNull(at index: Int32) -> Bool
    /// The value at `index` (not NULL) as `Value`, or nil if it does not convert.
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value?
    func databaseValue(at index: Int32) -> DatabaseValue
}

/// Reads the current row of a statement.
struct StatementSource: RowDecodingSource {
    let sqliteStatement: OpaquePointer
    let columnNames: [String]
    let sql: String?

    @inline(__always)
    func isNull(at index: Int32) -> Bool { sqlite3_column_type(sqliteStatement, index) == SQLITE_NULL }

    @inline(__always)
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value? {
        Value.fromStatement(sqliteStatement, index: index)
    }

    func databaseValue(at index: Int32) -> DatabaseValue { DatabaseValue(sqliteStatement: sqliteStatement, index: index) }
}

/// Reads a Row.
struct RowSource: RowDecodingSource {
    let row: Row
    var columnNames: [String] { row.columnNames }
    var sql: String? { nil }
    func isNull(at index: Int32) -> Bool { row.databaseValues[Int(index)].isNull }
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value? {
        Value.fromDatabaseValue(row.databaseValues[Int(index)])
    }
    func databaseValue(at index: Int32) -> DatabaseValue { row.databaseValues[Int(index)] }
}

/// Coding key → column index for one record type and one set of columns.
final class DecodingLayout {
    let columnNames: [String]
    private let nameIndex: RowLayout
    /// Keys in the order the record asked for them, with their column index (-1: missing).
    var keys: [String] = []
    var indexes: [Int32] = []
    /// Keys asked for out of order.
    private var fallback: [String: Int32] = [:]
    private let naming: DatabaseColumnNamingStrategy
    lazy var jsonDecoder = JSONDecoder()

    init(columnNames: [String], naming: DatabaseColumnNamingStrategy) {
        self.columnNames = columnNames
        self.nameIndex = RowLayout(columnNames: columnNames)
        self.naming = naming
    }

    /// The column name a key maps to.
    func columnName(for key: String) -> String { naming.columnName(for: key) }

    /// The column index of a key, through the dictionary (slow path).
    func resolve(_ key: String) -> Int32 {
        if let index = fallback[key] { return index }
        let index = nameIndex.index(of: naming.columnName(for: key)).map(Int32.init) ?? -1
        fallback[key] = index
        return index
    }
}

/// The Decoder of records. One instance decodes all rows of a fetch.
final class RecordDecoder<Source: RowDecodingSource>: Decoder {
    var source: Source
    let layout: DecodingLayout
    let recordType: Any.Type
    let dateStrategy: DatabaseDateDecodingStrategy
    /// How many keys the current row asked for so far.
    var position = 0
    /// Whether the keys of the current row followed the layout so far.
    var followsLayout = true

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(source: Source, layout: DecodingLayout, recordType: Any.Type, dateStrategy: DatabaseDateDecodingStrategy) {
        self.source = source
        self.layout = layout
        self.recordType = recordType
        self.dateStrategy = dateStrategy
    }

    /// The column index of `key` (see the top of this file).
    @inline(__always)
    func columnIndex(_ key: String) -> Int32 {
        let position = self.position
        self.position = position + 1
        if followsLayout {
            if position < layout.keys.count {
                if layout.keys[position] == key { return layout.indexes[position] }
            } else if position == layout.keys.count {
                let index = layout.resolve(key)
                layout.keys.append(key)
                layout.indexes.append(index)
                return index
            }
            followsLayout = false
        }
        return layout.resolve(key)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        position = 0
        followsLayout = true
        return KeyedDecodingContainer(RecordKeyedDecodingContainer<Key, Source>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw error(.other("records decode with a keyed container; \(recordType) asked for an unkeyed container"),
                    column: "*", expectedType: recordType)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw error(.other("records decode with a keyed container; \(recordType) asked for a single value container"),
                    column: "*", expectedType: recordType)
    }

    // MARK: Errors

    func error(_ reason: RowDecodingError.Reason, column: String, expectedType: Any.Type) -> RowDecodingError {
        RowDecodingError(
            reason: reason, column: column, expectedType: "\(expectedType)", recordType: "\(recordType)",
            sql: source.sql, availableColumns: reason == .columnNotFound ? source.columnNames : nil)
    }

    func missingColumn(_ key: String, _ type: Any.Type) -> RowDecodingError {
        error(.columnNotFound, column: layout.columnName(for: key), expectedType: type)
    }

    func columnError(_ reason: RowDecodingError.Reason, _ index: Int32, _ type: Any.Type) -> RowDecodingError {
        error(reason, column: source.columnNames[Int(index)], expectedType: type)
    }

    // MARK: Reading values

    /// Reads a non-optional DatabaseValueConvertible value.
    @inline(__always)
    func decodeConvertible<Value: DatabaseValueConvertible>(_ type: Value.Type, key: String) throws -> Value {
        let index = columnIndex(key)
        guard index >= 0 else { throw missingColumn(key, Value.self) }
        if source.isNull(at: index) { throw columnError(.unexpectedNull, index, Value.self) }
        guard let value = source.value(Value.self, at: index) else {
            throw columnError(.valueMismatch(source.databaseValue(at: index)), index, Value.self)
        }
        return value
    }

    /// Reads an optional DatabaseValueConvertible value: nil for NULL or a missing column.
    @inline(__always)
    func decodeConvertibleIfPresent<Value: DatabaseValueConvertible>(_ type: Value.Type, key: String) throws -> Value? {
        let index = columnIndex(key)
        guard index >= 0, !source.isNull(at: index) else { return nil }
        guard let value = source.value(Value.self, at: index) else {
            throw columnError(.valueMismatch(source.databaseValue(at: index)), index, Value.self)
        }
        return value
    }

    /// Reads any Decodable value, at a resolved, non-NULL column.
    func decodeAny<T: Decodable>(_ type: T.Type, at index: Int32) throws -> T {
        if T.self == Date.self {
            let value = source.databaseValue(at: index)
            guard let date = dateStrategy.date(from: value) as? T else {
                throw columnError(.valueMismatch(value), index, T.self)
            }
            return date
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = readConvertible(convertible, at: index) as? T else {
                throw columnError(.valueMismatch(source.databaseValue(at: index)), index, T.self)
            }
            return value
        }
        let value = source.databaseValue(at: index)
        do {
            // Enums with raw values that are only Codable, and other single-value types.
            return try T(from: SingleDatabaseValueDecoder(value: value, dateStrategy: dateStrategy))
        } catch is SingleDatabaseValueDecoder.NestedValueRequest {
            // A nested value: JSON text (or a blob of JSON bytes).
            let data: Data
            switch value {
            case .text(let text): data = Data(text.utf8)
            case .blob(let blob): data = blob
            default: throw columnError(.valueMismatch(value), index, T.self)
            }
            do {
                return try layout.jsonDecoder.decode(T.self, from: data)
            } catch {
                throw columnError(.other("invalid JSON: \(value) (\(Self.describe(error)))"), index, T.self)
            }
        } catch is SingleDatabaseValueDecoder.Mismatch {
            throw columnError(.valueMismatch(value), index, T.self)
        } catch let error as DecodingError {
            throw columnError(.other("found \(value.storageClassName) \(value) (\(Self.describe(error)))"), index, T.self)
        }
    }

    private func readConvertible<V: DatabaseValueConvertible>(_ type: V.Type, at index: Int32) -> V? {
        source.value(V.self, at: index)
    }

    /// A short description of a DecodingError.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context),
            .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The keyed container of RecordDecoder.
struct RecordKeyedDecodingContainer<Key: CodingKey, Source: RowDecodingSource>: KeyedDecodingContainerProtocol {
    let decoder: RecordDecoder<Source>
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] { decoder.source.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.layout.resolve(key.stringValue) >= 0 }

    func decodeNil(forKey key: Key) throws -> Bool {
        let index = decoder.layout.resolve(key.stringValue)
        return index < 0 || decoder.source.isNull(at: index)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.decodeConvertible(type, key: key.stringValue) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let name = key.stringValue
        let index = decoder.columnIndex(name)
        guard index >= 0 else { throw decoder.missingColumn(name, T.self) }
        if decoder.source.isNull(at: index) {
            throw decoder.columnError(.unexpectedNull, index, T.self)
        }
        return try decoder.decodeAny(T.self, at: index)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decoder.decodeConvertibleIfPresent(type, key: key.stringValue) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let index = decoder.columnIndex(key.stringValue)
        guard index >= 0, !decoder.source.isNull(at: index) else { return nil }
        return try decoder.decodeAny(T.self, at: index)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw decoder.error(
            .other("nested containers are not supported; use a Codable property, stored as JSON"),
            column: decoder.layout.columnName(for: key.stringValue), expectedType: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw decoder.error(
            .other("nested containers are not supported; use a Codable property, stored as JSON"),
            column: decoder.layout.columnName(for: key.stringValue), expectedType: [Any].self)
    }

    func superDecoder() throws -> any Decoder {
        throw decoder.error(.other("superDecoder() is not supported by records"), column: "*", expectedType: decoder.recordType)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw decoder.error(.other("superDecoder(forKey:) is not supported by records"), column: "*", expectedType: decoder.recordType)
    }
}
