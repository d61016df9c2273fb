// AssociatedRowDecoder: decodes a Decodable type from a row that holds a main
// record and the records of included associations, plus the records that
// `including(all:)` prefetched.
//
// A property whose coding key is an association key decodes from that
// association's columns (a record, or nil when a LEFT JOIN found nothing) or
// from its prefetched rows (an array). A property whose type is the request's
// record type, or whose key is the main table name, decodes from the main
// columns. Any other property reads the main column of the same name.

import Foundation

/// What the rows of one statement share: the column layout of each scope's
/// slice, and the record readers built for them, so that no per-row work goes
/// into resolving column names.
final class ScopeCache {
    private var layouts: [Range<Int>: RowLayout] = [:]
    private var readers: [ReaderKey: Any] = [:]

    private struct ReaderKey: Hashable {
        let type: ObjectIdentifier
        let range: Range<Int>
    }

    /// The layout of the columns `range` of `row`.
    func layout(of row: Row, range: Range<Int>) -> RowLayout {
        if let layout = layouts[range] { return layout }
        let layout = RowLayout(columnNames: Array(row.columnNames[range]))
        layouts[range] = layout
        return layout
    }

    /// The reader of `type` records from slices of `range`.
    func reader<T: FetchableRecord>(_ type: T.Type, range: Range<Int>, columnNames: [String]) -> (Row) throws -> T {
        let key = ReaderKey(type: ObjectIdentifier(T.self), range: range)
        if let reader = readers[key] as? (Row) throws -> T { return reader }
        let reader = T.rowReader(columnNames: columnNames)
        readers[key] = reader
        return reader
    }
}

/// A row, or part of a row, seen through the scopes of its associations.
struct ScopedRow {
    /// All the values of the row.
    let row: Row
    /// The columns of this scope in `row`.
    let range: Range<Int>
    /// The included associations of this scope.
    let children: [SelectionScope]
    /// The prefetched rows of this scope's `including(all:)` associations, by key.
    let prefetched: [String: [ScopedRow]]
    /// The record type of the main table, and its table name.
    let recordType: Any.Type?
    let tableName: String?
    /// Layouts and readers shared by the rows of one statement.
    let cache: ScopeCache
    /// The columns of this scope, as a row of their own.
    let slice: Row

    init(
        row: Row, range: Range<Int>, children: [SelectionScope], prefetched: [String: [ScopedRow]],
        recordType: Any.Type?, tableName: String?, cache: ScopeCache
    ) {
        self.row = row
        self.range = range
        self.children = children
        self.prefetched = prefetched
        self.recordType = recordType
        self.tableName = tableName
        self.cache = cache
        if range.lowerBound == 0 && range.upperBound == row.count {
            slice = row
        } else {
            slice = Row(layout: cache.layout(of: row, range: range), databaseValues: Array(row.databaseValues[range]))
        }
    }

    /// Whether every column of the scope is NULL: a LEFT JOIN that matched no row.
    var isNull: Bool { slice.databaseValues.allSatisfy(\.isNull) }

    func child(_ key: String) -> ScopedRow? {
        guard let scope = children.first(where: { $0.key == key }) else { return nil }
        return ScopedRow(
            row: row, range: scope.range, children: scope.children, prefetched: [:], recordType: nil, tableName: nil,
            cache: cache)
    }

    /// This scope without its associations: the main record's columns.
    var mainOnly: ScopedRow {
        ScopedRow(row: row, range: range, children: [], prefetched: [:], recordType: nil, tableName: nil, cache: cache)
    }

    /// Decodes `T`, a type known only at run time to be Decodable.
    func decode<T>(as type: T.Type) throws -> T {
        if let fetchable = T.self as? any FetchableRecord.Type, children.isEmpty, prefetched.isEmpty {
            return try cast(readRecord(fetchable), to: T.self)
        }
        guard let decodable = T.self as? any Decodable.Type else {
            throw DatabaseError.misuse("\(T.self) is neither Decodable nor a FetchableRecord: it cannot be fetched")
        }
        return try cast(decode(decodable), to: T.self)
    }

    /// Decodes `type` from this scope: through the record readers for
    /// records, else through `Decodable`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let fetchable = T.self as? any FetchableRecord.Type,
            (children.isEmpty && prefetched.isEmpty) || T.self == recordType
        {
            return try cast(readRecord(fetchable), to: T.self)
        }
        return try T(from: AssociatedRowDecoder(scope: self))
    }

    private func readRecord<R: FetchableRecord>(_ type: R.Type) throws -> R {
        try cache.reader(R.self, range: range, columnNames: slice.columnNames)(slice)
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
            (scope.children.map(\.key) + scope.prefetched.keys + scope.slice.columnNames).compactMap(Key.init(stringValue:))
        }

        func contains(_ key: Key) -> Bool {
            scope.child(key.stringValue) != nil || scope.prefetched[key.stringValue] != nil
                || scope.slice.hasColumn(key.stringValue) || key.stringValue == scope.tableName
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if let child = scope.child(key.stringValue) { return child.isNull }
            if scope.prefetched[key.stringValue] != nil { return false }
            if scope.slice.hasColumn(key.stringValue) { return try scope.slice[key.stringValue].isNull }
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
                || (!scope.slice.hasColumn(key.stringValue) && T.self is any FetchableRecord.Type)
            {
                return try scope.mainOnly.decode(T.self)
            }
            return try decodeColumn(T.self, key)
        }

        private func decodeColumn<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            let value: DatabaseValue = try scope.slice[key.stringValue]
            if let convertible = T.self as? any DatabaseValueConvertible.Type {
                guard let decoded = convertible.fromDatabaseValue(value) else {
                    throw RowDecodingError(
                        reason: value.isNull ? .unexpectedNull : .valueMismatch(value), column: key.stringValue,
                        expectedType: "\(T.self)")
                }
                return try cast(decoded, to: T.self)
            }
            return try cast(DatabaseValueDecoding.decode(T.self, from: value, column: key.stringValue), to: T.self)
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
