// DirectDecodingProbe: decides whether a record's rows may be decoded
// straight into its stored properties (DirectDecodingPlan.swift says when and
// why), by running its `init(from:)` on made-up values and checking that it
// behaves as the synthesized one.

@_spi(Reflection) import Swift

enum DirectDecodingProbe {
    /// The plan of `Record`, or nil when the probe refuses it.
    static func plan<Record: FetchableRecord & Decodable>(for type: Record.Type) -> DirectDecodingPlan? {
        guard let (offsets, kinds) = plainFields(of: Record.self) else { return nil }
        let fields = offsets.indices

        // Round 0: distinct values, which tell which call fills which property
        // (Bool properties are told apart by the rounds that follow).
        guard let first = run(Record.self, .distinct), first.calls.count == offsets.count else { return nil }
        var fieldOfCall = [Int?](repeating: nil, count: first.calls.count)
        for (callIndex, call) in first.calls.enumerated() where !call.kind.isBool {
            let matches = fields.filter { kinds[$0] == call.kind && read(first.record, offsets[$0], call.kind) == call.value }
            guard matches.count == 1 else { return nil }
            fieldOfCall[callIndex] = matches[0]
        }
        var rounds: [ProbeRun<Record>] = [first]
        for round in [Round.low, .high, .other] {
            guard let run = run(Record.self, round) else { return nil }
            rounds.append(run)
        }
        // One round per Bool call, that call alone true.
        for (callIndex, call) in first.calls.enumerated() where call.kind.isBool {
            guard let run = run(Record.self, .boolTrue(callIndex)) else { return nil }
            let trues = fields.filter { kinds[$0] == call.kind && read(run.record, offsets[$0], call.kind) == .bool(true) }
            guard trues.count == 1 else { return nil }
            fieldOfCall[callIndex] = trues[0]
            rounds.append(run)
        }
        // Every property filled by exactly one call, every round the same
        // calls, every value held unchanged.
        let mapped = fieldOfCall.compactMap { $0 }
        guard mapped.count == offsets.count, Set(mapped).count == offsets.count else { return nil }
        for run in rounds {
            guard run.calls.map(\.key) == first.calls.map(\.key), run.calls.map(\.kind) == first.calls.map(\.kind) else { return nil }
            for (callIndex, call) in run.calls.enumerated() {
                guard let field = fieldOfCall[callIndex], read(run.record, offsets[field], call.kind) == call.value else { return nil }
            }
        }
        let steps = first.calls.enumerated().map { callIndex, call in
            DirectDecodingPlan.Step(key: call.key, offset: offsets[fieldOfCall[callIndex] ?? 0], kind: call.kind)
        }
        return DirectDecodingPlan.make(steps, for: Record.self)
    }

    /// The offsets and plan kinds of the stored properties of `Record`, or
    /// nil when it cannot have a plan, read or write: a class, a column
    /// group, an enum record, an empty struct, or a property of another type.
    static func plainFields<Record>(of type: Record.Type) -> (offsets: [Int], kinds: [DirectDecodingPlan.Kind])? {
        guard !(Record.self is AnyClass), !(Record.self is any ColumnGroup.Type),
            EnumRecordColumns.discriminatorColumn(of: Record.self) == nil,
            MemoryLayout<Record>.size > 0,
            let fields = RecordColumns.storedFields(of: Record.self), !fields.isEmpty
        else { return nil }
        var kinds: [DirectDecodingPlan.Kind] = []
        for field in fields {
            guard let kind = DirectDecodingPlan.Kind(field.type) else { return nil }
            kinds.append(kind)
        }
        return (fields.map(\.offset), kinds)
    }

    /// The values of one run of `init(from:)`.
    enum Round {
        case distinct, low, high, other
        case boolTrue(Int)
    }

    /// A value handed out, and read back from a property.
    enum Value: Equatable {
        case int(Int), int64(Int64), double(UInt64), bool(Bool), string(String), none

        /// The value itself, nil for `none`.
        var unwrapped: Any? {
            switch self {
            case .int(let value): value
            case .int64(let value): value
            case .double(let bits): Double(bitPattern: bits)
            case .bool(let value): value
            case .string(let value): value
            case .none: nil
            }
        }
    }

    struct Call {
        let key: String
        let kind: DirectDecodingPlan.Kind
        let value: Value
    }

    struct ProbeRun<Record> {
        let record: Record
        let calls: [Call]
    }

    /// Runs `init(from:)` with the values of `round`; nil when it throws or
    /// asks for anything but the calls the plan can replay.
    static func run<Record: FetchableRecord & Decodable>(_ type: Record.Type, _ round: Round) -> ProbeRun<Record>? {
        let recorder = Recorder(round: round, userInfo: Record.databaseDecodingUserInfo)
        guard let record = try? Record(from: ProbeDecoder(recorder: recorder)), !recorder.refused, recorder.containers == 1
        else { return nil }
        return ProbeRun(record: record, calls: recorder.calls)
    }

    /// The value of the property at `offset` of `record`, read as `kind`.
    static func read<Record>(_ record: Record, _ offset: Int, _ kind: DirectDecodingPlan.Kind) -> Value {
        withUnsafeBytes(of: record) { bytes in
            switch kind {
            case .int: .int(bytes.load(fromByteOffset: offset, as: Int.self))
            case .int64: .int64(bytes.load(fromByteOffset: offset, as: Int64.self))
            case .double: .double(bytes.load(fromByteOffset: offset, as: Double.self).bitPattern)
            case .bool: .bool(bytes.load(fromByteOffset: offset, as: Bool.self))
            case .string: .string(bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: String.self).pointee } ?? "")
            case .optionalInt: bytes.load(fromByteOffset: offset, as: Int?.self).map { .int($0) } ?? .none
            case .optionalInt64: bytes.load(fromByteOffset: offset, as: Int64?.self).map { .int64($0) } ?? .none
            case .optionalDouble: bytes.load(fromByteOffset: offset, as: Double?.self).map { .double($0.bitPattern) } ?? .none
            case .optionalBool: bytes.load(fromByteOffset: offset, as: Bool?.self).map { .bool($0) } ?? .none
            case .optionalString:
                bytes.baseAddress.flatMap { ($0 + offset).assumingMemoryBound(to: String?.self).pointee }.map { .string($0) } ?? .none
            }
        }
    }

    /// What one run of `init(from:)` asked for.
    final class Recorder {
        let round: Round
        let userInfo: [CodingUserInfoKey: Any]
        var calls: [Call] = []
        var containers = 0
        /// Set when `init(from:)` asked for something the plan cannot replay.
        var refused = false

        init(round: Round, userInfo: [CodingUserInfoKey: Any]) { (self.round, self.userInfo) = (round, userInfo) }

        struct Refusal: Error {}

        func refuse() -> Refusal {
            refused = true
            return Refusal()
        }

        /// The value of the next call, of `kind` (nil: an optional's nil).
        func next(_ key: String, _ kind: DirectDecodingPlan.Kind) -> Value {
            let value = Self.value(kind, call: calls.count, round: round)
            calls.append(Call(key: key, kind: kind, value: value))
            return value
        }

        static func value(_ kind: DirectDecodingPlan.Kind, call: Int, round: Round) -> Value {
            let isOptional = kind.isOptional
            switch round {
            case .distinct, .boolTrue:
                let trueCall: Int? = if case .boolTrue(let index) = round { index } else { nil }
                switch kind.base {
                case .int: return .int(1_000_003 &* (call + 1))
                case .int64: return .int64(Int64(2_000_029 &* (call + 1)))
                case .double: return .double((Double(call) + 1000.25).bitPattern)
                case .bool: return .bool(call == trueCall)
                default: return .string("Quarry Probe \(call) Ä")
                }
            // Large values, not the extremes: a hand-written init(from:) or
            // encode(to:) may do arithmetic or conversions (`Int(double)`,
            // `abs`, `+ 1`) that trap on Int.min, Int.max or an infinity,
            // and the probe must never crash a process that real rows
            // would not. 2^40 and 4.5e15 convert between Int and Double exactly.
            case .low:
                if isOptional { return .none }
                switch kind.base {
                case .int: return .int(-(1 << 40) - call)
                case .int64: return .int64(-(1 << 40) - Int64(call))
                case .double: return .double((-4.5e15).bitPattern)
                case .bool: return .bool(false)
                default: return .string("")
                }
            case .high:
                switch kind.base {
                case .int: return .int((1 << 40) + call)
                case .int64: return .int64((1 << 40) + Int64(call))
                case .double: return .double((4.5e15 + 0.5).bitPattern)
                case .bool: return .bool(false)
                default: return .string(String(repeating: "é🙂 ", count: 200) + "\(call)")
                }
            case .other:
                switch kind.base {
                case .int: return .int(-1)
                case .int64: return .int64(0)
                case .double: return .double((-0.0).bitPattern)
                case .bool: return .bool(false)
                default: return .string(" \tPadded\0 \u{FEFF}\n")
                }
            }
        }
    }

    struct ProbeDecoder: Decoder {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { recorder.userInfo }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            recorder.containers += 1
            return KeyedDecodingContainer(ProbeContainer<Key>(recorder: recorder))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw recorder.refuse() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { throw recorder.refuse() }
    }

    /// Replays the calls the plan supports; anything else refuses the record.
    struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: Recorder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] {
            recorder.refused = true
            return []
        }

        private func value(_ key: Key, _ kind: DirectDecodingPlan.Kind) -> Value { recorder.next(key.stringValue, kind) }

        func contains(_ key: Key) -> Bool {
            recorder.refused = true
            return false
        }
        func decodeNil(forKey key: Key) throws -> Bool { throw recorder.refuse() }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            guard case .int(let value) = value(key, .int) else { throw recorder.refuse() }
            return value
        }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
            guard case .int64(let value) = value(key, .int64) else { throw recorder.refuse() }
            return value
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            guard case .double(let bits) = value(key, .double) else { throw recorder.refuse() }
            return Double(bitPattern: bits)
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            guard case .bool(let value) = value(key, .bool) else { throw recorder.refuse() }
            return value
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            guard case .string(let value) = value(key, .string) else { throw recorder.refuse() }
            return value
        }
        /// The generic overload, which the synthesized `init(from:)` of a
        /// generic record calls: it reads a non-optional value of the plan's
        /// types as the concrete overloads do. An optional `T` reads
        /// differently (NULL is an error there), and is refused.
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let kind = DirectDecodingPlan.Kind(T.self), !kind.isOptional, let value = value(key, kind).unwrapped as? T
            else { throw recorder.refuse() }
            return value
        }

        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
            switch value(key, .optionalInt) {
            case .int(let value): return value
            default: return nil
            }
        }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
            switch value(key, .optionalInt64) {
            case .int64(let value): return value
            default: return nil
            }
        }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            switch value(key, .optionalDouble) {
            case .double(let bits): return Double(bitPattern: bits)
            default: return nil
            }
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            switch value(key, .optionalBool) {
            case .bool(let value): return value
            default: return nil
            }
        }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            switch value(key, .optionalString) {
            case .string(let value): return value
            default: return nil
            }
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let kind = DirectDecodingPlan.Kind(T?.self), kind.isOptional else { throw recorder.refuse() }
            return value(key, kind).unwrapped as? T
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> { throw recorder.refuse() }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw recorder.refuse() }
        func superDecoder() throws -> any Decoder { throw recorder.refuse() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw recorder.refuse() }
    }
}

extension DirectDecodingPlan.Kind {
    var isOptional: Bool {
        switch self {
        case .optionalInt, .optionalInt64, .optionalDouble, .optionalBool, .optionalString: true
        default: false
        }
    }

    var isBool: Bool { self == .bool || self == .optionalBool }

    /// The kind without its optional.
    var base: DirectDecodingPlan.Kind {
        switch self {
        case .optionalInt: .int
        case .optionalInt64: .int64
        case .optionalDouble: .double
        case .optionalBool: .bool
        case .optionalString: .string
        default: self
        }
    }
}
