// RatedBook: a book with its average rating and review count, for GET /books/top,
// decoded from `Book.annotated(with:)` (the book's columns plus two association
// aggregates).

/// One entry of the top-rated books: a book with its average rating and
/// number of reviews.
public struct RatedBook: Codable, Sendable, Equatable {
    /// The book.
    public var book: Book
    /// The average of its ratings.
    public var averageRating: Double
    /// How many reviews it has.
    public var reviewCount: Int

    enum CodingKeys: String, CodingKey {
        case book, averageRating = "average_rating", reviewCount = "review_count"
    }
}
