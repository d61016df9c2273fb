// Tests of review timestamps (created_at) and GET /reviews/daily, the
// date-bucket report, compared with a hand-written SQL query; on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Daily reviews endpoint")
struct DailyReviewsEndpointTests {
    /// What `GET /reviews/daily` answers.
    struct Report: Decodable {
        var items: [DailyReviewCount]
    }

    /// The report computed by hand: SQLite's own `date()` over `review.created_at`,
    /// today (UTC) and the `days - 1` days before. On PostgreSQL, written
    /// otherwise than the service's variant: the first ten characters of the
    /// text, against the server's UTC date minus `days - 1`.
    static func expectedReport(_ database: any DatabaseWriter, _ backend: TestBackend, days: Int) async throws -> [DailyReviewCount] {
        try await database.read { db in
            let rows = switch backend {
            case .sqlite:
                try Row.fetchAll(db, sql: """
                    SELECT date(created_at) AS day, COUNT(*) AS n, AVG(rating) AS average
                    FROM review
                    WHERE created_at IS NOT NULL AND date(created_at) >= date('now', ?)
                    GROUP BY date(created_at)
                    ORDER BY day
                    """, arguments: ["-\(days - 1) days"])
            case .postgres:
                try Row.fetchAll(db, sql: """
                    SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS n, CAST(AVG(rating) AS DOUBLE PRECISION) AS average
                    FROM review
                    WHERE created_at IS NOT NULL
                      AND CAST(substr(created_at, 1, 10) AS DATE) >= CAST(now() AT TIME ZONE 'UTC' AS DATE) - CAST(? AS INTEGER)
                    GROUP BY substr(created_at, 1, 10)
                    ORDER BY day
                    """, arguments: [days - 1])
            }
            return try rows.map { DailyReviewCount(day: try $0["day"], count: try $0["n"], averageRating: try $0["average"]) }
        }
    }

    @Test(arguments: TestBackend.available)
    func createdAtIsSetOnCreateAndKeptOnReplace(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "T", isbn: "i", published: 2000).id)
            let before = Date()
            let review = try await client.createReview(bookID: book, reviewer: "Ann", rating: 4)
            let id = try #require(review.id)
            let createdAt = try #require(review.createdAt)
            #expect(createdAt >= before.addingTimeInterval(-1) && createdAt <= Date())
            // Whole seconds, so that the JSON (ISO 8601) and the database hold the same instant.
            #expect(createdAt.timeIntervalSince1970 == createdAt.timeIntervalSince1970.rounded(.down))
            #expect(try await database.read { db in try Review.fetchOne(db, key: id) } == review)
            let stored = try await database.read { db in try String.fetchOne(db, sql: "SELECT created_at FROM review WHERE id = ?", arguments: [id]) }
            #expect(stored?.hasPrefix(createdAt.formatted(.iso8601.year().month().day().dateSeparator(.dash))) == true)

            let object = try #require(try JSONSerialization.jsonObject(with: Data(try await client.send(.get, "/reviews/\(id)").body.readableBytesView)) as? [String: Any])
            let text = try #require(object["created_at"] as? String)
            #expect(text.hasSuffix("Z") && text.contains("T"))

            // A replace keeps the creation time (clients do not send it).
            let replaced = try await client.send(.put, "/reviews/\(id)", json: #"{"book_id": \#(book), "reviewer": "Ann", "rating": 2}"#)
            #expect(try replaced.decode(Review.self).createdAt == createdAt)
            #expect(try await database.read { db in try Review.fetchOne(db, key: id)?.createdAt } == createdAt)

            // A review without a timestamp (older than the column) leaves the key out.
            let old = try await database.write { db in try Review(bookID: book, reviewer: "Old", rating: 3).insertAndFetch(db) }
            let oldJSON = String(buffer: try await client.send(.get, "/reviews/\(try #require(old.id))").body)
            #expect(!oldJSON.contains("created_at"))
        }
    }

    /// Waits until midnight UTC has passed when it is a few seconds away, so
    /// that the service's `Date()`, SQLite's `'now'` and the test's dates
    /// fall on the same day.
    static func awayFromMidnight() async throws {
        let secondsToMidnight = 86_400 - Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        if secondsToMidnight < 10 { try await Task.sleep(for: .seconds(secondsToMidnight + 1)) }
    }

    @Test(arguments: TestBackend.available)
    func dailyReportMatchesHandWrittenSQL(backend: TestBackend) async throws {
        try await Self.awayFromMidnight()
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "T", isbn: "i", published: 2000).id)
            // Two reviews today through the API, older ones written directly.
            _ = try await client.createReview(bookID: book, reviewer: "today", rating: 5)
            _ = try await client.createReview(bookID: book, reviewer: "today", rating: 2)
            let now = Date()
            let day: TimeInterval = 86_400
            let older: [(daysAgo: Double, rating: Int)] = [(1, 4), (1, 5), (1, 3), (2, 1), (6, 4), (7, 5), (30, 2)]
            try await database.write { db in
                for (daysAgo, rating) in older {
                    try Review(bookID: book, reviewer: "past", rating: rating, createdAt: now.addingTimeInterval(-daysAgo * day)).insert(db)
                }
                try Review(bookID: book, reviewer: "undated", rating: 1).insert(db)
            }

            let week = try await client.send(.get, "/reviews/daily?days=7")
            #expect(week.status == .ok)
            let report = try week.decode(Report.self).items
            #expect(report == (try await Self.expectedReport(database, backend, days: 7)))
            // Today, yesterday, two days ago and six days ago; not 7 or 30 days ago, nor undated.
            #expect(report.map(\.count) == [1, 1, 3, 2])
            #expect(report.last?.averageRating == 3.5)
            #expect(report[2].averageRating == 4)
            let formatter = Date.ISO8601FormatStyle().year().month().day().dateSeparator(.dash)
            #expect(report.map(\.day) == [6, 2, 1, 0].map { now.addingTimeInterval(-Double($0) * day).formatted(formatter) })

            #expect(try await client.send(.get, "/reviews/daily").decode(Report.self).items == report)
            #expect(try await client.send(.get, "/reviews/daily?days=1").decode(Report.self).items == (try await Self.expectedReport(database, backend, days: 1)))
            let month = try await client.send(.get, "/reviews/daily?days=31").decode(Report.self).items
            #expect(month == (try await Self.expectedReport(database, backend, days: 31)))
            #expect(month.map(\.count).reduce(0, +) == 9)

            let object = try #require(try JSONSerialization.jsonObject(with: Data(week.body.readableBytesView)) as? [String: Any])
            let first = try #require((object["items"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["day", "count", "average_rating"])
        }
    }

    @Test(arguments: TestBackend.available)
    func badDaysAreRefused(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            #expect(try await client.send(.get, "/reviews/daily").decode(Report.self).items.isEmpty)
            for days in ["0", "-1", "367", "week"] {
                let response = try await client.send(.get, "/reviews/daily?days=\(days)")
                #expect(response.status == .badRequest)
                #expect(try response.apiError().error.message == "query parameter `days` must be an integer from 1 to 366, got '\(days)'")
            }
        }
    }
}
