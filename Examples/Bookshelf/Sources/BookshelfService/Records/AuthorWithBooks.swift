// AuthorWithBooks: an author and all their books, as GET /authors/:id?include=books returns them.

import Quarry

/// An author with all their books, loaded with `including(all:)`.
public struct AuthorWithBooks: Codable, Sendable, Equatable, FetchableRecord {
    /// The author.
    public var author: Author
    /// Their books, by publication year then id.
    public var books: [Book]
}
