// AuthorTitles: an author's name and the titles of their books, as
// GET /authors/:id/titles answers, fetched in one query with json_group_array.

import Quarry

/// An author and the titles of their books:
/// `{"author_id": 1, "name": "Ursula K. Le Guin", "titles": ["A Wizard of Earthsea", …]}`.
///
/// Fetched in one `GROUP BY` query whose `titles` column is the JSON text of
/// `json_group_array(title)`, decoded into the array; the titles are then
/// sorted (SQLite does not define the order in which an aggregate sees its
/// rows).
public struct AuthorTitles: Codable, Sendable, Equatable, FetchableRecord {
    /// The author's id.
    public var authorID: Int64
    /// The author's name.
    public var name: String
    /// The titles of the author's books, sorted; empty for an author without books.
    public var titles: [String]

    /// Makes a value.
    public init(authorID: Int64, name: String, titles: [String]) {
        self.authorID = authorID
        self.name = name
        self.titles = titles
    }

    enum CodingKeys: String, CodingKey {
        case authorID = "author_id", name, titles
    }
}
