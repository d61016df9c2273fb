// Paging: the `page`/`per_page` query parameters and the JSON envelope of list endpoints.

import Hummingbird

/// The page a list endpoint returns: `page` (from 1, default 1) and
/// `per_page` (1 to ``maximumPerPage``, default ``defaultPerPage``).
public struct PageRequest: Sendable, Equatable {
    /// The largest `per_page` accepted; more is a 400.
    public static let maximumPerPage = 100
    /// `per_page` when the request does not say.
    public static let defaultPerPage = 20
    /// The largest page number accepted (keeps OFFSET within range).
    public static let maximumPage = 1_000_000

    /// The page number, from 1.
    public var page: Int
    /// Items per page.
    public var perPage: Int

    /// The number of rows to skip.
    public var offset: Int { (page - 1) * perPage }

    /// Reads `page` and `per_page` from the query string.
    ///
    /// - throws: ``APIError`` 400 for a value that is not an integer, below
    ///   1, or a `per_page` over ``maximumPerPage``.
    init(request: Request) throws {
        page = try request.queryInt("page", in: 1...Self.maximumPage) ?? 1
        perPage = try request.queryInt("per_page", in: 1...Self.maximumPerPage) ?? Self.defaultPerPage
    }
}

/// One page of a list: `{"items": [...], "page": 1, "per_page": 20, "total": 57}`.
public struct Page<Item: Codable & Sendable>: Codable, Sendable, ResponseEncodable {
    /// The items of this page.
    public var items: [Item]
    /// The page number.
    public var page: Int
    /// The page size asked for.
    public var perPage: Int
    /// The number of items of all pages, with the same filters.
    public var total: Int

    enum CodingKeys: String, CodingKey {
        case items, page, perPage = "per_page", total
    }
}
