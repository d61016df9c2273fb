// DirectEncodingPlan: records written straight from their stored properties,
// for the records whose `encode(to:)` behaves as the synthesized one (a hot
// path of insert, update, upsert and insertAll; PersistenceEncoder.swift is
// the general path). The write-side twin of DirectDecodingPlan.swift.
//
// Why: after PersistenceEncoder's own work was cut down, a fifth to a third
// of an insert or update sits in Codable itself: the synthesized
// `encode(to:)` reaches the encoder through `KeyedEncodingContainer`'s box,
// one dynamically dispatched call per value, and the encoder compares each
// coding key with the learned layout before appending the value.
//
// When: a struct whose every stored property is an `Int`, `Int64`, `Double`,
// `Bool` or `String`, or an optional one (DirectDecodingPlan.Kind), whose
// record type keeps the default `encode(to: inout PersistenceContainer)` and
// `databaseEncodesStoredPropertiesDirectly`, and whose `encode(to:)` passes
// the probe (DirectEncodingProbe.swift). Anything else (dates, UUIDs, enums,
// column groups, JSON columns, property wrappers, classes, a property that
// `encode(to:)` skips or transforms) keeps the Codable path. Of the record's
// coding strategies only the column naming strategy applies to these kinds;
// the plan names its columns with it once, as the encoder does for its first
// record.
//
// How: per type, the plan lists the steps in the order `encode(to:)` writes
// them (stored-property offset and kind) and the column names, one array
// shared by every container, so that the persistence statement cache finds
// the INSERT/UPDATE by array identity as it does for PersistenceEncoder's
// learned layout. Per record, each property is read at its offset and
// converted as RecordKeyedEncodingContainer converts it (nil is NULL, Bool is
// 0 or 1). The container then holds the same columns, in the same order, with
// the same values as through `encode(to:)`; DirectEncodingPlanTests prove it
// over generated records.

import Synchronization

/// How one record type writes its stored properties (see the top of this file).
final class DirectEncodingPlan: Sendable {
    /// One stored property, in the order `encode(to:)` writes it.
    struct Step: Sendable {
        let offset: Int
        let kind: DirectDecodingPlan.Kind
    }

    let steps: [Step]
    /// The coding keys, in the order of ``steps``.
    let keys: [String]
    /// The column names of ``keys``, shared by every container the plan fills.
    let columns: [String]

    init(steps: [Step], keys: [String], columns: [String]) {
        (self.steps, self.keys, self.columns) = (steps, keys, columns)
    }

    /// The plans made so far, nil for the types that keep the Codable path.
    private static let plans = Mutex<[ObjectIdentifier: DirectEncodingPlan?]>([:])

    /// The plan of `Record`, or nil when its records encode through Codable.
    static func of<Record: EncodableRecord & Encodable>(_ type: Record.Type) -> DirectEncodingPlan? {
        let id = ObjectIdentifier(Record.self)
        if let known = plans.withLock({ $0[id] }) { return known }
        // Probed outside the lock: `encode(to:)` is the user's code.
        let plan = Record.databaseEncodesStoredPropertiesDirectly ? DirectEncodingProbe.plan(for: Record.self) : nil
        plans.withLock { $0[id] = .some(plan) }
        return plan
    }

    /// Fills `container` with the values of `record`, as
    /// `PersistenceEncoder.encode(record, into: &container)` does.
    func encode<Record>(_ record: Record, into container: inout PersistenceContainer) {
        var values = [DatabaseValue]()
        values.reserveCapacity(steps.count)
        withUnsafeBytes(of: record) { bytes in
            guard let base = bytes.baseAddress else { return }
            steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    values.append(Self.databaseValue(at: base + step.offset, step.kind))
                }
            }
        }
        if container.columns.isEmpty {
            // Share the plan's array: the statement cache compares by identity.
            container.columns = columns
            container.databaseValues = values
        } else {
            for (column, value) in zip(columns, values) {
                container.setDatabaseValue(value, forColumn: column)
            }
        }
    }

    /// The value of the stored property at `pointer`, converted as
    /// RecordKeyedEncodingContainer converts it.
    @inline(__always)
    static func databaseValue(at pointer: UnsafeRawPointer, _ kind: DirectDecodingPlan.Kind) -> DatabaseValue {
        switch kind {
        case .int: .integer(Int64(pointer.load(as: Int.self)))
        case .int64: .integer(pointer.load(as: Int64.self))
        case .double: .real(pointer.load(as: Double.self))
        case .bool: .integer(pointer.load(as: Bool.self) ? 1 : 0)
        case .string: .text(pointer.assumingMemoryBound(to: String.self).pointee)
        case .optionalInt: pointer.load(as: Int?.self).map { .integer(Int64($0)) } ?? .null
        case .optionalInt64: pointer.load(as: Int64?.self).map { .integer($0) } ?? .null
        case .optionalDouble: pointer.load(as: Double?.self).map { .real($0) } ?? .null
        case .optionalBool: pointer.load(as: Bool?.self).map { .integer($0 ? 1 : 0) } ?? .null
        case .optionalString: pointer.assumingMemoryBound(to: String?.self).pointee.map { .text($0) } ?? .null
        }
    }
}
