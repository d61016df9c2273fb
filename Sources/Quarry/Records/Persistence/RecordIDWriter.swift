// RecordIDWriter: writes the rowid of an insert into the integer property of
// a struct record, without decoding the record again.
//
// The default `didInsert` must set `player.id` for any Decodable struct, with
// no code from the user. Decoding the record again from the inserted values
// costs as much as the insert itself, so for structs Quarry finds, once per
// type, the stored property that holds the rowid column: the standard
// library's field walker lists the stored properties with their offsets and
// types (`RecordColumns.storedFields`), and the key-path probe (RecordColumns)
// tells which property its coding key fills. The rowid is then stored at that offset, as a value of the
// property's exact type (Int64, Int, or their optionals). Anything else —
// classes, other integer types, a property the probe cannot identify — falls
// back to decoding the record again.

import Synchronization

enum RecordIDWriter {
    /// Where the rowid goes in a struct, and as which type.
    enum Slot: Sendable {
        case int64(Int)
        case optionalInt64(Int)
        case int(Int)
        case optionalInt(Int)
        case none
    }

    /// The slots found, by type and column, and the last one used in front
    /// of them: a type inserted in a loop finds its slot with two
    /// comparisons, no hashing.
    private static let slots = Mutex<(last: (type: ObjectIdentifier, column: String, slot: Slot)?, all: [ObjectIdentifier: [String: Slot]])>((nil, [:]))

    /// Stores `rowID` into the property of `record` that holds `column`.
    /// Returns false when the property could not be found (then decode instead).
    static func write<Record: Decodable>(_ rowID: Int64, into record: inout Record, column: String) -> Bool {
        // The column is spelled the same way on every call (it comes from the
        // table schema): no lowercasing on the hot path.
        let key = column
        let typeID = ObjectIdentifier(Record.self)
        let slot: Slot
        let cached = slots.withLock { cache -> Slot? in
            if let last = cache.last, last.type == typeID, last.column == key { return last.slot }
            guard let found = cache.all[typeID]?[key] else { return nil }
            cache.last = (typeID, key, found)
            return found
        }
        if let cached {
            slot = cached
        } else {
            slot = findSlot(Record.self, column: key)
            slots.withLock {
                $0.all[typeID, default: [:]][key] = slot
                $0.last = (typeID, key, slot)
            }
        }
        switch slot {
        case .int64(let offset): store(rowID, Int64.self, in: &record, at: offset)
        case .optionalInt64(let offset): store(Optional(rowID), Int64?.self, in: &record, at: offset)
        case .int(let offset): store(Int(rowID), Int.self, in: &record, at: offset)
        case .optionalInt(let offset): store(Optional(Int(rowID)), Int?.self, in: &record, at: offset)
        case .none: return false
        }
        return true
    }

    private static func store<T: BitwiseCopyable, Record>(_ value: T, _ type: T.Type, in record: inout Record, at offset: Int) {
        withUnsafeMutableBytes(of: &record) { bytes in
            bytes.storeBytes(of: value, toByteOffset: offset, as: T.self)
        }
    }

    /// Finds the stored integer property filled by the coding key of `column`.
    private static func findSlot<Record: Decodable>(_ type: Record.Type, column: String) -> Slot {
        // Only structs hold their properties inline.
        guard !(Record.self is AnyClass), let probe = try? RecordColumns.probe(Record.self),
            let keyIndex = probe.columns.firstIndex(where: { $0.asciiLowercased == column.asciiLowercased })
        else { return .none }
        let key = probe.keys[keyIndex]
        let expected = probe.rounds.map { $0.fingerprints[key] }
        // A record resolved from its stored properties: the offset is known.
        let knownOffset = probe.offsets?[keyIndex]
        guard let fields = RecordColumns.storedFields(of: Record.self) else { return .none }
        var matches: [Slot] = []
        for field in fields {
            if let knownOffset, field.offset != knownOffset { continue }
            let candidate: Slot
            let observed: [String]
            switch field.type {
            case is Int64.Type:
                candidate = .int64(field.offset)
                observed = probe.rounds.map { ProbeValues.fingerprint(load(Int64.self, $0.record, field.offset)) }
            case is Int64?.Type:
                candidate = .optionalInt64(field.offset)
                observed = probe.rounds.map { ProbeValues.fingerprint(load(Int64?.self, $0.record, field.offset) as Any) }
            case is Int.Type:
                candidate = .int(field.offset)
                observed = probe.rounds.map { ProbeValues.fingerprint(load(Int.self, $0.record, field.offset)) }
            case is Int?.Type:
                candidate = .optionalInt(field.offset)
                observed = probe.rounds.map { ProbeValues.fingerprint(load(Int?.self, $0.record, field.offset) as Any) }
            default:
                continue
            }
            if observed.map(Optional.some) == expected { matches.append(candidate) }
        }
        return matches.count == 1 ? matches[0] : .none
    }

    private static func load<T: BitwiseCopyable, Record>(_ type: T.Type, _ record: Record, _ offset: Int) -> T {
        withUnsafeBytes(of: record) { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
}
