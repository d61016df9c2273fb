// KeyPathProbeDecoder: decodes a record from made-up values, to learn which
// coding key fills which property.
//
// The record is decoded several times ("rounds"). In each round, the probe
// gives every coding key one of two values of the requested type, chosen by
// one bit of the key's index; a nested value (struct, array, dictionary) gets
// the same bit in all its leaves. Reading a key path on the decoded records
// then shows, round after round, the bit pattern of exactly one key — the key
// that fills that property — or of none, for a computed property.

import Foundation

/// The values handed out for each key in one round, and the order keys were asked in.
final class ProbeRound {
    let round: Int
    /// The coding keys, in the order the record asked for them (shared by all rounds).
    var keys: [String]
    /// The type the record asked for at each key (optionals unwrapped).
    var types: [Any.Type]
    /// The fingerprint of the value handed out for each key in this round.
    var fingerprints: [String: String] = [:]
    /// The type a wrapper record decodes from its single-value container
    /// (`decoder.singleValueContainer().decode(Player.self)`), if any.
    var wrappedType: Any.Type?
    /// The CodingKey type of the record's keyed container.
    var codingKeyType: (any CodingKey.Type)?
    /// The keys of optional values (asked with `decodeIfPresent`, or members
    /// of an optional column group): their columns may hold NULL.
    var optionalKeys: Set<String> = []
    /// Every key asked for in this round, in order, repeats included.
    var asked: [String] = []
    /// Which pair of candidate values each key gets (see ProbeValues): a key
    /// whose type refused the first pair (`guard score > 0`, an email
    /// without "@") is given the next one in a new attempt.
    let choices: [String: Int]

    init(round: Int, keys: [String], types: [Any.Type], choices: [String: Int] = [:]) {
        self.round = round
        self.keys = keys
        self.types = types
        self.choices = choices
    }

    /// The candidate pair of `key`.
    func choice(for key: String) -> Int { choices[key] ?? 0 }

    /// The bit that key `index` gets in this round.
    func bit(forKeyAt index: Int) -> Bool {
        ((index + 1) >> round) & 1 == 1
    }

    /// The index of `key`, registering it on first sight.
    func index(of key: String, type: Any.Type) -> Int {
        if let index = keys.firstIndex(of: key) { return index }
        keys.append(key)
        types.append(type)
        return keys.count - 1
    }
}

/// The top-level decoder of a probe round: a keyed container that records keys.
struct KeyPathProbeDecoder: Decoder {
    let round: ProbeRound
    /// The column group being decoded (its members are keys of the record),
    /// or nil for the record itself.
    var groupPath: ColumnGroupPath?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if round.codingKeyType == nil { round.codingKeyType = Key.self }
        return KeyedDecodingContainer(RecordingContainer<Key>(round: round, groupPath: groupPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a record decodes from a keyed container"))
    }

    /// A wrapper around another record (`decoder.singleValueContainer().decode(Player.self)`):
    /// the wrapped type is probed with the same keys, so `\Wrapper.player.name`
    /// resolves to the column of `\Player.name`.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        WrapperContainer(round: round)
    }

    struct WrapperContainer: SingleValueDecodingContainer {
        let round: ProbeRound
        var codingPath: [any CodingKey] { [] }

        private func refuse(_ type: Any.Type) -> DecodingError {
            DecodingError.typeMismatch(type, .init(
                codingPath: [], debugDescription: "the record is a single value of type \(type), with no column to name by key path"))
        }

        func decodeNil() -> Bool { false }
        func decode(_ type: Bool.Type) throws -> Bool { throw refuse(type) }
        func decode(_ type: String.Type) throws -> String { throw refuse(type) }
        func decode(_ type: Double.Type) throws -> Double { throw refuse(type) }
        func decode(_ type: Float.Type) throws -> Float { throw refuse(type) }
        func decode(_ type: Int.Type) throws -> Int { throw refuse(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { throw refuse(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { throw refuse(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { throw refuse(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { throw refuse(type) }
        func decode(_ type: UInt.Type) throws -> UInt { throw refuse(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { throw refuse(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { throw refuse(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { throw refuse(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { throw refuse(type) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if ProbeValues.leaf(T.self, bit: false) != nil { throw refuse(type) }
            if round.wrappedType == nil { round.wrappedType = T.self }
            return try T(from: KeyPathProbeDecoder(round: round))
        }
    }

    struct RecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let round: ProbeRound
        let groupPath: ColumnGroupPath?
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        /// The record-level key of `key` (composed with the enclosing column groups').
        private func name(_ key: Key) -> String { groupPath.recordKey(key.stringValue) }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            round.asked.append(name(key))
            if let group = T.self as? any ColumnGroup.Type {
                // A column group: its members are keys of the record, probed like the record's own.
                let path = ColumnGroupPath(parent: groupPath, group: group, key: key.stringValue)
                return try T(from: KeyPathProbeDecoder(round: round, groupPath: path))
            }
            let index = round.index(of: name(key), type: T.self)
            let value = try ProbeValues.make(
                T.self, bit: round.bit(forKeyAt: index), choice: round.choice(for: name(key)), depth: 0)
            round.fingerprints[name(key)] = ProbeValues.fingerprint(value)
            return value
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            let start = round.asked.count
            let value = try decode(T.self, forKey: key)
            round.optionalKeys.formUnion(round.asked[start...])
            return value
        }
        // The standard library's defaults for these do not call the generic form above.
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }
        private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? { try decodeIfPresent(type, forKey: key) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let index = round.index(of: name(key), type: Any.self)
            return try NestedProbeDecoder(bit: round.bit(forKeyAt: index), choice: round.choice(for: name(key)), depth: 1).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let index = round.index(of: name(key), type: Any.self)
            return try NestedProbeDecoder(bit: round.bit(forKeyAt: index), choice: round.choice(for: name(key)), depth: 1).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { KeyPathProbeDecoder(round: round) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            let index = round.index(of: name(key), type: Any.self)
            return NestedProbeDecoder(bit: round.bit(forKeyAt: index), choice: round.choice(for: name(key)), depth: 1)
        }
    }
}

/// Makes probe values: two distinct values per type, chosen by a bit.
enum ProbeValues {
    /// Nested values deeper than this are empty (recursive types stop here).
    static let maximumDepth = 4

    /// How many candidate pairs there are for the types that have several.
    static let choiceCount = 6

    static func make<T: Decodable>(_ type: T.Type, bit: Bool, choice: Int, depth: Int) throws -> T {
        if let leaf = leaf(T.self, bit: bit, choice: choice) { return leaf }
        return try T(from: NestedProbeDecoder(bit: bit, choice: choice, depth: depth + 1))
    }

    /// Candidate pairs of numbers: the first pair (0 and 1) suits most
    /// types; the next ones suit types that validate their value (positive,
    /// non-zero, negative, larger).
    private static let numbers: [(Int, Int)] = [(0, 1), (1, 2), (2, 3), (-1, -2), (100, 200), (1000, 2000)]
    /// Candidate pairs of strings: digits, letters, then shapes that common
    /// validated types accept (email addresses, URLs, dates, UUIDs).
    private static let strings: [(String, String)] = [
        ("0", "1"), ("a", "b"), ("a@example.com", "b@example.com"), ("https://example.com/a", "https://example.com/b"),
        ("2000-01-01", "2000-01-02"),
        ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001"),
    ]

    /// A directly made value for the standard value types and enumerations:
    /// the first or second value (by `bit`) of candidate pair `choice`.
    static func leaf<T>(_ type: T.Type, bit: Bool, choice: Int = 0) -> T? {
        let n = bit ? 1 : 0
        let pair = numbers[min(max(choice, 0), numbers.count - 1)]
        let number = bit ? pair.1 : pair.0
        switch T.self {
        case is Bool.Type: return bit as? T
        case is String.Type:
            let strings = strings[min(max(choice, 0), strings.count - 1)]
            return (bit ? strings.1 : strings.0) as? T
        case is Date.Type: return Date(timeIntervalSince1970: Double(number)) as? T
        case is Decimal.Type: return Decimal(number) as? T
        case is Data.Type: return Data(repeating: UInt8(n), count: choice + 1) as? T
        case is UUID.Type: return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(choice), UInt8(n))) as? T
        case is URL.Type: return URL(string: "https://example.com/\(choice)/\(n)") as? T
        default: break
        }
        if let integer = T.self as? any FixedWidthInteger.Type {
            return (integer.init(exactly: number) ?? integer.init(exactly: n)) as? T
        }
        if let floating = T.self as? any BinaryFloatingPoint.Type { return floating.init(number) as? T }
        if let caseIterable = T.self as? any CaseIterable.Type {
            let cases = allCases(of: caseIterable)
            guard !cases.isEmpty else { return nil }
            return cases[cases.count > 1 ? n : 0] as? T
        }
        // Enums without associated values, CaseIterable or not: their first
        // and second cases, made from the type's metadata.
        if let info = EnumMetadata.info(of: T.self), info.payloadCaseCount == 0, info.emptyCaseCount > 0 {
            return EnumMetadata.value(T.self, tag: info.emptyCaseCount > 1 ? n : 0)
        }
        if let rawRepresentable = T.self as? any RawRepresentable.Type {
            return integerRawCase(rawRepresentable, bit: bit) as? T
        }
        return nil
    }

    private static func allCases<C: CaseIterable>(of type: C.Type) -> [Any] {
        Array(type.allCases)
    }

    /// A case of an integer-backed enumeration, found by trying raw values
    /// 0...255: the first valid case for bit 0, the second for bit 1.
    private static func integerRawCase<R: RawRepresentable>(_ type: R.Type, bit: Bool) -> R? {
        guard let rawType = R.RawValue.self as? any FixedWidthInteger.Type else { return nil }
        var found: [R] = []
        for candidate in 0...255 {
            if let raw = rawType.init(candidate) as? R.RawValue, let value = R(rawValue: raw) {
                found.append(value)
                if found.count == 2 { break }
            }
        }
        guard let first = found.first else { return nil }
        return bit && found.count > 1 ? found[1] : first
    }

    /// A text that tells values apart: their debug description, optionals unwrapped.
    static func fingerprint(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return fingerprint(wrapped)
        }
        return String(reflecting: value)
    }
}

/// The decoder of a nested value: every leaf gets the value of one bit.
struct NestedProbeDecoder: Decoder, SingleValueDecodingContainer {
    let bit: Bool
    let choice: Int
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(decoder: self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { depth > ProbeValues.maximumDepth }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try ProbeValues.make(T.self, bit: bit, choice: choice, depth: depth) }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: NestedProbeDecoder
        var codingPath: [any CodingKey] { [] }
        /// One key, so that dictionaries get one entry. For an enum with
        /// associated values (its keys are its cases), the first or second
        /// case, by bit.
        var allKeys: [Key] {
            guard decoder.depth <= ProbeValues.maximumDepth else { return [] }
            if let cases = EnumMetadata.allCases(Key.self), !cases.isEmpty {
                return [cases[decoder.bit && cases.count > 1 ? 1 : 0]]
            }
            return [Key(stringValue: "k")].compactMap { $0 }
        }
        func contains(_ key: Key) -> Bool { decoder.depth <= ProbeValues.maximumDepth }
        func decodeNil(forKey key: Key) throws -> Bool { decoder.depth > ProbeValues.maximumDepth }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ProbeValues.make(T.self, bit: decoder.bit, choice: decoder.choice, depth: decoder.depth)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try NestedProbeDecoder(bit: decoder.bit, choice: decoder.choice, depth: decoder.depth + 1).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(decoder: NestedProbeDecoder(bit: decoder.bit, choice: decoder.choice, depth: decoder.depth + 1))
        }
        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }

    /// A list of one element (none beyond the maximum depth).
    struct Unkeyed: UnkeyedDecodingContainer {
        let decoder: NestedProbeDecoder
        var codingPath: [any CodingKey] { [] }
        var count: Int? { decoder.depth > ProbeValues.maximumDepth ? 0 : 1 }
        var isAtEnd: Bool { currentIndex >= (count ?? 0) }
        var currentIndex = 0

        init(decoder: NestedProbeDecoder) { self.decoder = decoder }

        mutating func decodeNil() throws -> Bool { false }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try ProbeValues.make(T.self, bit: decoder.bit, choice: decoder.choice, depth: decoder.depth)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            return try NestedProbeDecoder(bit: decoder.bit, choice: decoder.choice, depth: decoder.depth + 1).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            return Unkeyed(decoder: NestedProbeDecoder(bit: decoder.bit, choice: decoder.choice, depth: decoder.depth + 1))
        }
        mutating func superDecoder() throws -> any Decoder {
            currentIndex += 1
            return NestedProbeDecoder(bit: decoder.bit, choice: decoder.choice, depth: decoder.depth + 1)
        }
    }
}
