// BookStats: a book's review count and rating total, kept up to date by the
// review endpoints (an upsert that adds up); the `book_stats` table.

import Quarry

/// The number of reviews of a ``Book`` and the sum of their ratings, stored
/// in the `book_stats` table: one row per book that was ever reviewed,
/// deleted with the book (`ON DELETE CASCADE`).
///
/// The review endpoints change it in the transaction of each review write,
/// with ``add(_:_:)`` and ``remove(_:_:)``, so that it always equals
/// `COUNT(*)` and `SUM(rating)` over the book's reviews. `GET /books/:id/stats`
/// reads it as a ``BookStatsSummary``.
public struct BookStats: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    /// The book (`book.id`), also the primary key.
    public var bookID: Int64
    /// How many reviews the book has.
    public var reviewCount: Int
    /// The sum of their ratings.
    public var ratingTotal: Int

    /// Makes the stats of a book.
    public init(bookID: Int64, reviewCount: Int, ratingTotal: Int) {
        self.bookID = bookID
        self.reviewCount = reviewCount
        self.ratingTotal = ratingTotal
    }

    enum CodingKeys: String, CodingKey {
        case bookID = "book_id", reviewCount = "review_count", ratingTotal = "rating_total"
    }

    /// The table: `book_stats` (the default would be `bookStats`).
    public static let databaseTableName = "book_stats"

    /// Counts `review` in the stats of its book: one more review, its rating
    /// added. The first review of a book inserts the row; later ones add to
    /// it, in one statement:
    ///
    /// ```sql
    /// INSERT INTO "book_stats" ("book_id", "review_count", "rating_total") VALUES (?, ?, ?)
    /// ON CONFLICT ("book_id") DO UPDATE SET "review_count" = "review_count" + excluded."review_count",
    ///                                       "rating_total" = "rating_total" + excluded."rating_total"
    /// ```
    static func add(_ review: Review, _ db: Database) throws {
        try BookStats(bookID: review.bookID, reviewCount: 1, ratingTotal: review.rating)
            .upsert(db, onConflict: ["book_id"]) { excluded in
                [\.reviewCount += excluded[\.reviewCount], \.ratingTotal += excluded[\.ratingTotal]]
            }
    }

    /// Takes `review` (as it was stored) out of the stats of its book.
    static func remove(_ review: Review, _ db: Database) throws {
        try BookStats.filter(\.bookID == review.bookID)
            .updateAll(db, \.reviewCount -= 1, \.ratingTotal -= review.rating)
    }

    /// Moves the stats from `old` to `new`, two versions of one review: the
    /// rating difference when the book is the same, else out of the old
    /// book's stats and into the new one's.
    static func replace(_ old: Review, with new: Review, _ db: Database) throws {
        if old.bookID == new.bookID {
            guard new.rating != old.rating else { return }
            try BookStats.filter(\.bookID == new.bookID).updateAll(db, \.ratingTotal += new.rating - old.rating)
        } else {
            try remove(old, db)
            try add(new, db)
        }
    }
}
