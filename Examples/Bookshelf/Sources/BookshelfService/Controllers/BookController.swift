// BookController: the /books endpoints (CRUD, filtered list, top-rated
// aggregate, bulk discount with UPDATE … RETURNING, review stats).

import Hummingbird
import Quarry

/// The `/books` routes.
struct BookController: Sendable {
    let database: any DatabaseWriter
    /// Picks the PostgreSQL variant of the queries that differ.
    let backend: DatabaseBackend

    static let sort = SortParameter<Book>(
        fields: [
            "id": (.asc(\.id), .desc(\.id)),
            "title": (.asc(\.title), .desc(\.title)),
            "published": (.asc(\.published), .desc(\.published)),
            "price": (.asc(\.priceCents), .desc(\.priceCents)),
        ],
        tiebreaker: .asc(\.id))

    /// The most entries `GET /books/top` returns.
    static let maximumTopLimit = 100

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get("top", use: topRated)
        group.post("discount", use: discount)
        group.get(":id", use: show)
        group.get(":id/stats", use: stats)
        group.put(":id", use: replace)
        group.delete(":id", use: delete)
    }

    /// Runs a write of `book`, turning constraint violations into 409s that
    /// say which constraint.
    private func writeBook(_ book: Book, _ body: @escaping @Sendable (Database) throws -> Book?) async throws -> Book? {
        do {
            return try await database.write(body)
        } catch let error as DatabaseError where error.isUniqueConstraintViolation {
            throw APIError.conflict("a book with ISBN '\(book.isbn)' already exists")
        } catch let error as DatabaseError where error.isForeignKeyViolation {
            throw APIError.conflict("no author with id \(book.authorID)")
        }
    }

    /// `POST /books` → 201 and the stored book; 409 for a duplicate ISBN or an unknown author.
    @Sendable func create(_ request: Request, context: BookshelfRequestContext) async throws -> EditedResponse<Book> {
        let book = try await request.decodeJSON(BookInput.self, context: context).record(id: nil)
        let stored = try await writeBook(book) { db in
            var book = book
            return try book.insertAndFetch(db)
        }
        guard let stored else { throw APIError(.internalServerError, "internal error") }
        return EditedResponse(status: .created, response: stored)
    }

    /// `GET /books?author_id=…&q=…&published_from=…&published_to=…&sort=…&page=…&per_page=…`.
    @Sendable func list(_ request: Request, context: BookshelfRequestContext) async throws -> Page<Book> {
        let page = try PageRequest(request: request)
        let orderings = try Self.sort.orderings(request.queryString("sort"))
        var filtered = Book.all()
        if let authorID = try request.queryID("author_id") {
            filtered = filtered.filter(\.authorID == authorID)
        }
        if let from = try request.queryInt("published_from", in: 0...3000) {
            filtered = filtered.filter(\.published >= from)
        }
        if let to = try request.queryInt("published_to", in: 0...3000) {
            filtered = filtered.filter(\.published <= to)
        }
        if let text = request.queryString("q"), !text.isEmpty {
            filtered = filtered.filter(backend.textContains(column: "title", text))
        }
        let query = filtered
        return try await database.read { db in
            let items = try query.order(orderings).limit(page.perPage, offset: page.offset).fetchAll(db)
            return Page(items: items, page: page.page, perPage: page.perPage, total: try query.fetchCount(db))
        }
    }

    /// `GET /books/top?limit=10&min_reviews=1`: the books with the best
    /// average rating (ties: more reviews first), with their review count.
    @Sendable func topRated(_ request: Request, context: BookshelfRequestContext) async throws -> ItemList<RatedBook> {
        let limit = try request.queryInt("limit", in: 1...Self.maximumTopLimit) ?? 10
        let minimumReviews = try request.queryInt("min_reviews", in: 1...1_000_000) ?? 1
        let items = try await database.read { [backend] db -> [RatedBook] in
            // The book's columns plus two association aggregates (correlated
            // subqueries on review), decoded straight into RatedBook.
            let averageRating = backend == .postgres ? Self.postgreSQLAverageRating : Book.reviews.average(\.rating)
            let reviewCount = Book.reviews.count
            return try Book
                .annotated(with: averageRating.forKey("average_rating"), reviewCount.forKey("review_count"))
                .filter(reviewCount >= minimumReviews)
                .order(.desc(averageRating), .desc(reviewCount), .asc(\.id))
                .limit(limit)
                .asRequest(of: RatedBook.self)
                .fetchAll(db)
        }
        return ItemList(items: items)
    }

    /// The average rating of a book on PostgreSQL, where `AVG` of integers is
    /// a `numeric` (read as text): the correlated subquery of
    /// `Book.reviews.average(\.rating)`, cast to a double.
    static let postgreSQLAverageRating = QueryExpression<Book, Double?>(sql: """
        CAST((SELECT AVG("review"."rating") FROM "review" WHERE "review"."book_id" = "book"."id") AS DOUBLE PRECISION)
        """)

    /// `POST /books/discount` with `{"author_id": 1, "percent": 10}`: lowers
    /// the price of all the author's books (rounding down to the cent) in one
    /// `UPDATE … RETURNING *`, and returns the updated books.
    @Sendable func discount(_ request: Request, context: BookshelfRequestContext) async throws -> BulkBooksResult {
        let input = try await request.decodeJSON(DiscountInput.self, context: context)
        let authorID = try Validate.id(input.authorID, field: "author_id")
        let percent = try Validate.int(input.percent, field: "percent", in: 1...99)
        let updated = try await database.write { db -> [Book]? in
            guard try Author.exists(db, key: authorID) else { return nil }
            let newPrice = QueryExpression<Book, Int>(\.priceCents) * (100 - percent) / 100
            return try Book.filter(\.authorID == authorID).updateAndFetchAll(db, \.priceCents <- newPrice)
        }
        guard let updated else { throw APIError.notFound("no author with id \(authorID)") }
        let books = updated.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        return BulkBooksResult(books: books, count: books.count)
    }

    /// `GET /books/:id`.
    @Sendable func show(_ request: Request, context: BookshelfRequestContext) async throws -> Book {
        let id = try context.pathID()
        let book = try await database.read { db in try Book.fetchOne(db, key: id) }
        guard let book else { throw APIError.notFound("no book with id \(id)") }
        return book
    }

    /// `GET /books/:id/stats`: the book's review count and average rating,
    /// read from its ``BookStats`` row (count 0 and a null average when it
    /// has none: no reviews yet).
    @Sendable func stats(_ request: Request, context: BookshelfRequestContext) async throws -> BookStatsSummary {
        let id = try context.pathID()
        let stats = try await database.read { db -> BookStats? in
            guard try Book.exists(db, key: id) else { return nil }
            return try BookStats.fetchOne(db, key: id) ?? BookStats(bookID: id, reviewCount: 0, ratingTotal: 0)
        }
        guard let stats else { throw APIError.notFound("no book with id \(id)") }
        return BookStatsSummary(stats)
    }

    /// `PUT /books/:id`: replaces the book.
    @Sendable func replace(_ request: Request, context: BookshelfRequestContext) async throws -> Book {
        let id = try context.pathID()
        let book = try await request.decodeJSON(BookInput.self, context: context).record(id: id)
        let stored = try await writeBook(book) { db in
            guard try Book.exists(db, key: id) else { return nil }
            return try book.updateAndFetch(db)
        }
        guard let stored else { throw APIError.notFound("no book with id \(id)") }
        return stored
    }

    /// `DELETE /books/:id` → 204 (its reviews go too).
    @Sendable func delete(_ request: Request, context: BookshelfRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.pathID()
        let deleted = try await database.write { db in try Book.deleteOne(db, key: id) }
        guard deleted else { throw APIError.notFound("no book with id \(id)") }
        return .noContent
    }
}
