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

    /// How each type decodes in each scope, decided on the first row: the
    /// per-row work is then one dictionary lookup, with no conformance check,
    /// no dynamic cast and no value boxed in `Any`.
    private var decoders: [DecoderKey: AnyObject] = [:]

    private struct DecoderKey: Hashable {
        let type: ObjectIdentifier
        let range: Range<Int>
        let role: ScopeDecoderRole
    }

    /// The decoder of `T` in the scope of columns `range`, made by `make` the first time.
    func decoder<T>(
        _ type: T.Type, _ range: Range<Int>, _ role: ScopeDecoderRole, make: () throws -> (ScopedRow) throws -> T
    ) rethrows -> (ScopedRow) throws -> T {
        let key = DecoderKey(type: ObjectIdentifier(T.self), range: range, role: role)
        // The key names `T`: the box is a ScopeDecoderBox<T>.
        if let box = decoders[key] { return unsafeDowncast(box, to: ScopeDecoderBox<T>.self).read }
        let read = try make()
        decoders[key] = ScopeDecoderBox(read)
        return read
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
///
/// A class, made once per statement for the rows of a statement (the same
/// scopes serve every row, with their child scopes and decoders remembered),
/// and once per copied row otherwise.
final class ScopedRow {
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
    /// The record type of the main table, and its table name; for the scope
    /// of an association, no type, and the association's key.
    let recordType: Any.Type?
    let tableName: String?
    /// Column names and readers shared by the rows of one statement.
    let cache: ScopeCache
    /// A column that identifies the record of this scope (see ``SelectionScope``).
    let identityColumn: Int?

    /// The scopes of `children`, made when first asked for.
    private var childScopes: [ScopedRow?]
    private var mainOnlyScope: ScopedRow?
    /// The decoders used in this scope so far (see ``ScopeCache/decoder(_:_:_:make:)``):
    /// a scope decodes one or two types, found here without hashing.
    private var decoders: [(type: ObjectIdentifier, role: ScopeDecoderRole, box: AnyObject)] = []

    init(
        source: Source, range: Range<Int>, children: [SelectionScope], prefetched: [String: [ScopedRow]],
        recordType: Any.Type?, tableName: String?, cache: ScopeCache, identityColumn: Int? = nil
    ) {
        self.source = source
        self.range = range
        self.children = children
        self.prefetched = prefetched
        self.recordType = recordType
        self.tableName = tableName
        self.cache = cache
        self.identityColumn = identityColumn
        childScopes = Array(repeating: nil, count: children.count)
    }

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
        guard let index = children.firstIndex(where: { $0.key == key }) else { return nil }
        if let child = childScopes[index] { return child }
        let scope = children[index]
        // The association's key names the child scope's own record, as the
        // table name does the main one's (`var album: Album` next to
        // `var artist: Artist`, in the type decoded from the "album" scope).
        let child = ScopedRow(
            source: source, range: scope.range, children: scope.children, prefetched: [:], recordType: nil,
            tableName: scope.key, cache: cache, identityColumn: scope.identityColumn)
        childScopes[index] = child
        return child
    }

    /// This scope without its associations: the main record's columns.
    var mainOnly: ScopedRow {
        if let mainOnlyScope { return mainOnlyScope }
        let scope = ScopedRow(source: source, range: range, children: [], prefetched: [:], recordType: nil, tableName: nil, cache: cache)
        mainOnlyScope = scope
        return scope
    }

    /// The decoder of `T` in this scope for `role`, made by `make` the first
    /// time it is needed in any scope of these columns.
    private func decoder<T>(
        _ type: T.Type, _ role: ScopeDecoderRole, make: () throws -> (ScopedRow) throws -> T
    ) throws -> (ScopedRow) throws -> T {
        let id = ObjectIdentifier(T.self)
        for entry in decoders where entry.type == id && entry.role == role {
            // The entry names `T`: the box is a ScopeDecoderBox<T>.
            return unsafeDowncast(entry.box, to: ScopeDecoderBox<T>.self).read
        }
        let read = try cache.decoder(T.self, range, role, make: make)
        decoders.append((id, role, ScopeDecoderBox(read)))
        return read
    }

    /// Decodes `T`, a type known only at run time to be Decodable.
    func decode<T>(as type: T.Type) throws -> T {
        try decoder(T.self, .result) {
            if let decodable = T.self as? any Decodable.Type,
                let box = ScopeDecoderBox<T>.decodable(decodable)
            {
                return box.read
            }
            // A record that only has init(row:).
            guard let fetchable = T.self as? any FetchableRecord.Type, children.isEmpty, prefetched.isEmpty,
                let box = ScopeDecoderBox<T>.record(fetchable)
            else {
                throw DatabaseError.misuse("\(T.self) is neither Decodable nor a FetchableRecord: it cannot be fetched")
            }
            return box.read
        }(self)
    }

    /// Decodes `type` from this scope: through the record readers for the
    /// scope's record (or a child scope's), else through `Decodable`. Another
    /// type than the scope's record may wrap it (`var author: Author` next to
    /// annotations), and decodes through `Decodable`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let asRecord = (children.isEmpty && prefetched.isEmpty && recordType == nil) || T.self == recordType
        return try decoder(T.self, asRecord ? .record : .decodable) {
            if asRecord, let fetchable = T.self as? any FetchableRecord.Type, let box = ScopeDecoderBox<T>.record(fetchable) {
                return box.read
            }
            return { scope in try T(from: AssociatedRowDecoder(scope: scope)) }
        }(self)
    }

    /// The value that identifies this scope's record (see ``SelectionScope``),
    /// or nil when there is none or it is NULL.
    func identity() -> DatabaseValue? {
        guard let identityColumn else { return nil }
        let identity = value(at: identityColumn)
        return identity.isNull ? nil : identity
    }
}

/// What a scope decoder decodes (see ``ScopeCache/decoder(_:_:_:make:)``).
enum ScopeDecoderRole: Hashable {
    /// The request's result type.
    case result
    /// The record of the scope, through the record readers.
    case record
    /// Another Decodable type, through ``AssociatedRowDecoder``.
    case decodable
}

/// A scope decoder in a generic class, so that it casts back to its exact type.
final class ScopeDecoderBox<Value> {
    let read: (ScopedRow) throws -> Value
    init(_ read: @escaping (ScopedRow) throws -> Value) { self.read = read }

    /// The decoder of `Value`, a Decodable type known only at run time.
    static func decodable(_ type: any Decodable.Type) -> ScopeDecoderBox? {
        func open<D: Decodable>(_ type: D.Type) -> AnyObject { ScopeDecoderBox<D> { try $0.decode(D.self) } }
        return open(type) as? ScopeDecoderBox
    }

    /// The record reader of `Value`, a record type known only at run time.
    static func record(_ type: any FetchableRecord.Type) -> ScopeDecoderBox? {
        func open<R: FetchableRecord>(_ type: R.Type) -> AnyObject { ScopeDecoderBox<R>(ScopeRecordReader<R>().read) }
        return open(type) as? ScopeDecoderBox
    }
}

/// Reads the record of a scope, row after row: through the statement's
/// record reader, or from a copied row; a value type shared by many rows (a
/// belongs-to destination) decodes once per identity.
final class ScopeRecordReader<Record: FetchableRecord> {
    private var statementReader: ((Statement) throws -> Record)?
    private var rowReader: ((Row) throws -> Record)?
    /// Records already decoded, and their index by identity value. Class
    /// instances are never shared between rows. (A dictionary of `Record`
    /// values would look up its generic type's metadata on each access; these
    /// two containers do not.)
    private var identified: [Record] = []
    private var identifiedIndexes: [DatabaseValue: Int] = [:]
    private let sharesValues = !(Record.self is AnyClass)

    func read(_ scope: ScopedRow) throws -> Record {
        guard sharesValues, let identity = scope.identity() else { return try readUnidentified(scope) }
        if let index = identifiedIndexes[identity] { return identified[index] }
        let record = try readUnidentified(scope)
        identifiedIndexes[identity] = identified.count
        identified.append(record)
        return record
    }

    private func readUnidentified(_ scope: ScopedRow) throws -> Record {
        switch scope.source {
        case .statement(let statement):
            if let statementReader { return try statementReader(statement) }
            let reader = scope.cache.statementReader(Record.self, statement, scope.range)
            statementReader = reader
            return try reader(statement)
        case .row:
            if let rowReader { return try rowReader(scope.slice) }
            let reader = scope.cache.rowReader(Record.self, scope.range, scope.layout)
            rowReader = reader
            return try reader(scope.slice)
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
            if T.self == scope.recordType || key.stringValue == scope.tableName {
                return try scope.mainOnly.decode(T.self)
            }
            if scope.columnIndex(key.stringValue) == nil && T.self is any FetchableRecord.Type {
                // Another record type over the main columns (`var author:
                // AuthorInfo` next to annotations). With associations in the
                // row, a record property that names none of them is a key
                // that does not match: reading the main columns would give
                // the main record's values under another type.
                let keys = scope.children.map(\.key) + scope.prefetched.keys.sorted()
                guard keys.isEmpty else {
                    throw RowDecodingError(
                        reason: .other(
                            "no association is named \"\(key.stringValue)\" (the row has \(keys.map { "\"\($0)\"" }.joined(separator: ", "))); "
                                + "name the association with forKey(_:) or key:, or the property after the association"),
                        column: key.stringValue, expectedType: "\(T.self)")
                }
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
