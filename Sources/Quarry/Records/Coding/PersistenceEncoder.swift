// PersistenceEncoder: the Encodable → column values path of records.
//
// Performance choices (see shared design notes, "Per-record SQL and
// dictionaries on insert"):
// - Values are appended to the container's array in coding-key order; no
//   dictionary is built per record.
// - One encoder per (record type, connection), kept in the connection's
//   RecordCache and reused for every record, with one keyed container reused
//   too (Codable would box a new one per record). Its mutable state sits behind
//   a pointer, so the hot path pays no dynamic exclusivity check.
// - The first record encoded learns the coding keys and column names. Later
//   records only compare each key's `stringValue` with the learned one (a
//   small-string comparison) and append the value; the container then shares
//   the learned column array, so the persistence statement cache finds the
//   INSERT/UPDATE by array identity, without building or hashing SQL. A record
//   whose keys differ (a hand-made `encode(to:)` that skips keys) falls back to
//   naming each column.
// - Standard types are converted by the concrete `encode` overloads the
//   synthesized code calls, with no dynamic cast; other types are cast once
//   per value to DatabaseValueConvertible, and the rest become JSON text with
//   one JSONEncoder kept in the layout.
// - A struct whose `encode(to:)` behaves as the synthesized one skips all of
//   this: DirectEncodingPlan writes its stored properties (see that file).
// - `nil` is encoded as NULL (`encodeIfPresent` does not skip it), so the
//   column set of a record type does not vary with its values.

import Foundation

/// The reusable encoder of an Encodable record type on one connection, with
/// the coding keys and column names learned from its first record.
final class EncodingLayout {
    /// Created by the first record encoded; reused by the next ones.
    var encoder: PersistenceEncoder?
    /// The record's JSON encoders, by column, made on first use.
    private var jsonEncoders: [String: JSONEncoder] = [:]
    /// The record's DirectEncodingPlan: nil until looked up, then the plan or
    /// nil (the Codable path).
    private var directPlan: DirectEncodingPlan??

    /// The record's DirectEncodingPlan, looked up once per layout.
    @inline(__always)
    func directEncodingPlan<Record: EncodableRecord & Encodable>(_ type: Record.Type) -> DirectEncodingPlan? {
        if let known = directPlan { return known }
        let plan = DirectEncodingPlan.of(Record.self)
        directPlan = .some(plan)
        return plan
    }

    func jsonEncoder<Record: EncodableRecord>(_ type: Record.Type, column: String) -> JSONEncoder {
        if let encoder = jsonEncoders[column] { return encoder }
        let encoder = Record.databaseJSONEncoder(for: column)
        jsonEncoders[column] = encoder
        return encoder
    }
}

/// Encodes an Encodable record into a PersistenceContainer.
final class PersistenceEncoder: Encoder {
    let recordType: Any.Type
    let naming: DatabaseColumnNamingStrategy
    let dateStrategy: DatabaseDateEncodingStrategy
    let uuidStrategy: DatabaseUUIDEncodingStrategy
    /// The JSON encoder of a column.
    let jsonEncoder: (String) -> JSONEncoder

    /// Mutable state behind a pointer: the hot path then pays no dynamic
    /// exclusivity check, which class `var` properties would cost per access.
    struct State {
        /// The learned layout: coding keys and their columns, in order.
        var keys: [String] = []
        var columns: [String] = []
        var isComplete = false
        /// The values of the record being encoded.
        var values: [DatabaseValue] = []
        /// Column names, used only once the keys stopped matching the layout.
        var slowColumns: [String] = []
        var matchesLayout = true
        var error: (any Error)?
        var inUse = false
        /// The keyed container handed to every record, and its key type.
        var container: AnyObject?
        var containerKeyType: Any.Type?
        /// Whether the record is an enum whose case was encoded (EnumRecord.swift).
        var encodedEnumCase = false
    }
    let state: UnsafeMutablePointer<State>

    var codingPath: [any CodingKey] { [] }
    /// The record's ``EncodableRecord/databaseEncodingUserInfo``.
    let userInfo: [CodingUserInfoKey: Any]
    /// The key of the column that holds the case of an enum record; nil for
    /// other records.
    let discriminatorKey: String?

    init<Record: EncodableRecord>(_ type: Record.Type, jsonEncoder: @escaping (String) -> JSONEncoder) {
        recordType = type
        userInfo = Record.databaseEncodingUserInfo
        naming = Record.databaseColumnEncodingStrategy
        dateStrategy = Record.databaseDateEncodingStrategy
        uuidStrategy = Record.databaseUUIDEncodingStrategy
        self.jsonEncoder = jsonEncoder
        discriminatorKey = EnumRecordColumns.discriminatorColumn(of: Record.self)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Encodes `record` into `container` (the default `encode(to:)` of Encodable records).
    ///
    /// An enum record's columns are put in the order of all its cases, NULL
    /// for the other cases' columns, unless `canonicalEnumOrder` is false
    /// (used to learn that order).
    static func encode<Record: EncodableRecord & Encodable>(
        _ record: Record, into container: inout PersistenceContainer, canonicalEnumOrder: Bool = true
    ) throws {
        // A struct whose encode(to:) behaves as the synthesized one: its
        // stored properties, with no Encoder (DirectEncodingPlan.swift).
        let plan = if let layout = container.encodingLayout { layout.directEncodingPlan(Record.self) } else { DirectEncodingPlan.of(Record.self) }
        if let plan {
            plan.encode(record, into: &container)
            return
        }
        let encoder: PersistenceEncoder
        if let layout = container.encodingLayout {
            if let reusable = layout.encoder, !reusable.state.pointee.inUse {
                encoder = reusable
            } else if layout.encoder == nil {
                encoder = PersistenceEncoder(Record.self, jsonEncoder: { [unowned layout] in layout.jsonEncoder(Record.self, column: $0) })
                layout.encoder = encoder
            } else {
                // Reentrant encoding of the same type: use a fresh encoder.
                encoder = PersistenceEncoder(Record.self, jsonEncoder: { Record.databaseJSONEncoder(for: $0) })
            }
        } else {
            encoder = PersistenceEncoder(Record.self, jsonEncoder: { Record.databaseJSONEncoder(for: $0) })
        }
        let state = encoder.state
        state.pointee.inUse = true
        defer { state.pointee.inUse = false }
        state.pointee.values.removeAll(keepingCapacity: true)
        state.pointee.matchesLayout = true
        state.pointee.error = nil
        state.pointee.encodedEnumCase = false
        try record.encode(to: encoder)
        if let error = state.pointee.error { throw error }
        var columns: [String]
        if state.pointee.encodedEnumCase {
            columns = state.pointee.matchesLayout
                ? Array(state.pointee.columns[..<state.pointee.values.count]) : state.pointee.slowColumns
            if canonicalEnumOrder, let all = EnumRecordColumns.of(Record.self) {
                // Every case's columns, in one order: NULL for the other cases.
                var values = [DatabaseValue](repeating: .null, count: all.columns.count)
                for (column, value) in zip(columns, state.pointee.values) {
                    guard let index = all.indexes[column] else {
                        throw EncodingError.invalidValue(record, EncodingError.Context(
                            codingPath: [], debugDescription: "\(Record.self) wrote the column \"\(column)\", which no case made by the probe wrote"))
                    }
                    values[index] = value
                }
                columns = all.columns
                state.pointee.values = values
            }
        } else if state.pointee.matchesLayout {
            state.pointee.isComplete = true
            let count = state.pointee.values.count
            columns = count == state.pointee.columns.count
                ? state.pointee.columns : Array(state.pointee.columns[..<count])
        } else {
            columns = state.pointee.slowColumns
        }
        if container.columns.isEmpty {
            // Share the layout's array: the statement cache compares by identity.
            container.columns = columns
            container.databaseValues = state.pointee.values
        } else {
            for (column, value) in zip(columns, state.pointee.values) {
                container.setDatabaseValue(value, forColumn: column)
            }
        }
    }

    /// Appends the value of one key (the hot path of every property).
    @inline(__always)
    func append(_ value: DatabaseValue, key: String) {
        let position = state.pointee.values.count
        if state.pointee.matchesLayout {
            if state.pointee.isComplete {
                if position < state.pointee.keys.count, state.pointee.keys[position] == key {
                    state.pointee.values.append(value)
                    return
                }
            } else if position == state.pointee.keys.count {
                state.pointee.keys.append(key)
                state.pointee.columns.append(naming.columnName(for: key))
                state.pointee.values.append(value)
                return
            } else if state.pointee.keys[position] == key {
                // A previous, unfinished encoding learned this key already.
                state.pointee.values.append(value)
                return
            }
            // Keys differ from the layout: name every column from now on.
            state.pointee.matchesLayout = false
            state.pointee.slowColumns = Array(state.pointee.columns[..<min(position, state.pointee.columns.count)])
        }
        state.pointee.slowColumns.append(naming.columnName(for: key))
        state.pointee.values.append(value)
    }

    /// The database value of any Encodable value that is a single value
    /// (not a nested struct, array or dictionary), or nil.
    func singleDatabaseValue<T: Encodable>(for value: T) throws -> DatabaseValue? {
        if let date = value as? Date { return dateStrategy.databaseValue(for: date) }
        if let uuid = value as? UUID { return uuidStrategy.databaseValue(for: uuid) }
        if let convertible = value as? any DatabaseValueConvertible { return try convertible.databaseValue }
        // Enums with raw values that are only Codable, and other single-value types.
        if let single = try SingleDatabaseValueEncoder.databaseValue(
            of: value, dateStrategy: dateStrategy, uuidStrategy: uuidStrategy)
        {
            return single
        }
        return nil
    }

    /// The JSON text of a nested Codable value (struct, array, dictionary).
    func jsonDatabaseValue<T: Encodable>(for value: T, key: String) throws -> DatabaseValue {
        do {
            let data = try jsonEncoder(naming.columnName(for: key)).encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "cannot encode \(T.self) as JSON for column \"\(naming.columnName(for: key))\" of \(recordType): \(error)",
                underlyingError: error))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let cached = state.pointee.container, let keyType = state.pointee.containerKeyType, keyType == Key.self {
            // Checked just above: the holder was made for this Key.
            return unsafeDowncast(cached, to: EncodingContainerHolder<Key>.self).container
        }
        let container = KeyedEncodingContainer(RecordKeyedEncodingContainer<Key>(encoder: self))
        state.pointee.container = EncodingContainerHolder(container)
        state.pointee.containerKeyType = Key.self
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail("records encode with a keyed container; \(recordType) asked for an unkeyed container")
        return JSONFallbackUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fail("records encode with a keyed container; \(recordType) asked for a single value container")
        return JSONFallbackSingleValueContainer()
    }

    func fail(_ message: String) {
        if state.pointee.error == nil {
            state.pointee.error = EncodingError.invalidValue(
                recordType, EncodingError.Context(codingPath: [], debugDescription: message))
        }
    }
}

/// Keeps the keyed container an encoder reuses across records.
final class EncodingContainerHolder<Key: CodingKey> {
    let container: KeyedEncodingContainer<Key>
    init(_ container: KeyedEncodingContainer<Key>) { self.container = container }
}

/// The keyed container of PersistenceEncoder: one method per value type, so
/// that synthesized code reaches a concrete conversion without a dynamic cast.
struct RecordKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// Not retained: the encoder keeps this container for reuse across
    /// records, and a container only lives inside the `encode(to:)` of a record
    /// being encoded by this encoder (a strong reference would be a cycle).
    unowned(unsafe) let encoder: PersistenceEncoder
    /// The column group whose members this container writes (ColumnGroup.swift),
    /// or nil for the record's own container.
    let groupPath: ColumnGroupPath?
    var codingPath: [any CodingKey] { [] }

    init(encoder: PersistenceEncoder, groupPath: ColumnGroupPath? = nil) {
        (self.encoder, self.groupPath) = (encoder, groupPath)
    }

    @inline(__always)
    private func name(_ key: Key) -> String { groupPath.recordKey(key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { encoder.append(.null, key: name(key)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.append(.integer(value ? 1 : 0), key: name(key)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.append(.text(value), key: name(key)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.append(.real(value), key: name(key)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.append(.real(Double(value)), key: name(key)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.append(.integer(value), key: name(key)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encoder.append(value.databaseValue, key: name(key)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.append(.integer(Int64(value)), key: name(key)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encoder.append(value.databaseValue, key: name(key)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let name = name(key)
        if let single = try encoder.singleDatabaseValue(for: value) {
            encoder.append(single, key: name)
        } else if let path = groupPath.spreadPath(for: T.self, key: key.stringValue) {
            // A column group, or a struct carried by an enum record's case:
            // its members are columns of the record.
            try value.encode(to: ColumnGroupEncoder(encoder: encoder, path: path))
        } else {
            encoder.append(try encoder.jsonDatabaseValue(for: value, key: name), key: name)
        }
    }

    // nil is NULL: the column set of a record type must not depend on its values.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, key) }

    @inline(__always)
    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value {
            try encode(value, forKey: key)
        } else if let group = T.self as? any ColumnGroup.Type {
            // A nil column group: NULL in each of its columns.
            let path = ColumnGroupPath(parent: groupPath, group: group, key: key.stringValue)
            for member in try path.memberKeys(of: group) { encoder.append(.null, key: member) }
        } else {
            try encodeNil(forKey: key)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        if groupPath == nil, let discriminatorKey = encoder.discriminatorKey {
            // The case of an enum record: the discriminator, then its associated values.
            encoder.state.pointee.encodedEnumCase = true
            encoder.append(.text(key.stringValue), key: discriminatorKey)
            let path = ColumnGroupPath(parent: nil, rule: .enumCase, key: key.stringValue)
            return KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(encoder: encoder, groupPath: path))
        }
        encoder.fail("nested containers are not supported for column \"\(name(key))\"; use a Codable property, stored as JSON")
        return KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(encoder: PersistenceEncoder.discarding))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.fail("nested containers are not supported for column \"\(name(key))\"; use a Codable property, stored as JSON")
        return JSONFallbackUnkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.fail("superEncoder() is not supported by records")
        return PersistenceEncoder.discarding
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.fail("superEncoder(forKey:) is not supported by records")
        return PersistenceEncoder.discarding
    }
}

extension PersistenceEncoder {
    /// An encoder whose output is thrown away, returned after an error was recorded.
    static var discarding: PersistenceEncoder {
        PersistenceEncoder(DiscardedRecord.self, jsonEncoder: { _ in .databaseDefault() })
    }
}

private struct DiscardedRecord: EncodableRecord {
    func encode(to container: inout PersistenceContainer) throws {}
}

/// Containers that swallow values after the encoder recorded an error.
private struct JSONFallbackUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RecordKeyedEncodingContainer<NestedKey>(encoder: PersistenceEncoder.discarding))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { PersistenceEncoder.discarding }
}

private struct JSONFallbackSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
