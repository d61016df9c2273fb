// DailyReviewCount: one day of the GET /reviews/daily report.

import Quarry

/// The reviews written on one day (UTC): how many, and their average rating.
/// `{"average_rating": 4, "count": 3, "day": "2026-11-25"}`.
public struct DailyReviewCount: Codable, Sendable, Equatable, FetchableRecord {
    /// The day, `YYYY-MM-DD` (SQLite's `date()` of `review.created_at`).
    public var day: String
    /// How many reviews were written that day.
    public var count: Int
    /// The average of their ratings.
    public var averageRating: Double

    /// Makes a day of the report.
    public init(day: String, count: Int, averageRating: Double) {
        self.day = day
        self.count = count
        self.averageRating = averageRating
    }

    enum CodingKeys: String, CodingKey {
        case day, count, averageRating = "average_rating"
    }
}
