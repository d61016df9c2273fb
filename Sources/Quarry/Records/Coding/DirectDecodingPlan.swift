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
// are resolved once. Per row, the row's source writes in place, in one call
// (RowSource.writeCells), every cell that has its property's storage class,
// into a buffer that the reader reuses; any other cell (NULL, a conversion,
// a missing column) is read by the RecordDecoder functions the keyed
// container falls back to, so values and errors are the same as Codable's.
// The record is then moved out. A failure deinitializes what the row had
// written.
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

    /// The property types the plan writes (those of a typed row read).
    typealias Kind = TypedCell.Kind

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

extension TypedCell.Kind {
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

/// The non-generic half of DirectRecordReader, so that the per-row loop is
/// compiled once, specialized: the cells of the steps, their column indexes
/// resolved once, and the buffer that every row is written into before the
/// record is moved out. (Not nested in the generic reader: a nested type
/// would be generic too, and its metadata looked up at run time on every row.)
final class DirectRowWriter {
    private let cells: ContiguousArray<TypedCell>
    /// The plan, whose steps name the coding key of each cell in errors.
    private let plan: DirectDecodingPlan
    let buffer: UnsafeMutableRawPointer

    init(plan: DirectDecodingPlan, layout: DecodingLayout) {
        cells = ContiguousArray(plan.steps.map { TypedCell(index: layout.resolve($0.key), offset: $0.offset, kind: $0.kind) })
        self.plan = plan
        buffer = .allocate(byteCount: max(plan.size, 1), alignment: plan.alignment)
    }

    deinit { buffer.deallocate() }

    /// Writes every property of the decoder's current row into `buffer`,
    /// which then holds an initialized record; on failure, it holds none.
    /// The source writes the cells it reads as they are, in one call; each
    /// other cell (NULL, a missing column, a conversion) is read as the keyed
    /// container would, so values and errors are Codable's.
    func write(_ decoder: RecordDecoder) throws {
        let source = decoder.source
        var written = 0
        do {
            try cells.withUnsafeBufferPointer { cells in
                while true {
                    written = source.writeCells(cells, from: written, to: buffer)
                    guard written < cells.count else { return }
                    try writeConverting(cells[written], key: plan.steps[written].key, decoder)
                    written += 1
                }
            }
        } catch {
            for cell in cells.prefix(written) { deinitialize(cell) }
            throw error
        }
    }

    /// Reads one value by the general path, and writes it in place.
    private func writeConverting(_ cell: TypedCell, key: String, _ decoder: RecordDecoder) throws {
        let (target, index) = (buffer + cell.offset, cell.index)
        switch cell.kind {
        case .int: target.initializeMemory(as: Int.self, to: try decoder.decodeConvertible(Int.self, at: index, key: key))
        case .int64: target.initializeMemory(as: Int64.self, to: try decoder.decodeConvertible(Int64.self, at: index, key: key))
        case .double: target.initializeMemory(as: Double.self, to: try decoder.decodeConvertible(Double.self, at: index, key: key))
        case .bool: target.initializeMemory(as: Bool.self, to: try decoder.decodeConvertible(Bool.self, at: index, key: key))
        case .string: target.initializeMemory(as: String.self, to: try decoder.decodeConvertible(String.self, at: index, key: key))
        case .optionalInt: target.initializeMemory(as: Int?.self, to: try decoder.decodeConvertibleIfPresent(Int.self, at: index))
        case .optionalInt64: target.initializeMemory(as: Int64?.self, to: try decoder.decodeConvertibleIfPresent(Int64.self, at: index))
        case .optionalDouble: target.initializeMemory(as: Double?.self, to: try decoder.decodeConvertibleIfPresent(Double.self, at: index))
        case .optionalBool: target.initializeMemory(as: Bool?.self, to: try decoder.decodeConvertibleIfPresent(Bool.self, at: index))
        case .optionalString:
            target.initializeMemory(as: String?.self, to: try decoder.decodeConvertibleIfPresent(String.self, at: index))
        }
    }

    /// Releases a value written by a row that then failed.
    private func deinitialize(_ cell: TypedCell) {
        let target = buffer + cell.offset
        switch cell.kind {
        case .string: target.assumingMemoryBound(to: String.self).deinitialize(count: 1)
        case .optionalString: target.assumingMemoryBound(to: String?.self).deinitialize(count: 1)
        default: break  // trivial values
        }
    }
}
