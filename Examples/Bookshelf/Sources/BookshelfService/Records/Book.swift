// Book: a book written by an author, with a unique ISBN; the `book` table.

import Quarry

/// A book, stored in the `book` table. It belongs to an ``Author`` and has a
/// unique ISBN. Its JSON keys are its column names (`author_id`, `price_cents`…).
public struct Book: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The primary key; nil until the book is inserted.
    public var id: Int64?
    /// The author (`author.id`).
    public var authorID: Int64
    /// The title (not empty).
    public var title: String
    /// The ISBN, unique among books.
    public var isbn: String
    /// The year of publication.
    public var published: Int
    /// The price, in cents.
    public var priceCents: Int

    /// Makes a book.
    public init(id: Int64? = nil, authorID: Int64, title: String, isbn: String, published: Int, priceCents: Int) {
        self.id = id
        self.authorID = authorID
        self.title = title
        self.isbn = isbn
        self.published = published
        self.priceCents = priceCents
    }

    enum CodingKeys: String, CodingKey {
        case id, authorID = "author_id", title, isbn, published, priceCents = "price_cents"
    }

    /// The book's author.
    static let author = belongsTo(Author.self, using: \.authorID)
    /// The book's reviews (`review.book_id`).
    static let reviews = hasMany(Review.self, using: \.bookID)
}
