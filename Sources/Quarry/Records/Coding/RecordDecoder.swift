// RecordDecoder: the Decodable path of records, reading the current row of a
// RowSource (Core/RowSource.swift): SQLite's live statement or a row of values
// (the hot path of decoding; its keyed container is RecordKeyedDecodingContainer.swift).
//
// Performance choices (see shared design notes, "Codable decoding by name"):
// - No dictionary and no DatabaseValue per cell. Each property is read at a
//   column index with one call to the source: a typed read for the standard
//   types, else the type's fastest conversion on that source.
// - Coding key → column index is resolved once per (record type, statement):
//   the DecodingLayout, stored on the Statement, lists the keys in the order
//   the record asks for them, with their column index. For every row after the
//   first, the N-th key asked for is compared with the N-th key of the layout
//   (a small-string comparison) and its index is used; only a key asked for in
//   another order goes through a dictionary.
// - One RecordDecoder object per fetch, reused for every row, and one keyed
//   container reused for every row too (Codable would box a new one per row).
//   Per-row state sits behind a pointer, so the hot path pays no dynamic
//   exclusivity check.
// - The concrete `decode` overloads the synthesized `init(from:)` calls for
//   standard types involve no dynamic cast; other types (Date, UUID, enums,
//   nested JSON) take one cast per value, and JSON uses one JSONDecoder per layout.
// - Every backend and every copied `Row` (for `init(row:)`) goes through this
//   one implementation, so all give the same results.

import Foundation

/// The Decoder of records. One instance decodes all rows of a fetch, reading
/// the current row of the source each row is decoded from.
final class RecordDecoder: Decoder {
    let columnNames: [String]
    let sql: String?
    let layout: DecodingLayout
    let recordType: Any.Type
    let dateStrategy: DatabaseDateDecodingStrategy

    /// Per-row state, behind a pointer: the hot path then pays no dynamic
    /// exclusivity check, which class `var` properties would cost per access.
    private struct State {
        /// How many keys the current row asked for so far.
        var position = 0
        /// Whether the keys of the current row followed the layout so far.
        var followsLayout = true
        /// A copy of the layout's keys and indexes.
        var keys: [String]
        var indexes: [Int32]
        /// The keyed container handed to every row (Codable would otherwise
        /// allocate a box per row), and its key type.
        var container: AnyObject?
        var containerKeyType: Any.Type?
        /// The case of the enum record being decoded, read once per row.
        var enumCase: String?
        /// The path of the container of that case's values, which its
        /// container does not retain.
        var enumCasePath: ColumnGroupPath?
        /// The source of the row being read. Unowned: a statement keeps the
        /// readers that keep this decoder, and every caller of
        /// `decoding(_:_:)` keeps its source alive while it decodes.
        unowned(unsafe) var source: any RowSource
        /// The source's typed reads, taken once per row (see ``CellReads``).
        var cells: CellReads
        /// Whether a row is being decoded (see `decoding(_:_:)`).
        var isDecoding = false
    }
    private let state: UnsafeMutablePointer<State>

    var codingPath: [any CodingKey] { [] }
    /// The record's ``FetchableRecord/databaseDecodingUserInfo``.
    let userInfo: [CodingUserInfoKey: Any]
    /// The column that holds the case of an enum record (EnumRecord.swift),
    /// nil for other records.
    let discriminatorColumn: String?

    /// A decoder of the columns `columnNames` of the rows of `source`.
    init(
        source: any RowSource, columnNames: [String], layout: DecodingLayout, recordType: Any.Type,
        dateStrategy: DatabaseDateDecodingStrategy
    ) {
        self.columnNames = columnNames
        sql = source.sourceSQL
        self.layout = layout
        self.recordType = recordType
        self.dateStrategy = dateStrategy
        userInfo = (recordType as? any FetchableRecord.Type)?.databaseDecodingUserInfo ?? [:]
        discriminatorColumn = EnumRecordColumns.discriminatorColumn(of: recordType)
        state = .allocate(capacity: 1)
        state.initialize(to: State(keys: layout.keys, indexes: layout.indexes, source: source, cells: source.cellReads))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The source of the row being read.
    var source: any RowSource {
        @inline(__always) get { state.pointee.source }
    }

    /// Runs `decode` on the current row of `source`, which has this decoder's
    /// columns, with this decoder: one decoder serves all the rows of a
    /// reader. A decoder already decoding a row (a record read again inside
    /// its own `init(from:)`) hands `decode` a new one. The caller keeps
    /// `source` alive until this returns.
    @inline(__always)
    func decoding<T>(_ source: any RowSource, _ decode: (RecordDecoder) throws -> T) throws -> T {
        guard !state.pointee.isDecoding else {
            return try decode(RecordDecoder(
                source: source, columnNames: columnNames, layout: layout, recordType: recordType, dateStrategy: dateStrategy))
        }
        state.pointee.isDecoding = true
        state.pointee.source = source
        state.pointee.cells = source.cellReads
        defer { state.pointee.isDecoding = false }
        return try decode(self)
    }

    /// The column index of `key` (see the top of this file).
    @inline(__always)
    func columnIndex(_ key: String) -> Int32 {
        let position = state.pointee.position
        state.pointee.position = position + 1
        if state.pointee.followsLayout {
            let count = state.pointee.keys.count
            if position < count {
                if state.pointee.keys[position] == key { return state.pointee.indexes[position] }
            } else if position == count, position == layout.keys.count {
                // Learning the layout (first row of a statement).
                let index = layout.resolve(key)
                layout.keys.append(key)
                layout.indexes.append(index)
                state.pointee.keys.append(key)
                state.pointee.indexes.append(index)
                return index
            }
            state.pointee.followsLayout = false
        }
        return layout.resolve(key)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        state.pointee.position = 0
        state.pointee.followsLayout = true
        if let discriminatorColumn { try readEnumCase(discriminatorColumn, Key.self) }
        if let cached = state.pointee.container, let keyType = state.pointee.containerKeyType, keyType == Key.self {
            // Checked just above: the holder was made for this Key.
            return unsafeDowncast(cached, to: ContainerHolder<Key>.self).container
        }
        let container = KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(decoder: self))
        state.pointee.container = ContainerHolder(container)
        state.pointee.containerKeyType = Key.self
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw error(.other("records decode with a keyed container; \(recordType) asked for an unkeyed container"),
                    column: "*", expectedType: recordType)
    }

    /// A wrapper around another record or value (see RecordSingleValueContainer).
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordSingleValueContainer(decoder: self)
    }

    /// Reads the case of the enum record of the current row from its
    /// discriminator column (named like the encoder names it), checking that
    /// it is one of `Key`'s; `enumCase` then holds it for `allKeys`.
    private func readEnumCase<Key: CodingKey>(_ discriminator: String, _ type: Key.Type) throws {
        let index = layout.resolve(discriminator)
        guard index >= 0 else { throw missingColumn(discriminator, recordType) }
        let value = databaseValue(at: index)
        guard case .text(let name) = value, Key(stringValue: name) != nil else {
            let cases = (EnumMetadata.allCases(Key.self) ?? []).map { "\"\($0.stringValue)\"" }.joined(separator: ", ")
            throw error(.other("found \(value.storageClassName) \(value), which names no case of \(recordType) (\(cases))"),
                        column: layout.columnName(for: discriminator), expectedType: recordType)
        }
        state.pointee.enumCase = name
    }

    /// The case of the enum record being decoded (see `readEnumCase`).
    var enumCase: String? { state.pointee.enumCase }

    /// Keeps the path of the container of an enum record's case alive until
    /// the next row (a container does not retain its path).
    func keepEnumCasePath(_ path: ColumnGroupPath) -> ColumnGroupPath {
        state.pointee.enumCasePath = path
        return path
    }

    // MARK: Reading cells

    @inline(__always)
    func isNull(at index: Int32) -> Bool { state.pointee.cells.isNull(at: index) }

    @inline(__always)
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value? {
        source.value(Value.self, at: index)
    }

    func databaseValue(at index: Int32) -> DatabaseValue { source.databaseValue(at: index) }

    // MARK: Errors

    func error(_ reason: RowDecodingError.Reason, column: String, expectedType: Any.Type) -> RowDecodingError {
        RowDecodingError(
            reason: reason, column: column, expectedType: "\(expectedType)", recordType: "\(recordType)",
            sql: sql, availableColumns: reason == .columnNotFound ? columnNames : nil)
    }

    func missingColumn(_ key: String, _ type: Any.Type) -> RowDecodingError {
        error(.columnNotFound, column: layout.columnName(for: key), expectedType: type)
    }

    func columnError(_ reason: RowDecodingError.Reason, _ index: Int32, _ type: Any.Type) -> RowDecodingError {
        error(reason, column: columnNames[Int(index - layout.offset)], expectedType: type)
    }

    // MARK: Reading values

    /// Reads a non-optional DatabaseValueConvertible value.
    @inline(__always)
    func decodeConvertible<Value: DatabaseValueConvertible>(_ type: Value.Type, key: String) throws -> Value {
        try decodeConvertible(type, at: columnIndex(key), key: key)
    }

    @inline(__always)
    func decodeConvertible<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32, key: String) throws -> Value {
        guard index >= 0 else { throw missingColumn(key, Value.self) }
        if isNull(at: index) { throw columnError(.unexpectedNull, index, Value.self) }
        guard let value = value(Value.self, at: index) else {
            throw columnError(.valueMismatch(databaseValue(at: index)), index, Value.self)
        }
        return value
    }

    /// Reads an optional DatabaseValueConvertible value: nil for NULL or a missing column.
    @inline(__always)
    func decodeConvertibleIfPresent<Value: DatabaseValueConvertible>(_ type: Value.Type, key: String) throws -> Value? {
        try decodeConvertibleIfPresent(type, at: columnIndex(key))
    }

    @inline(__always)
    func decodeConvertibleIfPresent<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) throws -> Value? {
        guard index >= 0, !isNull(at: index) else { return nil }
        guard let value = value(Value.self, at: index) else {
            throw columnError(.valueMismatch(databaseValue(at: index)), index, Value.self)
        }
        return value
    }

    /// The most common types read a cell with one typed read of the source
    /// (``CellReads/integer(at:)`` and its siblings), which answers when the
    /// storage class is the expected one; anything else, NULL included,
    /// takes the general path above, so the results are the same.
    /// (DirectDecodingPlan reads a whole row of such cells in one call.)
    @inline(__always)
    func decodeFast<Value: DatabaseValueConvertible>(
        _ type: Value.Type, key: String, _ read: (CellReads, Int32) -> Value?
    ) throws -> Value {
        let index = columnIndex(key)
        if index >= 0, let value = read(state.pointee.cells, index) { return value }
        return try decodeConvertible(type, at: index, key: key)
    }

    @inline(__always)
    func decodeFastIfPresent<Value: DatabaseValueConvertible>(
        _ type: Value.Type, key: String, _ read: (CellReads, Int32) -> Value?
    ) throws -> Value? {
        let index = columnIndex(key)
        if index >= 0, let value = read(state.pointee.cells, index) { return value }
        return try decodeConvertibleIfPresent(type, at: index)
    }

    /// Reads any Decodable value, at a resolved, non-NULL column.
    func decodeAny<T: Decodable>(_ type: T.Type, at index: Int32) throws -> T {
        if T.self == Date.self {
            let value = databaseValue(at: index)
            guard let date = dateStrategy.date(from: value) as? T else {
                throw columnError(.valueMismatch(value), index, T.self)
            }
            return date
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let value = readConvertible(convertible, at: index) as? T else {
                throw columnError(.valueMismatch(databaseValue(at: index)), index, T.self)
            }
            return value
        }
        let value = databaseValue(at: index)
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
                return try layout.jsonDecoder(forColumn: columnNames[Int(index - layout.offset)]).decode(T.self, from: data)
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
        value(V.self, at: index)
    }
}

/// Keeps the keyed container a decoder reuses across rows.
final class ContainerHolder<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>
    init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
}

extension RecordDecoder {

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
