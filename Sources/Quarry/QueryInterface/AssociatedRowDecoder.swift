// AssociatedRowDecoder: decodes a Decodable type from a row that holds a main
// record and the records of included associations, plus the records that
// `including(all:)` prefetched.
//
// A property whose coding key is an association key decodes from that
// association's columns (a record, or nil when a LEFT JOIN found nothing) or
// from its prefetched rows (an array). A property whose type is the request's
// record type, or whose key is the main table name, decodes from the main
// columns. Any other property reads the main column of the same name.

import CSQLite
import Foundation

/// What the rows of one statement share: the column names of each scope, and
/// the record readers built for them, so that no per-row work goes into
/// resolving column names.
final class ScopeCache {
    private var layouts: [Range<Int>: RowLayout] = [:]
    private var readers: [ReaderKey: AnyObject] = [:]

    private struct ReaderKey: Hashable {
        let type: ObjectIdentifier
        let range: Range<Int>
    }

    /// The names of the columns `range`, indexed.
    func layout(_ range: Range<Int>, columnNames: @autoclosure () -> [String]) -> RowLayout {
        if let layout = layouts[range] { return layout }
        let names = columnNames()
        // Clamped: a statement recompiled after a schema change may have fewer columns.
        let layout = RowLayout(columnNames: Array(names[range.clamped(to: names.indices)]))
        layouts[range] = layout
        return layout
    }

    /// The reader of `T` records from the columns `range` of a statement.
    func statementReader<T: FetchableRecord>(_ type: T.Type, _ statement: Statement, _ range: Range<Int>) -> (Statement) throws -> T {
        let key = ReaderKey(type: ObjectIdentifier(T.self), range: range)
        if let box = readers[key] as? ReaderBox<T> { return box.read }
        let box = ReaderBox(T.reader(for: statement, columns: range), columns: range, layout: nil)
        readers[key] = box
        return box.read
    }

    /// Records already decoded, by scope and identity value (belongs-to
    /// destinations shared by many rows decode once per fetch).
    private var identified: [Range<Int>: [DatabaseValue: Any]] = [:]

    /// The record of `range` whose identity is `identity`, decoded by `decode` the first time.
    func identifiedRecord<T>(_ range: Range<Int>, _ identity: DatabaseValue, _ decode: () throws -> T) throws -> T {
        if let record = identified[range]?[identity] as? T { return record }
        let record = try decode()
        identified[range, default: [:]][identity] = record
        return record
    }

    /// The reader of `T` records from rows with the columns of `layout`.
    func rowReader<T: FetchableRecord>(_ type: T.Type, _ range: Range<Int>, _ layout: RowLayout) -> (Row) throws -> T {
        let key = ReaderKey(type: ObjectIdentifier(T.self), range: range)
        if let box = readers[key] as? RowReaderBox<T> { return box.read }
        let box = RowReaderBox(T.rowReader(columnNames: layout.columnNames))
        readers[key] = box
        return box.read
    }
}

/// A row — the current row of a statement, or a copied one — seen through
/// the scopes of its associations: a range of columns, the included
/// associations within it, and the prefetched rows of `including(all:)`.
struct ScopedRow {
    /// Where the values are read from.
    enum Source {
        case statement(Statement)
        case row(Row)
    }

    let source: Source
    /// The columns of this scope.
    let range: Range<Int>
    /// The included associations of this scope.
    let children: [SelectionScope]
    /// The prefetched rows of this scope's `including(all:)` associations, by key.
    let prefetched: [String: [ScopedRow]]
    /// The record type of the main table, and its table name.
    let recordType: Any.Type?
    let tableName: String?
    /// Column names and readers shared by the rows of one statement.
    let cache: ScopeCache
    /// A column that identifies the record of this scope (see ``SelectionScope``).
    var identityColumn: Int? = nil

    /// The column names of this scope.
    var layout: RowLayout {
        switch source {
        case .statement(let statement): return cache.layout(range, columnNames: statement.columnNames)
        case .row(let row): return cache.layout(range, columnNames: row.columnNames)
        }
    }

    /// The statement index of the column named `name` in this scope.
    func columnIndex(_ name: String) -> Int? {
        layout.index(of: name).map { $0 + range.lowerBound }
    }

    /// The value of the column at statement index `index`.
    func value(at index: Int) -> DatabaseValue {
        switch source {
        case .statement(let statement): return DatabaseValue(sqliteStatement: statement.sqliteStatement, index: Int32(index))
        case .row(let row): return row.databaseValues[index]
        }
    }

    /// Whether every column of the scope is NULL: a LEFT JOIN that matched no row.
    var isNull: Bool {
        switch source {
        case .statement(let statement):
            return range.allSatisfy { sqlite3_column_type(statement.sqliteStatement, Int32($0)) == SQLITE_NULL }
        case .row(let row):
            return row.databaseValues[range].allSatisfy(\.isNull)
        }
    }

    /// The columns of this scope, copied into a row of their own.
    var slice: Row {
        switch source {
        case .statement(let statement): return Row(statement: statement, columns: range, layout: layout)
        case .row(let row):
            if range.lowerBound == 0 && range.upperBound == row.count { return row }
            return Row(layout: layout, databaseValues: Array(row.databaseValues[range]))
        }
    }

    func child(_ key: String) -> ScopedRow? {
        guard let scope = children.first(where: { $0.key == key }) else { return nil }
        return ScopedRow(
            source: source, range: scope.range, children: scope.children, prefetched: [:], recordType: nil,
            tableName: nil, cache: cache, identityColumn: scope.identityColumn)
    }

    /// This scope without its associations: the main record's columns.
    var mainOnly: ScopedRow {
        ScopedRow(source: source, range: range, children: [], prefetched: [:], recordType: nil, tableName: nil, cache: cache)
    }

    /// Decodes `T`, a type known only at run time to be Decodable.
    func decode<T>(as type: T.Type) throws -> T {
        if let decodable = T.self as? any Decodable.Type {
            return try cast(decode(decodable), to: T.self)
        }
        // A record that only has init(row:).
        guard let fetchable = T.self as? any FetchableRecord.Type, children.isEmpty, prefetched.isEmpty else {
            throw DatabaseError.misuse("\(T.self) is neither Decodable nor a FetchableRecord: it cannot be fetched")
        }
        return try cast(readRecord(fetchable), to: T.self)
    }

    /// Decodes `type` from this scope: through the record readers for the
    /// scope's record (or a child scope's), else through `Decodable`. Another
    /// type than the scope's record may wrap it (`var author: Author` next to
    /// annotations), and decodes through `Decodable`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let fetchable = T.self as? any FetchableRecord.Type,
            (children.isEmpty && prefetched.isEmpty && recordType == nil) || T.self == recordType
        {
            return try cast(readRecord(fetchable), to: T.self)
        }
        return try T(from: AssociatedRowDecoder(scope: self))
    }

    private func readRecord<R: FetchableRecord>(_ type: R.Type) throws -> R {
        // Value types shared by many rows decode once; class instances are
        // never shared between rows.
        if let identityColumn, !(R.self is AnyClass) {
            let identity = value(at: identityColumn)
            if !identity.isNull {
                return try cache.identifiedRecord(range, identity) { try readUnidentifiedRecord(R.self) }
            }
        }
        return try readUnidentifiedRecord(R.self)
    }

    private func readUnidentifiedRecord<R: FetchableRecord>(_ type: R.Type) throws -> R {
        switch source {
        case .statement(let statement): return try cache.statementReader(R.self, statement, range)(statement)
        case .row: return try cache.rowReader(R.self, range, layout)(slice)
        }
    }
}

private func cast<T>(_ value: Any, to type: T.Type) throws -> T {
    guard let typed = value as? T else {
        throw DatabaseError.misuse("could not decode \(T.self) from \(Swift.type(of: value))")
    }
    return typed
}

/// The `Decoder` over a ``ScopedRow``.
struct AssociatedRowDecoder: Decoder {
    let scope: ScopedRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(scope: scope, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath, debugDescription: "a row with associations is not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "a row with associations is not a single value"))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let scope: ScopedRow
        var codingPath: [any CodingKey]
        var allKeys: [Key] {
            (scope.children.map(\.key) + scope.prefetched.keys + scope.layout.columnNames).compactMap(Key.init(stringValue:))
        }

        func contains(_ key: Key) -> Bool {
            scope.child(key.stringValue) != nil || scope.prefetched[key.stringValue] != nil
                || scope.columnIndex(key.stringValue) != nil || key.stringValue == scope.tableName
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if let child = scope.child(key.stringValue) { return child.isNull }
            if scope.prefetched[key.stringValue] != nil { return false }
            if let index = scope.columnIndex(key.stringValue) { return scope.value(at: index).isNull }
            return key.stringValue != scope.tableName
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if let child = scope.child(key.stringValue) {
                return try child.decode(T.self)
            }
            if let rows = scope.prefetched[key.stringValue] {
                return try T(from: PrefetchedRowsDecoder(rows: rows, codingPath: codingPath + [key]))
            }
            if T.self == scope.recordType || key.stringValue == scope.tableName
                || (scope.columnIndex(key.stringValue) == nil && T.self is any FetchableRecord.Type)
            {
                return try scope.mainOnly.decode(T.self)
            }
            return try decodeColumn(T.self, key)
        }

        private func decodeColumn<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            guard let index = scope.columnIndex(key.stringValue) else {
                throw RowDecodingError(
                    reason: .columnNotFound, column: key.stringValue, expectedType: "\(T.self)",
                    availableColumns: scope.layout.columnNames)
            }
            let value = scope.value(at: index)
            // In the formats of the scope's record (a date in milliseconds, say).
            let format = scope.recordType.map { RecordValueFormat.of($0) } ?? .standard
            if T.self == Date.self, format.dateDecoding != .default {
                guard let date = format.dateDecoding.date(from: value) else {
                    throw RowDecodingError(
                        reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: key.stringValue,
                        expectedType: "\(T.self)")
                }
                return try cast(date, to: T.self)
            }
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                guard let decoded = convertible.fromDatabaseValue(value) else {
                    throw RowDecodingError(
                        reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: key.stringValue,
                        expectedType: "\(T.self)")
                }
                return try cast(decoded, to: T.self)
            }
            return try cast(
                DatabaseValueDecoding.decode(T.self, from: value, column: key.stringValue, format: format), to: T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            guard let child = scope.child(key.stringValue) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no association \(key.stringValue)"))
            }
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(scope: child, codingPath: codingPath + [key]))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            guard let rows = scope.prefetched[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no prefetched association \(key.stringValue)"))
            }
            return PrefetchedRowsDecoder.Container(rows: rows, codingPath: codingPath + [key])
        }

        func superDecoder() throws -> any Decoder { AssociatedRowDecoder(scope: scope, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { AssociatedRowDecoder(scope: scope, codingPath: codingPath + [key]) }
    }
}

/// Decodes an array (or any unkeyed collection) from prefetched rows.
struct PrefetchedRowsDecoder: Decoder {
    let rows: [ScopedRow]
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(
            [String: Any].self, .init(codingPath: codingPath, debugDescription: "prefetched records decode as an array"))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Container(rows: rows, codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "prefetched records decode as an array"))
    }

    struct Container: UnkeyedDecodingContainer {
        let rows: [ScopedRow]
        var codingPath: [any CodingKey]
        var count: Int? { rows.count }
        var isAtEnd: Bool { currentIndex >= rows.count }
        var currentIndex = 0

        init(rows: [ScopedRow], codingPath: [any CodingKey]) {
            self.rows = rows
            self.codingPath = codingPath
        }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return try rows[currentIndex].decode(T.self)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return KeyedDecodingContainer(AssociatedRowDecoder.KeyedContainer<NestedKey>(scope: rows[currentIndex], codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a prefetched row is not a list"))
        }

        mutating func superDecoder() throws -> any Decoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more prefetched rows"))
            }
            defer { currentIndex += 1 }
            return AssociatedRowDecoder(scope: rows[currentIndex], codingPath: codingPath)
        }
    }
}
