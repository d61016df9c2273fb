// BookshelfRequestContext: the request context of the service — JSON with
// sorted keys (stable, readable output) and ISO 8601 dates, and a 64 KiB
// request body limit.

import Foundation
import Hummingbird

/// The request context of every Bookshelf route.
public struct BookshelfRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, path parameters).
    public var coreContext: CoreRequestContextStorage

    /// The largest request body accepted; more is answered with 413.
    public static let maximumBodySize = 64 * 1024

    /// Makes the context of one request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The largest request body accepted: ``maximumBodySize``.
    public var maxUploadSize: Int { Self.maximumBodySize }

    /// JSON with sorted keys, so that responses read the same every time.
    public var responseEncoder: JSONEncoder { Self.makeJSONEncoder() }

    /// The service's JSON encoder: sorted keys, slashes left as they are,
    /// dates in ISO 8601 (`2026-11-25T14:03:00Z`).
    /// Also what encodes the `data:` of the event stream (``BookEventsController``).
    static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
