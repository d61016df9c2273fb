// Review: a reader's rating (1–5) of a book; the `review` table.

import Foundation
import Quarry

/// A review of a ``Book``, stored in the `review` table, with a rating from
/// 1 to 5 (checked by the service and by a CHECK constraint).
///
/// `created_at` is set by the service when the review is created (whole
/// seconds, UTC) and kept when it is replaced; reviews stored before the
/// `addReviewCreatedAt` migration have none, and their JSON leaves it out.
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
    /// When the review was created; nil for reviews older than the column.
    /// Stored as UTC text (`2026-11-25 14:03:00.000`), sent as ISO 8601
    /// (`2026-11-25T14:03:00Z`).
    public var createdAt: Date?

    /// Makes a review.
    public init(id: Int64? = nil, bookID: Int64, reviewer: String, rating: Int, comment: String? = nil, createdAt: Date? = nil) {
        self.id = id
        self.bookID = bookID
        self.reviewer = reviewer
        self.rating = rating
        self.comment = comment
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, bookID = "book_id", reviewer, rating, comment, createdAt = "created_at"
    }
}
