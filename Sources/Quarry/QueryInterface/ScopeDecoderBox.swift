// ScopeDecoderBox: a scope decoder kept in ScopeCache, boxed in a generic
// class so that it casts back to its exact type, and what it decodes.

import Foundation

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
