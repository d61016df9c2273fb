// ResultDecoder: how a request turns each row of its statement into a Result —
// a record, a Row, one value, or a tuple of values.
//
// Decoding has two steps: `prepare` runs once per statement (resolving column
// indexes, choosing the fast path for each type), and returns the function
// that runs once per row.

import Foundation

/// Decodes the rows of a request's statement.
///
/// `@unchecked Sendable`: the closures capture only metatypes and immutable
/// values (table names, column counts); Swift 6.2 does not yet consider the
/// metatype of an unconstrained generic type `Sendable`.
struct ResultDecoder<Result>: @unchecked Sendable {
    /// Prepares the per-row decoding function for the rows of a source
    /// (Core/RowSource.swift): SQLite's statement, or a server's rows.
    let prepare: (any RowSource, SelectionLayout) throws -> (any RowSource) throws -> Result

    /// Decodes a row with its association scopes and prefetched rows, for
    /// requests with `including(all:)`; nil for results that cannot hold
    /// prefetched records (values, tuples).
    var decodeScoped: ((ScopedRow) throws -> Result)?

    init(
        prepare: @escaping (any RowSource, SelectionLayout) throws -> (any RowSource) throws -> Result,
        decodeScoped: ((ScopedRow) throws -> Result)? = nil
    ) {
        self.prepare = prepare
        self.decodeScoped = decodeScoped
    }
}

extension ResultDecoder {
    /// How to read each row of a statement whose selection is laid out as
    /// `layout` (the execution seam: Core/DatabaseConnection.swift).
    func reading(_ layout: SelectionLayout) -> RowReading<Result> {
        RowReading { try prepare($0, layout) }
    }
}

extension ResultDecoder {
    /// Records, or other Decodable types that hold a record and the records
    /// of its included associations. Without includes, a fetchable record is
    /// read with the records fast path, with no per-row conversion.
    static func record(recordType: Any.Type, tableName: String?) -> ResultDecoder {
        ResultDecoder(
            prepare: { source, layout in
                // The record itself, without associations: the fast reader. A
                // type that wraps the record (`var author: Author` next to
                // annotations) decodes through scopes, which give the wrapped
                // record the main columns.
                if layout.scopes.isEmpty, Result.self == recordType, let fetchable = Result.self as? any FetchableRecord.Type,
                    let box = readerBox(fetchable, source, layout.mainColumnCount) as? ReaderBox<Result>
                {
                    return box.read
                }
                // Records with included associations decode straight from the
                // source, each scope's record through a cached reader.
                let scope = ScopedRow(
                    source: source, range: 0..<(layout.mainColumnCount ?? source.columnCount),
                    children: layout.scopes, prefetched: [:], recordType: recordType, tableName: tableName,
                    cache: ScopeCache())
                return { _ in try scope.decode(as: Result.self) }
            },
            decodeScoped: { scoped in try scoped.decode(as: Result.self) })
    }
}

extension ResultDecoder {
    /// How rows decode as `Result`, chosen from what `Result` is: records
    /// (``FetchableRecord`` and other `Decodable` types, by column name),
    /// whole rows, or the leftmost column's value, in the formats of `root`.
    static func natural<Root>(for type: Result.Type, root: Root.Type, tableName: String?) -> ResultDecoder<Result> {
        if Result.self is any FetchableRecord.Type {
            return .record(recordType: Result.self, tableName: tableName)
        }
        if Result.self == Row.self || Result.self is any DatabaseValueConvertible.Type
            || Result.self is any OptionalColumnDecodable.Type
        {
            return .value(Result.self, of: Root.self)
        }
        return .record(recordType: Result.self, tableName: tableName)
    }
}

/// The records reader of a fetchable type known only at run time, in a box
/// that casts back to its exact type once per statement.
func readerBox<R: FetchableRecord>(_ type: R.Type, _ source: any RowSource, _ count: Int?) -> AnyObject {
    let columns = 0..<min(count ?? source.columnCount, source.columnCount)
    return ReaderBox(R.reader(for: source, columns: columns), columns: columns, layout: nil)
}

extension ResultDecoder where Result == Row {
    /// Rows, copied.
    static var row: ResultDecoder<Row> {
        ResultDecoder(prepare: { source, _ in
            let layout = RowLayout(columnNames: source.columnNames)
            return { Row($0, layout: layout) }
        }, decodeScoped: { $0.slice })
    }
}

extension ResultDecoder {
    /// The leftmost column, decoded as `Value` in the formats of the record
    /// `root` (its date strategy, its JSON decoder).
    static func value<Value, Root>(_ type: Value.Type, of root: Root.Type) -> ResultDecoder<Value> {
        // `select(…, as: Row.self)`: whole rows.
        if let rows = ResultDecoder<Row>.row as? ResultDecoder<Value> { return rows }
        return ResultDecoder<Value>(prepare: { source, _ in
            guard source.columnCount >= 1 else {
                throw DatabaseError.misuse("the request selects no column", sql: source.sourceSQL)
            }
            return columnDecoder(Value.self, at: 0, format: RecordValueFormat.of(Root.self))
        })
    }

    /// The leftmost columns, decoded as the given types in the formats of the
    /// record `root`, as one value or a tuple.
    static func columns<each Value, Root>(
        _ types: repeat (each Value).Type, of root: Root.Type
    ) -> ResultDecoder<(repeat each Value)> {
        ResultDecoder<(repeat each Value)>(prepare: { source, _ in
            var index: Int32 = 0
            let format = RecordValueFormat.of(Root.self)
            func next<T>(_ type: T.Type) -> (any RowSource) throws -> T {
                defer { index += 1 }
                return columnDecoder(type, at: index, format: format)
            }
            let decoders = (repeat next((each Value).self))
            let count = index
            guard source.columnCount >= Int(count) else {
                throw DatabaseError.misuse(
                    "the request selects \(source.columnCount) columns, \(count) are needed", sql: source.sourceSQL)
            }
            return { source in (repeat try (each decoders)(source)) }
        })
    }
}

/// A function that decodes column `index` of the current row of a source as
/// `Value`, through the fastest path the type allows, in the formats of a
/// record (dates in milliseconds, say).
func columnDecoder<Value>(_ type: Value.Type, at index: Int32, format: RecordValueFormat) -> (any RowSource) throws -> Value {
    if format.dateDecoding != .default, Value.self == Date.self || Value.self == Date?.self {
        // The record's own date format, not Date's default reading.
        let strategy = format.dateDecoding
        return { source in
            let value = source.databaseValue(at: index)
            if value.isNull, Value.self == Date?.self { return try cast(Date?.none as Any, Value.self, source, index) }
            guard let date = strategy.date(from: value) else {
                throw source.decodingError(
                    value.isNull ? .unexpectedNull : .valueMismatch(value), index: index, expectedType: Value.self)
            }
            return try cast(date, Value.self, source, index)
        }
    }
    if let optionalType = Value.self as? any OptionalColumnDecodable.Type {
        return { source in
            let decoded = try optionalType.decodeOptionalColumn(source, index)
            return try cast(decoded, Value.self, source, index)
        }
    }
    if let convertibleType = Value.self as? any DatabaseValueConvertible.Type {
        return { source in
            let decoded = try decodeConvertible(convertibleType, source, index)
            return try cast(decoded, Value.self, source, index)
        }
    }
    if let decodableType = Value.self as? any Decodable.Type {
        return { source in
            let value = source.databaseValue(at: index)
            let decoded = try DatabaseValueDecoding.decode(
                decodableType, from: value, column: source.columnName(index), format: format)
            return try cast(decoded, Value.self, source, index)
        }
    }
    return { source in
        throw source.decodingError(.other("the type cannot be read from a database value"), index: index, expectedType: Value.self)
    }
}

private func decodeConvertible<T: DatabaseValueConvertible>(_ type: T.Type, _ source: any RowSource, _ index: Int32) throws -> T {
    try source.decode(type, at: index)
}

private func cast<Value>(_ decoded: Any, _ type: Value.Type, _ source: any RowSource, _ index: Int32) throws -> Value {
    guard let value = decoded as? Value else {
        throw source.decodingError(.other("decoded \(Swift.type(of: decoded))"), index: index, expectedType: Value.self)
    }
    return value
}

/// Optional types whose wrapped type reads from a column: `NULL` is nil.
protocol OptionalColumnDecodable {
    static func decodeOptionalColumn(_ source: any RowSource, _ index: Int32) throws -> Self
}

extension Optional: OptionalColumnDecodable where Wrapped: DatabaseValueConvertible {
    static func decodeOptionalColumn(_ source: any RowSource, _ index: Int32) throws -> Wrapped? {
        try source.decodeIfPresent(Wrapped.self, at: index)
    }
}
