// BookStatsSummary: what GET /books/:id/stats answers, from a BookStats row.

/// A book's review count and average rating:
/// `{"average_rating": 4.5, "book_id": 1, "review_count": 2}`.
///
/// `average_rating` is `null` (written out, not left out) when the book has
/// no reviews.
public struct BookStatsSummary: Codable, Sendable, Equatable {
    /// The book.
    public var bookID: Int64
    /// How many reviews it has.
    public var reviewCount: Int
    /// The average of their ratings; nil without reviews.
    public var averageRating: Double?

    /// Makes a summary.
    public init(bookID: Int64, reviewCount: Int, averageRating: Double?) {
        self.bookID = bookID
        self.reviewCount = reviewCount
        self.averageRating = averageRating
    }

    /// The summary of stored stats: the average is the rating total divided
    /// by the review count.
    public init(_ stats: BookStats) {
        self.init(
            bookID: stats.bookID, reviewCount: stats.reviewCount,
            averageRating: stats.reviewCount > 0 ? Double(stats.ratingTotal) / Double(stats.reviewCount) : nil)
    }

    enum CodingKeys: String, CodingKey {
        case bookID = "book_id", reviewCount = "review_count", averageRating = "average_rating"
    }

    /// Encodes every key, with `null` for a missing average (the synthesized
    /// encoding would leave the key out).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bookID, forKey: .bookID)
        try container.encode(reviewCount, forKey: .reviewCount)
        try container.encode(averageRating, forKey: .averageRating)
    }
}
