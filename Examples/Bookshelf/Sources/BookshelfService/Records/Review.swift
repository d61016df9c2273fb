// Review: a reader's rating (1–5) of a book; the `review` table.

import Quarry

/// A review of a ``Book``, stored in the `review` table, with a rating from
/// 1 to 5 (checked by the service and by a CHECK constraint).
public struct Review: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The primary key; nil until the review is inserted.
    public var id: Int64?
    /// The reviewed book (`book.id`).
    public var bookID: Int64
    /// Who wrote the review (not empty).
    public var reviewer: String
    /// The rating, 1 to 5.
    public var rating: Int
    /// Free text, optional.
    public var comment: String?

    /// Makes a review.
    public init(id: Int64? = nil, bookID: Int64, reviewer: String, rating: Int, comment: String? = nil) {
        self.id = id
        self.bookID = bookID
        self.reviewer = reviewer
        self.rating = rating
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey {
        case id, bookID = "book_id", reviewer, rating, comment
    }
}
