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
    /// Prepares the per-row decoding function for a statement.
    let prepare: (Statement, SelectionLayout) throws -> (Statement) throws -> Result

    /// Decodes a row copied with its association scopes and prefetched rows,
    /// for requests with `including(all:)`; nil for results that cannot hold
    /// prefetched records (values, tuples).
    var decodeScoped: ((ScopedRow) throws -> Result)?

    /// Decodes a copied row, for results that `decodeScoped` does not decode
    /// (values, tuples): the rows of a database server.
    var decodeRow: ((Row) throws -> Result)?

    init(
        prepare: @escaping (Statement, SelectionLayout) throws -> (Statement) throws -> Result,
        decodeScoped: ((ScopedRow) throws -> Result)? = nil,
        decodeRow: ((Row) throws -> Result)? = nil
    ) {
        self.prepare = prepare
        self.decodeScoped = decodeScoped
        self.decodeRow = decodeRow
    }

    /// The function that decodes each copied row of a database server, whose
    /// first `mainCount` columns are the request's own.
    func rowDecoder(
        layout: SelectionLayout, mainCount: Int, recordType: Any.Type, tableName: String?
    ) -> (Row) throws -> Result {
        if let decodeScoped {
            let cache = ScopeCache()
            return { row in
                try decodeScoped(ScopedRow(
                    source: .row(row), range: 0..<mainCount, children: layout.scopes, prefetched: [:],
                    recordType: recordType, tableName: tableName, cache: cache))
            }
        }
        if let decodeRow { return decodeRow }
        return { _ in throw DatabaseError.misuse("this result type cannot be read from the rows of a database server") }
    }
}

extension ResultDecoder {
    /// How to read each row of a statement whose selection is laid out as
    /// `layout` (the execution seam's two forms: Core/DatabaseConnection.swift).
    func reading(_ layout: SelectionLayout, recordType: Any.Type, tableName: String?) -> RowReading<Result> {
        RowReading(
            statement: { try prepare($0, layout) },
            row: { columnNames in
                rowDecoder(
                    layout: layout, mainCount: layout.mainColumnCount ?? columnNames.count, recordType: recordType,
                    tableName: tableName)
            })
    }
}

extension ResultDecoder {
    /// Records, or other Decodable types that hold a record and the records
    /// of its included associations. Without includes, a fetchable record is
    /// read with the records fast path, with no per-row conversion.
    static func record(recordType: Any.Type, tableName: String?) -> ResultDecoder {
        ResultDecoder(
            prepare: { statement, layout in
                // The record itself, without associations: the fast reader. A
                // type that wraps the record (`var author: Author` next to
                // annotations) decodes through scopes, which give the wrapped
                // record the main columns.
                if layout.scopes.isEmpty, Result.self == recordType, let fetchable = Result.self as? any FetchableRecord.Type,
                    let box = readerBox(fetchable, statement, layout.mainColumnCount) as? ReaderBox<Result>
                {
                    return box.read
                }
                // Records with included associations decode straight from the
                // statement, each scope's record through a cached reader.
                let scope = ScopedRow(
                    source: .statement(statement), range: 0..<(layout.mainColumnCount ?? statement.columnCount),
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
func readerBox<R: FetchableRecord>(_ type: R.Type, _ statement: Statement, _ count: Int?) -> AnyObject {
    let columns = 0..<min(count ?? statement.columnCount, statement.columnCount)
    return ReaderBox(R.reader(for: statement, columns: columns), columns: columns, layout: nil)
}

extension ResultDecoder where Result == Row {
    /// Rows, copied.
    static var row: ResultDecoder<Row> {
        ResultDecoder(prepare: { statement, _ in
            let layout = RowLayout(columnNames: statement.columnNames)
            return { Row(statement: $0, layout: layout) }
        }, decodeScoped: { $0.slice })
    }
}

extension ResultDecoder {
    /// The leftmost column, decoded as `Value` in the formats of the record
    /// `root` (its date strategy, its JSON decoder).
    static func value<Value, Root>(_ type: Value.Type, of root: Root.Type) -> ResultDecoder<Value> {
        // `select(…, as: Row.self)`: whole rows.
        if let rows = ResultDecoder<Row>.row as? ResultDecoder<Value> { return rows }
        return ResultDecoder<Value>(prepare: { statement, _ in
            guard statement.columnCount >= 1 else {
                throw DatabaseError.misuse("the request selects no column", sql: statement.sql)
            }
            return columnDecoder(Value.self, at: 0, format: RecordValueFormat.of(Root.self))
        }, decodeRow: { row in
            try rowColumnValue(row, at: 0, as: Value.self, format: RecordValueFormat.of(Root.self))
        })
    }

    /// The leftmost columns, decoded as the given types in the formats of the
    /// record `root`, as one value or a tuple.
    static func columns<each Value, Root>(
        _ types: repeat (each Value).Type, of root: Root.Type
    ) -> ResultDecoder<(repeat each Value)> {
        ResultDecoder<(repeat each Value)>(prepare: { statement, _ in
            var index: Int32 = 0
            let format = RecordValueFormat.of(Root.self)
            func next<T>(_ type: T.Type) -> (Statement) throws -> T {
                defer { index += 1 }
                return columnDecoder(type, at: index, format: format)
            }
            let decoders = (repeat next((each Value).self))
            let count = index
            guard statement.columnCount >= Int(count) else {
                throw DatabaseError.misuse(
                    "the request selects \(statement.columnCount) columns, \(count) are needed", sql: statement.sql)
            }
            return { statement in (repeat try (each decoders)(statement)) }
        }, decodeRow: { row in
            var index = 0
            let format = RecordValueFormat.of(Root.self)
            func next<T>(_ type: T.Type) throws -> T {
                defer { index += 1 }
                return try rowColumnValue(row, at: index, as: type, format: format)
            }
            return (repeat try next((each Value).self))
        })
    }
}

/// A function that decodes column `index` of the current row as `Value`,
/// through the fastest path the type allows, in the formats of a record
/// (dates in milliseconds, say).
func columnDecoder<Value>(_ type: Value.Type, at index: Int32, format: RecordValueFormat) -> (Statement) throws -> Value {
    if format.dateDecoding != .default, Value.self == Date.self || Value.self == Date?.self {
        // The record's own date format, not Date's default reading.
        let strategy = format.dateDecoding
        return { statement in
            let value = DatabaseValue(sqliteStatement: statement.sqliteStatement, index: index)
            if value.isNull, Value.self == Date?.self { return try cast(Date?.none as Any, Value.self, statement, index) }
            guard let date = strategy.date(from: value) else {
                throw statement.decodingError(
                    value.isNull ? .unexpectedNull : .valueMismatch(value), index: index, expectedType: Value.self)
            }
            return try cast(date, Value.self, statement, index)
        }
    }
    if let optionalType = Value.self as? any OptionalColumnDecodable.Type {
        return { statement in
            let decoded = try optionalType.decodeOptionalColumn(statement, index)
            return try cast(decoded, Value.self, statement, index)
        }
    }
    if let convertibleType = Value.self as? any DatabaseValueConvertible.Type {
        return { statement in
            let decoded = try decodeConvertible(convertibleType, statement, index)
            return try cast(decoded, Value.self, statement, index)
        }
    }
    if let decodableType = Value.self as? any Decodable.Type {
        return { statement in
            let value = DatabaseValue(sqliteStatement: statement.sqliteStatement, index: index)
            let decoded = try DatabaseValueDecoding.decode(
                decodableType, from: value, column: statement.columnName(index), format: format)
            return try cast(decoded, Value.self, statement, index)
        }
    }
    return { statement in
        throw statement.decodingError(.other("the type cannot be read from a database value"), index: index, expectedType: Value.self)
    }
}

/// Column `index` of a copied row (the rows of a database server) decoded
/// as `Value`, in the formats of a record: what `columnDecoder` does for a
/// statement, from the row's value.
func rowColumnValue<Value>(_ row: Row, at index: Int, as type: Value.Type, format: RecordValueFormat) throws -> Value {
    guard row.databaseValues.indices.contains(index) else {
        throw RowDecodingError(
            reason: .indexOutOfRange, column: "#\(index)", expectedType: "\(Value.self)", availableColumns: row.columnNames)
    }
    let value = row.databaseValues[index]
    let column = row.columnNames[index]
    func failure(_ reason: RowDecodingError.Reason) -> RowDecodingError {
        RowDecodingError(reason: reason, column: column, expectedType: "\(Value.self)")
    }
    let decoded: Any
    if format.dateDecoding != .default, Value.self == Date.self || Value.self == Date?.self {
        if value.isNull, Value.self == Date?.self {
            decoded = Date?.none as Any
        } else if let date = format.dateDecoding.date(from: value) {
            decoded = date
        } else {
            throw failure(value.isNull ? .unexpectedNull : .valueMismatch(value))
        }
    } else if let optionalType = Value.self as? any OptionalValueDecodable.Type {
        decoded = try optionalType.decodeOptionalValue(value, failure)
    } else if let convertibleType = Value.self as? any DatabaseValueConvertible.Type {
        if value.isNull { throw failure(.unexpectedNull) }
        guard let converted = convertibleType.fromDatabaseValue(value) else { throw failure(.valueMismatch(value)) }
        decoded = converted
    } else if let decodableType = Value.self as? any Decodable.Type {
        decoded = try DatabaseValueDecoding.decode(decodableType, from: value, column: column, format: format)
    } else {
        throw failure(.other("the type cannot be read from a database value"))
    }
    guard let result = decoded as? Value else { throw failure(.other("decoded \(Swift.type(of: decoded))")) }
    return result
}

/// Optional types whose wrapped type converts from a database value: `NULL` is nil.
private protocol OptionalValueDecodable {
    static func decodeOptionalValue(
        _ value: DatabaseValue, _ failure: (RowDecodingError.Reason) -> RowDecodingError
    ) throws -> Self
}

extension Optional: OptionalValueDecodable where Wrapped: DatabaseValueConvertible {
    fileprivate static func decodeOptionalValue(
        _ value: DatabaseValue, _ failure: (RowDecodingError.Reason) -> RowDecodingError
    ) throws -> Wrapped? {
        if value.isNull { return nil }
        guard let converted = Wrapped.fromDatabaseValue(value) else { throw failure(.valueMismatch(value)) }
        return converted
    }
}

private func decodeConvertible<T: DatabaseValueConvertible>(_ type: T.Type, _ statement: Statement, _ index: Int32) throws -> T {
    try statement.decode(type, at: index)
}

private func cast<Value>(_ decoded: Any, _ type: Value.Type, _ statement: Statement, _ index: Int32) throws -> Value {
    guard let value = decoded as? Value else {
        throw statement.decodingError(.other("decoded \(Swift.type(of: decoded))"), index: index, expectedType: Value.self)
    }
    return value
}

/// Optional types whose wrapped type reads from a column: `NULL` is nil.
protocol OptionalColumnDecodable {
    static func decodeOptionalColumn(_ statement: Statement, _ index: Int32) throws -> Self
}

extension Optional: OptionalColumnDecodable where Wrapped: DatabaseValueConvertible {
    static func decodeOptionalColumn(_ statement: Statement, _ index: Int32) throws -> Wrapped? {
        try statement.decodeIfPresent(Wrapped.self, at: index)
    }
}

extension Statement {
    /// The name of column `index`, or `#index`.
    func columnName(_ index: Int32) -> String {
        index >= 0 && Int(index) < columnCount ? columnNames[Int(index)] : "#\(index)"
    }
}
