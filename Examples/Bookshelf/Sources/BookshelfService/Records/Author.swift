// Author: a writer of books; the `author` table.

import Quarry

/// A writer, stored in the `author` table. Its JSON form uses the same keys
/// as its columns (`id`, `name`, `bio`).
public struct Author: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The primary key; nil until the author is inserted.
    public var id: Int64?
    /// The author's name (not empty).
    public var name: String
    /// A short biography, optional.
    public var bio: String?

    /// Makes an author.
    public init(id: Int64? = nil, name: String, bio: String? = nil) {
        self.id = id
        self.name = name
        self.bio = bio
    }

    /// The author's books (`book.author_id`).
    static let books = hasMany(Book.self, using: \.authorID)
}
