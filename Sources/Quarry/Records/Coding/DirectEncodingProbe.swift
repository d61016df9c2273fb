// DirectEncodingProbe: decides whether a record may be written straight from
// its stored properties (DirectEncodingPlan.swift says when and why), by
// running its `encode(to:)` on made-up records and checking that it behaves
// as the synthesized one.
//
// The made-up records are built in memory: every stored property is of a
// plan kind, so initializing each one at its offset initializes the whole
// struct, which is then moved out (as DirectRecordReader does with a row).
// The values are DirectDecodingProbe's rounds: distinct values (which tell
// which call wrote which property), large numbers, empty and long strings,
// padded and mixed-case strings, nil, and each Bool true alone. A type is
// accepted when every round asks for one keyed container and writes, with
// the same keys in the same order, exactly one value per stored property,
// unchanged, through the concrete `encode` overload for a non-optional
// property and `encodeIfPresent` for an optional one (or the generic ones,
// which PersistenceEncoder converts the same way for these types).

import Foundation

enum DirectEncodingProbe {
    typealias Kind = DirectDecodingPlan.Kind
    typealias Value = DirectDecodingProbe.Value
    typealias Call = DirectDecodingProbe.Call

    /// The plan of `Record`, or nil when the probe refuses it.
    static func plan<Record: EncodableRecord & Encodable>(for type: Record.Type) -> DirectEncodingPlan? {
        guard let (offsets, kinds) = DirectDecodingProbe.plainFields(of: Record.self) else { return nil }
        let fields = offsets.indices
        func values(_ round: DirectDecodingProbe.Round) -> [Value] {
            kinds.indices.map { DirectDecodingProbe.Recorder.value(kinds[$0], call: $0, round: round) }
        }

        // Round 0: distinct values, which tell which call wrote which property
        // (Bool properties are told apart by the rounds that follow).
        let firstValues = values(.distinct)
        guard let first = run(Record.self, offsets: offsets, kinds: kinds, values: firstValues), first.count == fields.count
        else { return nil }
        var fieldOfCall = [Int?](repeating: nil, count: first.count)
        for (callIndex, call) in first.enumerated() where !call.kind.isBool {
            let matches = fields.filter { kinds[$0] == call.kind && firstValues[$0] == call.value }
            guard matches.count == 1 else { return nil }
            fieldOfCall[callIndex] = matches[0]
        }
        var rounds: [(values: [Value], calls: [Call])] = [(firstValues, first)]
        for round in [DirectDecodingProbe.Round.low, .high, .other] {
            let roundValues = values(round)
            guard let calls = run(Record.self, offsets: offsets, kinds: kinds, values: roundValues) else { return nil }
            rounds.append((roundValues, calls))
        }
        // One round per Bool property, that property alone true.
        for field in fields where kinds[field].isBool {
            let roundValues = values(.boolTrue(field))
            guard let calls = run(Record.self, offsets: offsets, kinds: kinds, values: roundValues) else { return nil }
            let trues = calls.indices.filter { calls[$0].kind.isBool && calls[$0].value == .bool(true) }
            guard trues.count == 1, trues[0] < fieldOfCall.count, fieldOfCall[trues[0]] == nil else { return nil }
            fieldOfCall[trues[0]] = field
            rounds.append((roundValues, calls))
        }
        // Every property written by exactly one call, every round the same
        // calls, every value unchanged.
        let mapped = fieldOfCall.compactMap { $0 }
        guard mapped.count == fields.count, Set(mapped).count == fields.count else { return nil }
        for (roundValues, calls) in rounds {
            guard calls.map(\.key) == first.map(\.key), calls.map(\.kind) == first.map(\.kind) else { return nil }
            for (callIndex, call) in calls.enumerated() {
                guard let field = fieldOfCall[callIndex], kinds[field] == call.kind, roundValues[field] == call.value
                else { return nil }
            }
        }
        let steps = first.indices.map { callIndex in
            DirectEncodingPlan.Step(offset: offsets[fieldOfCall[callIndex] ?? 0], kind: first[callIndex].kind)
        }
        let keys = first.map(\.key)
        let naming = Record.databaseColumnEncodingStrategy
        return DirectEncodingPlan(steps: steps, keys: keys, columns: keys.map { naming.columnName(for: $0) })
    }

    /// Runs `encode(to:)` on a record made of `values`; nil when it throws or
    /// asks for anything but the calls the plan can replay.
    static func run<Record: EncodableRecord & Encodable>(
        _ type: Record.Type, offsets: [Int], kinds: [Kind], values: [Value]
    ) -> [Call]? {
        let record = make(Record.self, offsets: offsets, kinds: kinds, values: values)
        let recorder = Recorder(userInfo: Record.databaseEncodingUserInfo)
        do {
            try record.encode(to: ProbeEncoder(recorder: recorder))
        } catch {
            return nil
        }
        guard !recorder.refused, recorder.containers == 1 else { return nil }
        return recorder.calls
    }

    /// A record whose stored properties (at `offsets`, of `kinds`, which
    /// must be all of them) hold `values`.
    static func make<Record>(_ type: Record.Type, offsets: [Int], kinds: [Kind], values: [Value]) -> Record {
        let buffer = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Record>.size, alignment: MemoryLayout<Record>.alignment)
        defer { buffer.deallocate() }
        for index in offsets.indices {
            initialize(buffer + offsets[index], kinds[index], values[index])
        }
        return buffer.assumingMemoryBound(to: Record.self).move()
    }

    /// Initializes the property of `kind` at `target` with `value` (the
    /// kind's zero when `value` is not of the kind; nil for an optional).
    static func initialize(_ target: UnsafeMutableRawPointer, _ kind: Kind, _ value: Value) {
        let unwrapped = value.unwrapped
        switch kind {
        case .int: target.initializeMemory(as: Int.self, to: unwrapped as? Int ?? 0)
        case .int64: target.initializeMemory(as: Int64.self, to: unwrapped as? Int64 ?? 0)
        case .double: target.initializeMemory(as: Double.self, to: unwrapped as? Double ?? 0)
        case .bool: target.initializeMemory(as: Bool.self, to: unwrapped as? Bool ?? false)
        case .string: target.initializeMemory(as: String.self, to: unwrapped as? String ?? "")
        case .optionalInt: target.initializeMemory(as: Int?.self, to: unwrapped as? Int)
        case .optionalInt64: target.initializeMemory(as: Int64?.self, to: unwrapped as? Int64)
        case .optionalDouble: target.initializeMemory(as: Double?.self, to: unwrapped as? Double)
        case .optionalBool: target.initializeMemory(as: Bool?.self, to: unwrapped as? Bool)
        case .optionalString: target.initializeMemory(as: String?.self, to: unwrapped as? String)
        }
    }

    /// What one run of `encode(to:)` wrote.
    final class Recorder {
        let userInfo: [CodingUserInfoKey: Any]
        var calls: [Call] = []
        var containers = 0
        /// Set when `encode(to:)` asked for something the plan cannot replay.
        var refused = false

        init(userInfo: [CodingUserInfoKey: Any]) { self.userInfo = userInfo }

        struct Refusal: Error {}

        func refuse() -> Refusal {
            refused = true
            return Refusal()
        }

        func record(_ key: String, _ kind: Kind, _ value: Value) {
            calls.append(Call(key: key, kind: kind, value: value))
        }
    }

    struct ProbeEncoder: Encoder {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { recorder.userInfo }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            recorder.containers += 1
            return KeyedEncodingContainer(ProbeContainer<Key>(recorder: recorder))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            recorder.refused = true
            return RefusingUnkeyedContainer(recorder: recorder)
        }
        func singleValueContainer() -> any SingleValueEncodingContainer {
            recorder.refused = true
            return RefusingSingleValueContainer(recorder: recorder)
        }
    }

    /// Records the calls the plan replays; anything else refuses the record.
    struct ProbeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }

        private func record(_ key: Key, _ kind: Kind, _ value: Value) { recorder.record(key.stringValue, kind, value) }

        mutating func encodeNil(forKey key: Key) throws { throw recorder.refuse() }
        mutating func encode(_ value: Int, forKey key: Key) throws { record(key, .int, .int(value)) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { record(key, .int64, .int64(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { record(key, .double, .double(value.bitPattern)) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { record(key, .bool, .bool(value)) }
        mutating func encode(_ value: String, forKey key: Key) throws { record(key, .string, .string(value)) }
        /// The generic overload, which the synthesized `encode(to:)` of a
        /// generic record calls: PersistenceEncoder converts a non-optional
        /// value of the plan's types as the concrete overloads do. An optional
        /// `T`, or any other type, is refused.
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            guard let kind = Kind(T.self), !kind.isOptional, let probed = Self.value(value, kind) else { throw recorder.refuse() }
            record(key, kind, probed)
        }

        // nil is NULL in PersistenceEncoder, as the plan writes it.
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
            record(key, .optionalInt, value.map { .int($0) } ?? .none)
        }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
            record(key, .optionalInt64, value.map { .int64($0) } ?? .none)
        }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
            record(key, .optionalDouble, value.map { .double($0.bitPattern) } ?? .none)
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
            record(key, .optionalBool, value.map { .bool($0) } ?? .none)
        }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
            record(key, .optionalString, value.map { .string($0) } ?? .none)
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            guard let kind = Kind(T?.self), kind.isOptional else { throw recorder.refuse() }
            if let value {
                guard let probed = Self.value(value, kind.base) else { throw recorder.refuse() }
                record(key, kind, probed)
            } else {
                record(key, kind, .none)
            }
        }

        /// The probe value of `value`, of the non-optional `kind`.
        private static func value<T>(_ value: T, _ kind: Kind) -> Value? {
            switch kind {
            case .int: (value as? Int).map { .int($0) }
            case .int64: (value as? Int64).map { .int64($0) }
            case .double: (value as? Double).map { .double($0.bitPattern) }
            case .bool: (value as? Bool).map { .bool($0) }
            case .string: (value as? String).map { .string($0) }
            default: nil
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            recorder.refused = true
            return KeyedEncodingContainer(ProbeContainer<NestedKey>(recorder: recorder))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            recorder.refused = true
            return RefusingUnkeyedContainer(recorder: recorder)
        }
        mutating func superEncoder() -> any Encoder {
            recorder.refused = true
            return ProbeEncoder(recorder: recorder)
        }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            recorder.refused = true
            return ProbeEncoder(recorder: recorder)
        }
    }

    /// Handed out after a refusal: every value throws.
    struct RefusingUnkeyedContainer: UnkeyedEncodingContainer {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() throws { throw recorder.refuse() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw recorder.refuse() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            recorder.refused = true
            return KeyedEncodingContainer(ProbeContainer<NestedKey>(recorder: recorder))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            recorder.refused = true
            return self
        }
        mutating func superEncoder() -> any Encoder {
            recorder.refused = true
            return ProbeEncoder(recorder: recorder)
        }
    }

    /// Handed out after a refusal: every value throws.
    struct RefusingSingleValueContainer: SingleValueEncodingContainer {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() throws { throw recorder.refuse() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw recorder.refuse() }
    }
}
