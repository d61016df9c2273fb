// RecordKeyedDecodingContainer: the keyed container of RecordDecoder, reused
// for every row; each `decode` reads one column through the type's fast path
// (see RecordDecoder.swift).

import Foundation

/// The keyed container of RecordDecoder.
struct RecordKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Not retained: the decoder keeps this container for reuse across rows,
    /// and a container only lives inside the `init(from:)` of a record being
    /// decoded by this decoder (keeping a decoding container beyond
    /// `init(from:)` is outside Codable's contract). A strong reference would
    /// be a cycle; a safe `unowned` one measured ~6% of fetch time.
    ///
    /// Hot path: the per-value reads go through `withDecoder`, which uses the
    /// decoder without the retain/release pair that reading an unowned
    /// reference into a local costs (two atomic operations per decoded
    /// value, measured at about 15% of the decoding time of a fetch).
    private let unmanagedDecoder: Unmanaged<RecordDecoder>
    /// The decoder, for the paths that are not per value.
    var decoder: RecordDecoder { unmanagedDecoder.takeUnretainedValue() }
    /// The column group whose members this container reads (ColumnGroup.swift),
    /// or nil for the record's own container.
    ///
    /// Not retained either, so that the container holds no reference that
    /// Swift counts: Codable's box copies the container on every decoded
    /// value, and a copy is then a plain memory copy. The path is kept alive
    /// by its owner for as long as the container may be used: the
    /// `ColumnGroupDecoder` of the group's `init(from:)`, or, for the case of
    /// an enum record, the decoder's per-row state (`keepEnumCasePath`).
    unowned(unsafe) let groupPath: ColumnGroupPath?
    var codingPath: [any CodingKey] { [] }

    init(decoder: RecordDecoder, groupPath: ColumnGroupPath? = nil) {
        (self.unmanagedDecoder, self.groupPath) = (Unmanaged.passUnretained(decoder), groupPath)
    }

    /// Runs `body` with the decoder, which the caller's record decoding keeps
    /// alive (see `unmanagedDecoder`).
    @inline(__always)
    private func withDecoder<R>(_ body: (RecordDecoder) throws -> R) rethrows -> R {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }

    @inline(__always)
    private func name(_ key: Key) -> String { groupPath.recordKey(key.stringValue) }

    var allKeys: [Key] {
        // An enum record has one key: its case (checked when the container was made).
        if groupPath == nil, decoder.discriminatorColumn != nil { return [decoder.enumCase.flatMap { Key(stringValue: $0) }].compactMap { $0 } }
        return decoder.columnNames.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { decoder.layout.resolve(name(key)) >= 0 }

    func decodeNil(forKey key: Key) throws -> Bool {
        let index = decoder.layout.resolve(name(key))
        return index < 0 || decoder.isNull(at: index)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try withDecoder { d in try d.decodeFast(type, key: name(key)) { $0.integer(at: $1).map { $0 != 0 } } }
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try withDecoder { d in try d.decodeFast(type, key: name(key)) { $0.text(at: $1) } }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try withDecoder { d in try d.decodeFast(type, key: name(key)) { $0.real(at: $1) } }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try withDecoder { d in try d.decodeFast(type, key: name(key)) { $0.integer(at: $1).map { Int($0) } } }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try withDecoder { d in try d.decodeFast(type, key: name(key)) { $0.integer(at: $1) } }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try withDecoder { d in try d.decodeConvertible(type, key: name(key)) } }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withDecoder { decoder in
            let name = name(key)
            let index = decoder.columnIndex(name)
            guard index >= 0 else {
                // A column group, or a struct carried by an enum record's case,
                // has no column of its own: its members do.
                if let path = groupPath.spreadPath(for: T.self, key: key.stringValue) {
                    return try T(from: ColumnGroupDecoder(decoder: decoder, path: path))
                }
                throw decoder.missingColumn(name, T.self)
            }
            if decoder.isNull(at: index) {
                throw decoder.columnError(.unexpectedNull, index, T.self)
            }
            return try decoder.decodeAny(T.self, at: index)
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try withDecoder { d in try d.decodeFastIfPresent(type, key: name(key)) { $0.integer(at: $1).map { $0 != 0 } } }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try withDecoder { d in try d.decodeFastIfPresent(type, key: name(key)) { $0.text(at: $1) } }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try withDecoder { d in try d.decodeFastIfPresent(type, key: name(key)) { $0.real(at: $1) } }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try withDecoder { d in try d.decodeFastIfPresent(type, key: name(key)) { $0.integer(at: $1).map { Int($0) } } }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try withDecoder { d in try d.decodeFastIfPresent(type, key: name(key)) { $0.integer(at: $1) } }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try withDecoder { d in try d.decodeConvertibleIfPresent(type, key: name(key)) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withDecoder { decoder in try decodeIfPresent(type, forKey: key, decoder: decoder) }
    }

    private func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key, decoder: RecordDecoder) throws -> T? {
        let index = decoder.columnIndex(name(key))
        if index < 0, let group = T.self as? any ColumnGroup.Type {
            // An optional column group is nil when all its columns are NULL (or absent).
            let path = ColumnGroupPath(parent: groupPath, group: group, key: key.stringValue)
            let isNil = try path.memberKeys(of: group).allSatisfy { member in
                let memberIndex = decoder.layout.resolve(member)
                return memberIndex < 0 || decoder.isNull(at: memberIndex)
            }
            return isNil ? nil : try T(from: ColumnGroupDecoder(decoder: decoder, path: path))
        }
        guard index >= 0, !decoder.isNull(at: index) else { return nil }
        return try decoder.decodeAny(T.self, at: index)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        if groupPath == nil, decoder.discriminatorColumn != nil {
            // The case of an enum record: its associated values are columns.
            let path = decoder.keepEnumCasePath(ColumnGroupPath(parent: nil, rule: .enumCase, key: key.stringValue))
            return KeyedDecodingContainer(RecordKeyedDecodingContainer<NestedKey>(decoder: decoder, groupPath: path))
        }
        throw decoder.error(
            .other("nested containers are not supported; use a Codable property, stored as JSON"),
            column: decoder.layout.columnName(for: name(key)), expectedType: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw decoder.error(
            .other("nested containers are not supported; use a Codable property, stored as JSON"),
            column: decoder.layout.columnName(for: name(key)), expectedType: [Any].self)
    }

    func superDecoder() throws -> any Decoder {
        throw decoder.error(.other("superDecoder() is not supported by records"), column: "*", expectedType: decoder.recordType)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw decoder.error(.other("superDecoder(forKey:) is not supported by records"), column: "*", expectedType: decoder.recordType)
    }
}
