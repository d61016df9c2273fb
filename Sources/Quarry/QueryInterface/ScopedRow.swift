// ScopedRow: one row of a request with included associations, seen through
// one scope (the main record, or an association's columns), with the rows
// `including(all:)` prefetched for it. The decoders below read from it.

import Foundation

/// A row — the current row of a source (Core/RowSource.swift) — seen through
/// the scopes of its associations: a range of columns, the included
/// associations within it, and the prefetched rows of `including(all:)`.
///
/// A class, made once per statement for the rows of a statement (the same
/// scopes serve every row, with their child scopes and decoders remembered),
/// and once per prefetched row.
final class ScopedRow {
    /// Where the values are read from: a statement's current row, or a
    /// prefetched row in a ``RowBuffer``.
    let source: any RowSource
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
        source: any RowSource, range: Range<Int>, children: [SelectionScope], prefetched: [String: [ScopedRow]],
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
    var layout: RowLayout { cache.layout(range, columnNames: source.columnNames) }

    /// The statement index of the column named `name` in this scope.
    func columnIndex(_ name: String) -> Int? {
        layout.index(of: name).map { $0 + range.lowerBound }
    }

    /// The value of the column at statement index `index`.
    func value(at index: Int) -> DatabaseValue { source.databaseValue(at: Int32(index)) }

    /// Whether every column of the scope is NULL: a LEFT JOIN that matched no row.
    var isNull: Bool { range.allSatisfy { source.isNull(at: Int32($0)) } }

    /// The columns of this scope, copied into a row of their own.
    var slice: Row { Row(source, columns: range, layout: layout) }

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
