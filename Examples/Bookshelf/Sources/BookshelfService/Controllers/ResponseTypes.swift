// Response envelopes and the ResponseEncodable conformances of the records.

import Hummingbird

extension Author: ResponseEncodable {}
extension Book: ResponseEncodable {}
extension Review: ResponseEncodable {}
extension AuthorWithBooks: ResponseEncodable {}
extension RatedBook: ResponseEncodable {}
extension BookStatsSummary: ResponseEncodable {}
extension AuthorTitles: ResponseEncodable {}

/// `{"status": "ok"}`, the answer of `GET /health`.
struct HealthStatus: ResponseEncodable, Sendable {
    var status: String
}

/// The books a bulk operation changed, as the database returned them
/// (`RETURNING *`): `{"books": [...], "count": 3}`.
struct BulkBooksResult: ResponseEncodable, Sendable {
    var books: [Book]
    var count: Int
}

/// A list without paging: `{"items": [...]}`.
struct ItemList<Item: Codable & Sendable>: ResponseEncodable, Sendable {
    var items: [Item]
}
