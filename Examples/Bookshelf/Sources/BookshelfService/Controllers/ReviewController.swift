// ReviewController: the /reviews endpoints (CRUD and a filtered list).

import Hummingbird
import Quarry

/// The `/reviews` routes.
struct ReviewController: Sendable {
    let database: DatabasePool

    static let sort = SortParameter<Review>(
        fields: ["id": (.asc(\.id), .desc(\.id)), "rating": (.asc(\.rating), .desc(\.rating))],
        tiebreaker: .asc(\.id))

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.post(use: create)
        group.get(use: list)
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

    /// `POST /reviews` → 201; 409 when the book does not exist.
    @Sendable func create(_ request: Request, context: BookshelfRequestContext) async throws -> EditedResponse<Review> {
        let review = try await request.decodeJSON(ReviewInput.self, context: context).record(id: nil)
        let stored = try await writeReview(review) { db in
            var review = review
            return try review.insertAndFetch(db)
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

    /// `PUT /reviews/:id`: replaces the review.
    @Sendable func replace(_ request: Request, context: BookshelfRequestContext) async throws -> Review {
        let id = try context.pathID()
        let review = try await request.decodeJSON(ReviewInput.self, context: context).record(id: id)
        let stored = try await writeReview(review) { db in
            guard try Review.exists(db, key: id) else { return nil }
            return try review.updateAndFetch(db)
        }
        guard let stored else { throw APIError.notFound("no review with id \(id)") }
        return stored
    }

    /// `DELETE /reviews/:id` → 204.
    @Sendable func delete(_ request: Request, context: BookshelfRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.pathID()
        let deleted = try await database.write { db in try Review.deleteOne(db, key: id) }
        guard deleted else { throw APIError.notFound("no review with id \(id)") }
        return .noContent
    }
}
