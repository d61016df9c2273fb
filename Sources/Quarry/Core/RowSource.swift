// RowSource: the current row of a result as every reader reads it, the one
// row shape of the execution seam (DatabaseConnection.swift).
//
// Two types implement it: SQLite's `Statement`, over the live statement with
// no copy (SQLite/Statement+RowSource.swift), and `RowBuffer`, over values
// that came back whole (a server's rows, copied rows, prefetched rows).
// Decoders, scopes and cursors are written once against it.
//
// Hot path: a decoder reads each cell with one call through this protocol.
// The typed reads (`integer`, `real`, `text`) answer nil unless the cell has
// that storage class, so a fast path costs one call per cell, and anything
// else (NULL, a conversion) takes the general path with the same result.
// The direct decoding plan does better: `writeCells` reads a whole row of
// typed cells in one call, compiled once per source type from the default
// implementation below, so that each cell is a static call into the source
// (for SQLite, `sqlite3_column_*` itself) and not one through the protocol.

/// The current row of a result, read cell by cell at zero-based indexes.
protocol RowSource: AnyObject {
    /// The column names of the result.
    var columnNames: [String] { get }
    /// The number of columns.
    var columnCount: Int { get }
    /// The SQL of the result, named by decoding errors; nil for a row that
    /// is not the result of a statement.
    var sourceSQL: String? { get }

    /// Whether the cell is `NULL`.
    func isNull(at index: Int32) -> Bool
    /// The cell if its storage class is INTEGER, else nil.
    func integer(at index: Int32) -> Int64?
    /// The cell if its storage class is REAL, else nil.
    func real(at index: Int32) -> Double?
    /// The cell if its storage class is TEXT, else nil.
    func text(at index: Int32) -> String?
    /// The cell, copied.
    func databaseValue(at index: Int32) -> DatabaseValue
    /// A cell that is not `NULL`, read as `Value` by the type's fastest way
    /// on this source; nil if it does not convert.
    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value?

    /// Writes the cells `cells[start...]` of the current row in place, each at
    /// `buffer + offset`, while each has the storage class its kind reads
    /// (or is NULL, for an optional kind); returns the index of the first cell
    /// not written, `cells.count` when all were. The caller reads that cell by
    /// the general path, which converts or throws, and calls again after it.
    func writeCells(_ cells: UnsafeBufferPointer<TypedCell>, from start: Int, to buffer: UnsafeMutableRawPointer) -> Int

    /// The typed reads of the current row as a table of C function pointers
    /// over an unretained context, for the keyed decoding container: see
    /// ``CellReads``. Valid while the source is alive; read once per row.
    var cellReads: CellReads { get }

    /// The record readers made for this source's columns, by record type
    /// (FetchableRecord.swift), and the last one used.
    var recordReaders: [ObjectIdentifier: AnyObject] { get set }
    var lastRecordReader: (type: ObjectIdentifier, reader: AnyObject)? { get set }
    /// Empties the caches that depend on the columns if they changed since
    /// the caches were made.
    func invalidateStaleLayouts()
}

extension RowSource {
    /// A ``RowDecodingError`` for the column at `index`.
    func decodingError(_ reason: RowDecodingError.Reason, index: Int32, expectedType: Any.Type) -> RowDecodingError {
        let name = index >= 0 && Int(index) < columnCount ? columnNames[Int(index)] : "#\(index)"
        return RowDecodingError(reason: reason, column: name, expectedType: "\(expectedType)", sql: sourceSQL)
    }

    /// Column `index` read as `Value`; throws a ``RowDecodingError`` for
    /// `NULL`, a missing column, or a value that does not convert.
    @inline(__always)
    func decode<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) throws -> Value {
        guard index >= 0 && Int(index) < columnCount else {
            throw decodingError(.indexOutOfRange, index: index, expectedType: Value.self)
        }
        if isNull(at: index) { throw decodingError(.unexpectedNull, index: index, expectedType: Value.self) }
        guard let value = value(Value.self, at: index) else {
            throw decodingError(.valueMismatch(databaseValue(at: index)), index: index, expectedType: Value.self)
        }
        return value
    }

    /// Column `index` read as `Value?`: nil for `NULL`.
    @inline(__always)
    func decodeIfPresent<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) throws -> Value? {
        if index >= 0 && Int(index) < columnCount && isNull(at: index) { return nil }
        return try decode(type, at: index)
    }

    /// The name of column `index`, or `#index`.
    func columnName(_ index: Int32) -> String {
        index >= 0 && Int(index) < columnCount ? columnNames[Int(index)] : "#\(index)"
    }
}

/// The typed reads of a source's current row, as C function pointers over
/// an unretained context (for SQLite, the `sqlite3_stmt` itself).
///
/// Why: the keyed decoding container reads one cell per call from the
/// user's `init(from:)`, and reaching the source through the decoder's
/// unowned reference retained and released it for every cell (a profile of
/// a Codable fetch put 11% of its samples in those; without them, the fetch
/// of 100k records took 6% less, the cursor over 1M rows 8%). This table holds
/// nothing Swift counts, so a read costs one indirect call, as a protocol
/// call did. The decoder takes the table from its source once per row, and
/// the caller of the decoding keeps the source alive meanwhile.
struct CellReads {
    let context: UnsafeMutableRawPointer
    let isNullRead: @convention(c) (UnsafeMutableRawPointer, Int32) -> Bool
    let integerRead: @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeMutablePointer<Int64>) -> Bool
    let realRead: @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeMutablePointer<Double>) -> Bool
    /// Initializes the `String?` at the third argument: the text, or nil.
    let textRead: @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeMutableRawPointer) -> Void

    @inline(__always)
    func isNull(at index: Int32) -> Bool { isNullRead(context, index) }

    @inline(__always)
    func integer(at index: Int32) -> Int64? {
        var value: Int64 = 0
        return integerRead(context, index, &value) ? value : nil
    }

    @inline(__always)
    func real(at index: Int32) -> Double? {
        var value = 0.0
        return realRead(context, index, &value) ? value : nil
    }

    @inline(__always)
    func text(at index: Int32) -> String? {
        var text: String?
        withUnsafeMutablePointer(to: &text) { textRead(context, index, UnsafeMutableRawPointer($0)) }
        return text
    }
}

/// One cell of a typed row read (``RowSource/writeCells(_:from:to:)``): the
/// column, where its value goes, and its Swift type.
struct TypedCell {
    /// The Swift types a typed row read writes.
    enum Kind: Sendable, Equatable {
        case int, int64, double, bool, string
        case optionalInt, optionalInt64, optionalDouble, optionalBool, optionalString
    }

    /// The column index; -1 for a missing column, which only the general path reads.
    let index: Int32
    let offset: Int
    let kind: Kind
}

extension RowSource {
    /// The one implementation, specialized per source type (see the top of this file).
    @inline(__always)
    func writeCells(_ cells: UnsafeBufferPointer<TypedCell>, from start: Int, to buffer: UnsafeMutableRawPointer) -> Int {
        for position in start..<cells.count {
            let cell = cells[position]
            let (index, target) = (cell.index, buffer + cell.offset)
            guard index >= 0 else { return position }
            let written: Bool
            switch cell.kind {
            case .int: written = put(integer(at: index).map { Int($0) }, target)
            case .int64: written = put(integer(at: index), target)
            case .double: written = put(real(at: index), target)
            case .bool: written = put(integer(at: index).map { $0 != 0 }, target)
            case .string: written = put(text(at: index), target)
            case .optionalInt: written = putOptional(integer(at: index).map { Int($0) }, index, target)
            case .optionalInt64: written = putOptional(integer(at: index), index, target)
            case .optionalDouble: written = putOptional(real(at: index), index, target)
            case .optionalBool: written = putOptional(integer(at: index).map { $0 != 0 }, index, target)
            case .optionalString: written = putOptional(text(at: index), index, target)
            }
            guard written else { return position }
        }
        return cells.count
    }

    @inline(__always)
    private func put<Value>(_ value: Value?, _ target: UnsafeMutableRawPointer) -> Bool {
        guard let value else { return false }
        target.initializeMemory(as: Value.self, to: value)
        return true
    }

    @inline(__always)
    private func putOptional<Value>(_ value: Value?, _ index: Int32, _ target: UnsafeMutableRawPointer) -> Bool {
        guard value != nil || isNull(at: index) else { return false }
        target.initializeMemory(as: Value?.self, to: value)
        return true
    }
}

extension Row {
    /// Copies the columns `columns` of the current row of `source`; `layout`
    /// names them.
    init(_ source: some RowSource, columns: Range<Int>, layout: RowLayout) {
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count)
        for index in columns { values.append(source.databaseValue(at: Int32(index))) }
        self.init(layout: layout, databaseValues: values)
    }

    /// Copies the current row of `source`.
    init(_ source: some RowSource, layout: RowLayout) {
        self.init(source, columns: 0..<layout.columnNames.count, layout: layout)
    }
}

/// A row whose values came back whole, as a ``RowSource``: the current row of
/// a server's statement, or a copied ``Row`` being decoded.
final class RowBuffer: RowSource {
    private(set) var columnNames: [String]
    /// The values of the current row.
    var values: [DatabaseValue]
    let sourceSQL: String?
    var recordReaders: [ObjectIdentifier: AnyObject] = [:]
    var lastRecordReader: (type: ObjectIdentifier, reader: AnyObject)?

    init(columnNames: [String], values: [DatabaseValue] = [], sql: String? = nil) {
        self.columnNames = columnNames
        self.values = values
        sourceSQL = sql
    }

    /// A buffer holding `row`.
    convenience init(_ row: Row) {
        self.init(columnNames: row.columnNames, values: row.databaseValues)
    }

    var columnCount: Int { columnNames.count }

    /// Sets the column names of the next rows; the readers made for other
    /// columns are dropped.
    func setColumnNames(_ names: [String]) {
        guard names != columnNames else { return }
        columnNames = names
        recordReaders.removeAll()
        lastRecordReader = nil
    }

    /// The buffer's columns change only through `setColumnNames(_:)`, which
    /// drops the readers itself.
    func invalidateStaleLayouts() {}

    @inline(__always)
    private func cell(_ index: Int32) -> DatabaseValue {
        let index = Int(index)
        return values.indices.contains(index) ? values[index] : .null
    }

    func isNull(at index: Int32) -> Bool { cell(index).isNull }

    func integer(at index: Int32) -> Int64? {
        if case .integer(let value) = cell(index) { return value }
        return nil
    }

    func real(at index: Int32) -> Double? {
        if case .real(let value) = cell(index) { return value }
        return nil
    }

    func text(at index: Int32) -> String? {
        if case .text(let value) = cell(index) { return value }
        return nil
    }

    func databaseValue(at index: Int32) -> DatabaseValue { cell(index) }

    func value<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) -> Value? {
        Value.fromDatabaseValue(cell(index))
    }

    var cellReads: CellReads {
        CellReads(
            context: Unmanaged.passUnretained(self).toOpaque(),
            isNullRead: { buffer, index in RowBuffer.unretained(buffer).isNull(at: index) },
            integerRead: { buffer, index, value in
                guard let integer = RowBuffer.unretained(buffer).integer(at: index) else { return false }
                value.pointee = integer
                return true
            },
            realRead: { buffer, index, value in
                guard let real = RowBuffer.unretained(buffer).real(at: index) else { return false }
                value.pointee = real
                return true
            },
            textRead: { buffer, index, text in
                text.initializeMemory(as: String?.self, to: RowBuffer.unretained(buffer).text(at: index))
            })
    }

    private static func unretained(_ context: UnsafeMutableRawPointer) -> RowBuffer {
        Unmanaged<RowBuffer>.fromOpaque(context).takeUnretainedValue()
    }
}
