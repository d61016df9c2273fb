// Cursor+Transforms: the Sequence-like operations of cursors (map, filter,
// compactMap, first(where:), contains(where:), isEmpty, min and max), and
// Set(cursor). Transforms are lazy: they return cursors that step the base
// cursor on demand, in constant memory.

extension Cursor {
    /// A cursor of the transformed values, computed as they are read.
    ///
    /// ```swift
    /// let names = try Player.fetchCursor(db).map(\.name)
    /// while let name = try names.next() { … }
    /// ```
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(self, transform)
    }

    /// A cursor of the values that satisfy `isIncluded`, read on demand.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(self, isIncluded)
    }

    /// A cursor of the non-nil transformed values, read on demand.
    public func compactMap<T>(_ transform: @escaping (Element) throws -> T?) -> CompactMapCursor<Self, T> {
        CompactMapCursor(self, transform)
    }

    /// The first remaining value that satisfies `predicate`, or nil.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() {
            if try predicate(element) { return element }
        }
        return nil
    }

    /// Whether a remaining value satisfies `predicate`.
    public func contains(where predicate: (Element) throws -> Bool) throws -> Bool {
        try first(where: predicate) != nil
    }

    /// Whether the cursor has no remaining value: `try cursor.isEmpty`, a
    /// throwing property as in GRDB. Reads one value if there is one.
    public var isEmpty: Bool {
        get throws { try next() == nil }
    }

    /// The smallest remaining value by `areInIncreasingOrder`, or nil.
    public func min(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(element, result) { result = element }
        }
        return result
    }

    /// The largest remaining value by `areInIncreasingOrder`, or nil.
    public func max(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() {
            if try areInIncreasingOrder(result, element) { result = element }
        }
        return result
    }
}

extension Cursor where Element: Comparable {
    /// The smallest remaining value, or nil.
    public func min() throws -> Element? { try min(by: <) }
    /// The largest remaining value, or nil.
    public func max() throws -> Element? { try max(by: <) }
}

extension Cursor where Element: Equatable {
    /// Whether a remaining value equals `element`.
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

extension Set {
    /// The distinct remaining values of a cursor.
    public init<C: Cursor>(_ cursor: C) throws where C.Element == Element {
        self.init()
        while let element = try cursor.next() { insert(element) }
    }
}

/// The cursor of ``Cursor/map(_:)``. Once its base or its transform threw,
/// every later `next()` throws the same error.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element
    private var failure: (any Error)?
    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }
    /// The next transformed value.
    public func next() throws -> Element? {
        try rememberingFailure(&failure) { try base.next().map(transform) }
    }
}

/// The cursor of ``Cursor/filter(_:)``. Once its base or its predicate
/// threw, every later `next()` throws the same error.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool
    private var failure: (any Error)?
    init(_ base: Base, _ isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }
    /// The next value that passes the filter.
    public func next() throws -> Base.Element? {
        try rememberingFailure(&failure) {
            while let element = try base.next() {
                if try isIncluded(element) { return element }
            }
            return nil
        }
    }
}

/// The cursor of ``Cursor/compactMap(_:)``. Once its base or its transform
/// threw, every later `next()` throws the same error.
public final class CompactMapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element?
    private var failure: (any Error)?
    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element?) {
        self.base = base
        self.transform = transform
    }
    /// The next non-nil transformed value.
    public func next() throws -> Element? {
        try rememberingFailure(&failure) {
            while let element = try base.next() {
                if let transformed = try transform(element) { return transformed }
            }
            return nil
        }
    }
}

/// Runs `body` unless `failure` holds an earlier error, which is thrown
/// again; keeps the error `body` throws in `failure`.
private func rememberingFailure<T>(_ failure: inout (any Error)?, _ body: () throws -> T) throws -> T {
    if let failure { throw failure }
    do {
        return try body()
    } catch {
        failure = error
        throw error
    }
}
