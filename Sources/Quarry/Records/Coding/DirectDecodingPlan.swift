// DirectDecodingPlan: rows decoded straight into a record's stored
// properties, for the records whose `init(from:)` behaves as the synthesized
// one (a hot path of fetching; RecordDecoder.swift is the general path).
//
// Why: after RecordDecoder's own work was cut down, most of what a fetched
// record costs sits in Codable itself: the synthesized `init(from:)` reaches
// each value through `KeyedDecodingContainer`'s box, which dispatches
// dynamically and looks up generic metadata, and copies the finished record.
//
// When: a struct whose every stored property is an `Int`, `Int64`, `Double`,
// `Bool` or `String`, or an optional one, whose record type keeps the
// default `init(row:)` and `databaseDecodesStoredPropertiesDirectly`, and
// whose `init(from:)` passes the probe below. Anything else (dates, UUIDs,
// enums, column groups, JSON columns, property wrappers, classes, a property
// that `init(from:)` does not decode) keeps the Codable path.
//
// The probe runs `init(from:)` once per type, in several rounds of made-up
// values (distinct values, large numbers, empty and long strings, nil, each Bool
// true alone), and accepts the type only when every round asks, in the same
// order, for exactly one value per stored property, through the concrete
// `decode` overload for a non-optional property and `decodeIfPresent` for an
// optional one (what the synthesized `init(from:)` does), and the record
// holds every value unchanged. Renamed coding keys are followed: the probe
// maps keys to properties by value, not by name.
//
// How: per type, the plan lists the steps in the order `init(from:)` asks:
// coding key, property offset, kind. Per reader, the keys' column indexes
// are resolved once. Per row, each value is read by the same RecordDecoder
// functions the keyed container uses (so values and errors are the same as
// Codable's), written in place into a buffer that the reader reuses, and the
// record is moved out. A failure deinitializes what the row had written.
// DirectDecodingPlanTests prove the two paths equal over generated rows.

@_spi(Reflection) import Swift
import Synchronization

/// How rows decode into the stored properties of one record type (see the top of this file).
final class DirectDecodingPlan: Sendable {
    /// One stored property, in the order `init(from:)` asks for it.
    struct Step: Sendable {
        let key: String
        let offset: Int
        let kind: Kind
    }

    /// The property types the plan writes.
    enum Kind: Sendable, Equatable {
        case int, int64, double, bool, string
        case optionalInt, optionalInt64, optionalDouble, optionalBool, optionalString

        /// The kind of a stored property of type `type`, nil for any other type.
        init?(_ type: Any.Type) {
            switch ObjectIdentifier(type) {
            case ObjectIdentifier(Int.self): self = .int
            case ObjectIdentifier(Int64.self): self = .int64
            case ObjectIdentifier(Double.self): self = .double
            case ObjectIdentifier(Bool.self): self = .bool
            case ObjectIdentifier(String.self): self = .string
            case ObjectIdentifier(Int?.self): self = .optionalInt
            case ObjectIdentifier(Int64?.self): self = .optionalInt64
            case ObjectIdentifier(Double?.self): self = .optionalDouble
            case ObjectIdentifier(Bool?.self): self = .optionalBool
            case ObjectIdentifier(String?.self): self = .optionalString
            default: return nil
            }
        }
    }

    let steps: [Step]
    let size: Int
    let alignment: Int

    private init(steps: [Step], size: Int, alignment: Int) {
        (self.steps, self.size, self.alignment) = (steps, size, alignment)
    }

    /// The plans made so far, nil for the types that keep the Codable path.
    private static let plans = Mutex<[ObjectIdentifier: DirectDecodingPlan?]>([:])

    /// The plan of `Record`, or nil when its rows decode through Codable.
    static func of<Record: FetchableRecord & Decodable>(_ type: Record.Type) -> DirectDecodingPlan? {
        let id = ObjectIdentifier(Record.self)
        if let known = plans.withLock({ $0[id] }) { return known }
        // Probed outside the lock: `init(from:)` is the user's code.
        let plan = Record.databaseDecodesStoredPropertiesDirectly ? DirectDecodingProbe.plan(for: Record.self) : nil
        plans.withLock { $0[id] = .some(plan) }
        return plan
    }

    static func make<Record>(_ steps: [Step], for type: Record.Type) -> DirectDecodingPlan {
        DirectDecodingPlan(steps: steps, size: MemoryLayout<Record>.size, alignment: MemoryLayout<Record>.alignment)
    }
}

/// Reads the records of one statement (or of rows with the same columns)
/// through a plan. Used by one connection at a time, as its statement is.
final class DirectRecordReader<Record> {
    private let writer: DirectRowWriter

    init(plan: DirectDecodingPlan, layout: DecodingLayout) {
        writer = DirectRowWriter(plan: plan, layout: layout)
    }

    /// The record of the decoder's current row (a statement's, or a row's).
    @inline(__always)
    func read(_ decoder: RecordDecoder) throws -> Record {
        try writer.write(decoder)
        return writer.buffer.assumingMemoryBound(to: Record.self).move()
    }
}

/// One step of a plan with its column index, resolved once per reader.
/// (Not nested in the generic reader: a nested type would be generic too,
/// and its metadata looked up at run time on every row.)
struct DirectResolvedStep {
    let key: String
    let offset: Int
    let index: Int32
    let kind: DirectDecodingPlan.Kind
}

/// The non-generic half of DirectRecordReader, so that the per-row loop is
/// compiled once, specialized: the column index of each step, and the
/// buffer that every row is written into before the record is moved out.
final class DirectRowWriter {
    private let steps: ContiguousArray<DirectResolvedStep>
    let buffer: UnsafeMutableRawPointer

    init(plan: DirectDecodingPlan, layout: DecodingLayout) {
        steps = ContiguousArray(plan.steps.map { DirectResolvedStep(key: $0.key, offset: $0.offset, index: layout.resolve($0.key), kind: $0.kind) })
        buffer = .allocate(byteCount: max(plan.size, 1), alignment: plan.alignment)
    }

    deinit { buffer.deallocate() }

    /// Writes every property of the decoder's current row into `buffer`,
    /// which then holds an initialized record; on failure, it holds none.
    func write(_ decoder: RecordDecoder) throws {
        var written = 0
        // Loaded once per row, and lent to each cell's read.
        let source = decoder.source
        do {
            try steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    try write(step, decoder, source)
                    written += 1
                }
            }
        } catch {
            for step in steps.prefix(written) { deinitialize(step) }
            throw error
        }
    }

    /// Reads one value as the keyed container would, and writes it in place.
    @inline(__always)
    private func write(_ step: DirectResolvedStep, _ decoder: RecordDecoder, _ source: any RowSource) throws {
        let target = buffer + step.offset
        let (index, key) = (step.index, step.key)
        switch step.kind {
        case .int:
            target.initializeMemory(
                as: Int.self,
                to: try decoder.decodeFast(Int.self, at: index, key: key, from: source) { $0.integer(at: $1).map { Int($0) } })
        case .int64:
            target.initializeMemory(
                as: Int64.self,
                to: try decoder.decodeFast(Int64.self, at: index, key: key, from: source) { $0.integer(at: $1) })
        case .double:
            target.initializeMemory(
                as: Double.self,
                to: try decoder.decodeFast(Double.self, at: index, key: key, from: source) { $0.real(at: $1) })
        case .bool:
            target.initializeMemory(
                as: Bool.self,
                to: try decoder.decodeFast(Bool.self, at: index, key: key, from: source) { $0.integer(at: $1).map { $0 != 0 } })
        case .string:
            target.initializeMemory(
                as: String.self,
                to: try decoder.decodeFast(String.self, at: index, key: key, from: source) { $0.text(at: $1) })
        case .optionalInt:
            target.initializeMemory(
                as: Int?.self,
                to: try decoder.decodeFastIfPresent(Int.self, at: index, from: source) { $0.integer(at: $1).map { Int($0) } })
        case .optionalInt64:
            target.initializeMemory(
                as: Int64?.self,
                to: try decoder.decodeFastIfPresent(Int64.self, at: index, from: source) { $0.integer(at: $1) })
        case .optionalDouble:
            target.initializeMemory(
                as: Double?.self,
                to: try decoder.decodeFastIfPresent(Double.self, at: index, from: source) { $0.real(at: $1) })
        case .optionalBool:
            target.initializeMemory(
                as: Bool?.self,
                to: try decoder.decodeFastIfPresent(Bool.self, at: index, from: source) { $0.integer(at: $1).map { $0 != 0 } })
        case .optionalString:
            target.initializeMemory(
                as: String?.self,
                to: try decoder.decodeFastIfPresent(String.self, at: index, from: source) { $0.text(at: $1) })
        }
    }

    /// Releases a value written by a row that then failed.
    private func deinitialize(_ step: DirectResolvedStep) {
        let target = buffer + step.offset
        switch step.kind {
        case .string: target.assumingMemoryBound(to: String.self).deinitialize(count: 1)
        case .optionalString: target.assumingMemoryBound(to: String?.self).deinitialize(count: 1)
        default: break  // trivial values
        }
    }
}
