// ScopeCache: what the rows of one statement with included associations
// share (column names of each scope, record readers, scope decoders), so
// that no per-row work resolves column names. Used by ScopedRow.swift.

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

    /// The reader of `T` records from the columns `range` of the rows of
    /// `source` (and of every source with the same columns).
    func reader<T: FetchableRecord>(_ type: T.Type, _ source: any RowSource, _ range: Range<Int>) -> (any RowSource) throws -> T {
        let key = ReaderKey(type: ObjectIdentifier(T.self), range: range)
        if let box = readers[key] as? ReaderBox<T> { return box.read }
        let box = ReaderBox(T.reader(for: source, columns: range), columns: range, layout: nil)
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
}
