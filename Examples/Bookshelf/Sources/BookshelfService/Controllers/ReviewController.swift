// ReviewController: the /reviews endpoints (CRUD, a filtered list, the daily
// report). Every review write also updates the book's BookStats, in the same
// transaction.

import Foundation
import Hummingbird
import Quarry

/// The `/reviews` routes.
struct ReviewController: Sendable {
    let database: any DatabaseWriter
    /// Picks the PostgreSQL variant of the queries that differ.
    let backend: DatabaseBackend

    static let sort = SortParameter<Review>(
        fields: ["id": (.asc(\.id), .desc(\.id)), "rating": (.asc(\.rating), .desc(\.rating))],
        tiebreaker: .asc(\.id))

    /// The most days `GET /reviews/daily` reports on.
    static let maximumReportDays = 366

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get("daily", use: daily)
        group.get(":id", use: show)
        group.put(":id", use: replace)
        group.delete(":id", use: delete)
    }

    /// Runs a write of `review`; a foreign key violation means its book is missing (409).
    private func writeReview(_ review: Review, _ body: @escaping @Sendable (Database) throws -> Review?) async throws -> Review? {
        do {
            return try await database.write(body)
        } catch let error as DatabaseError where error.isForeignKeyViolation {
            throw APIError.conflict("no book with id \(review.bookID)")
        }
    }

    /// The creation date of a new review: now, in whole seconds, so that
    /// the ISO 8601 JSON and the database hold the same instant.
    static func creationDate() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// `POST /reviews` → 201; 409 when the book does not exist. Sets
    /// `created_at`, and counts the review in the book's stats.
    @Sendable func create(_ request: Request, context: BookshelfRequestContext) async throws -> EditedResponse<Review> {
        let review = try await request.decodeJSON(ReviewInput.self, context: context).record(id: nil, createdAt: Self.creationDate())
        let stored = try await writeReview(review) { db in
            var review = review
            let stored = try review.insertAndFetch(db)
            try BookStats.add(stored, db)
            return stored
        }
        guard let stored else { throw APIError(.internalServerError, "internal error") }
        return EditedResponse(status: .created, response: stored)
    }

    /// `GET /reviews?book_id=…&min_rating=…&sort=…&page=…&per_page=…`.
    @Sendable func list(_ request: Request, context: BookshelfRequestContext) async throws -> Page<Review> {
        let page = try PageRequest(request: request)
        let orderings = try Self.sort.orderings(request.queryString("sort"))
        var filtered = Review.all()
        if let bookID = try request.queryID("book_id") {
            filtered = filtered.filter(\.bookID == bookID)
        }
        if let minimum = try request.queryInt("min_rating", in: 1...5) {
            filtered = filtered.filter(\.rating >= minimum)
        }
        let query = filtered
        return try await database.read { db in
            let items = try query.order(orderings).limit(page.perPage, offset: page.offset).fetchAll(db)
            return Page(items: items, page: page.page, perPage: page.perPage, total: try query.fetchCount(db))
        }
    }

    /// `GET /reviews/:id`.
    @Sendable func show(_ request: Request, context: BookshelfRequestContext) async throws -> Review {
        let id = try context.pathID()
        let review = try await database.read { db in try Review.fetchOne(db, key: id) }
        guard let review else { throw APIError.notFound("no review with id \(id)") }
        return review
    }

    /// `PUT /reviews/:id`: replaces the review, keeping its `created_at`,
    /// and moves it in the books' stats (a new rating, another book).
    @Sendable func replace(_ request: Request, context: BookshelfRequestContext) async throws -> Review {
        let id = try context.pathID()
        let review = try await request.decodeJSON(ReviewInput.self, context: context).record(id: id)
        let stored = try await writeReview(review) { db in
            guard let old = try Review.fetchOne(db, key: id) else { return nil }
            var review = review
            review.createdAt = old.createdAt
            let stored = try review.updateAndFetch(db)
            try BookStats.replace(old, with: stored, db)
            return stored
        }
        guard let stored else { throw APIError.notFound("no review with id \(id)") }
        return stored
    }

    /// `DELETE /reviews/:id` → 204; the review leaves its book's stats.
    @Sendable func delete(_ request: Request, context: BookshelfRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.pathID()
        let deleted = try await database.write { db -> Bool in
            // DELETE … RETURNING *: the rating and book the stats lose.
            guard let review = try Review.filter(\.id == id).deleteAndFetchAll(db).first else { return false }
            try BookStats.remove(review, db)
            return true
        }
        guard deleted else { throw APIError.notFound("no review with id \(id)") }
        return .noContent
    }

    /// `GET /reviews/daily?days=7`: the reviews of each of the last `days`
    /// days (today and the `days - 1` before, in UTC; 1–366, default 7), with
    /// their count and average rating, by day; days without reviews are left
    /// out, and so are reviews without `created_at`. One query, see
    /// ``dailyReportRequest(days:now:)``.
    @Sendable func daily(_ request: Request, context: BookshelfRequestContext) async throws -> ItemList<DailyReviewCount> {
        let days = try request.queryInt("days", in: 1...Self.maximumReportDays) ?? 7
        let now = Date()
        switch backend {
        case .sqlite:
            let report = Self.dailyReportRequest(days: days, now: now)
            return ItemList(items: try await database.read { db in try report.fetchAll(db) })
        case .postgres:
            let firstDay = Self.utcDay(now.addingTimeInterval(Double(1 - days) * 86_400))
            return ItemList(items: try await database.read { db in
                try DailyReviewCount.fetchAll(db, sql: Self.postgreSQLDailyReportSQL, arguments: [firstDay])
            })
        }
    }

    /// The reviews of each day from `days - 1` days before `now` to `now`
    /// (UTC dates), grouped with SQLite's date functions:
    ///
    /// ```sql
    /// SELECT date("created_at") AS "day", COUNT(*) AS "count", AVG("rating") AS "average_rating"
    /// FROM "review" WHERE date("created_at") >= date(?, ?)   -- now, '-6 days'
    /// GROUP BY date("created_at") ORDER BY date("created_at")
    /// ```
    ///
    /// `now` is bound as Quarry stores dates (`2026-11-25 14:03:00.000`, UTC).
    static func dailyReportRequest(days: Int, now: Date) -> QueryRequest<Review, DailyReviewCount> {
        let day = date(\Review.createdAt)
        let firstDay: QueryExpression<Review, String?> = date(now, .day(1 - days))
        return Review
            .filter(day >= firstDay)
            .select(named: [day.forKey("day"), countAll().forKey("count"), average(\Review.rating).forKey("average_rating")])
            .group(day)
            .order(day)
            .asRequest(of: DailyReviewCount.self)
    }

    /// The PostgreSQL variant of ``dailyReportRequest(days:now:)``, which has
    /// no `date()`: the day is `to_char` of `created_at` (UTC text, as on
    /// SQLite) read as a timestamp, and the average a double (`AVG` of
    /// integers is a `numeric`). One argument: the first day, `YYYY-MM-DD`.
    static let postgreSQLDailyReportSQL = """
        SELECT to_char(CAST("created_at" AS TIMESTAMP), 'YYYY-MM-DD') AS "day", COUNT(*) AS "count",
               CAST(AVG("rating") AS DOUBLE PRECISION) AS "average_rating"
        FROM "review" WHERE to_char(CAST("created_at" AS TIMESTAMP), 'YYYY-MM-DD') >= ?
        GROUP BY 1 ORDER BY 1
        """

    /// The UTC day of `date`, `YYYY-MM-DD`.
    static func utcDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
