// Tests of GET /books/:id/stats: the book_stats row that review writes keep
// up to date with an upsert, checked against COUNT(*) and AVG over `review`,
// on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Book stats endpoint")
struct BookStatsEndpointTests {
    /// `COUNT(*)` and `AVG(rating)` of the book's reviews, computed by the
    /// database from the `review` table, not from `book_stats` (the average
    /// cast to a double: PostgreSQL's `AVG` of integers is a `numeric`).
    static func reviewAggregates(_ database: any DatabaseWriter, bookID: Int64) async throws -> (count: Int, average: Double?) {
        try await database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), CAST(AVG(rating) AS DOUBLE PRECISION) FROM review WHERE book_id = ?", arguments: [bookID])
            guard let row else { return (0, nil) }
            let count: Int = try row[0]
            let average: Double? = try row[1]
            return (count, average)
        }
    }

    /// Requires `GET /books/:id/stats` to answer what `review` holds.
    static func expectStatsMatchReviews(
        _ client: any TestClientProtocol, _ database: any DatabaseWriter, bookID: Int64, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let response = try await client.send(.get, "/books/\(bookID)/stats")
        #expect(response.status == .ok, sourceLocation: sourceLocation)
        let stats = try response.decode(BookStatsSummary.self)
        let expected = try await reviewAggregates(database, bookID: bookID)
        #expect(stats.bookID == bookID, sourceLocation: sourceLocation)
        #expect(stats.reviewCount == expected.count, sourceLocation: sourceLocation)
        switch (stats.averageRating, expected.average) {
        case (nil, nil): break
        case let (got?, want?): #expect(abs(got - want) < 1e-9, "average \(got), AVG \(want)", sourceLocation: sourceLocation)
        case let (got, want): Issue.record("average \(String(describing: got)), AVG \(String(describing: want))", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: TestBackend.available)
    func statsFollowCreatesReplacesAndDeletes(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let first = try #require(try await client.createBook(authorID: author, title: "One", isbn: "1", published: 2000).id)
            let second = try #require(try await client.createBook(authorID: author, title: "Two", isbn: "2", published: 2001).id)

            var reviews: [Review] = []
            for (book, rating) in [(first, 5), (first, 3), (second, 2), (first, 4), (second, 5)] {
                reviews.append(try await client.createReview(bookID: book, reviewer: "r", rating: rating))
            }
            #expect(try await client.send(.get, "/books/\(first)/stats").decode(BookStatsSummary.self)
                == BookStatsSummary(bookID: first, reviewCount: 3, averageRating: 4))
            try await Self.expectStatsMatchReviews(client, database, bookID: first)
            try await Self.expectStatsMatchReviews(client, database, bookID: second)

            // A new rating, same book.
            let changed = try #require(reviews[1].id)
            #expect(try await client.send(.put, "/reviews/\(changed)", json: #"{"book_id": \#(first), "reviewer": "r", "rating": 1}"#).status == .ok)
            try await Self.expectStatsMatchReviews(client, database, bookID: first)
            // Moved to the other book, with a new rating.
            let moved = try #require(reviews[0].id)
            #expect(try await client.send(.put, "/reviews/\(moved)", json: #"{"book_id": \#(second), "reviewer": "r", "rating": 3}"#).status == .ok)
            try await Self.expectStatsMatchReviews(client, database, bookID: first)
            try await Self.expectStatsMatchReviews(client, database, bookID: second)
            // A replace that fails (unknown book) changes nothing.
            #expect(try await client.send(.put, "/reviews/\(moved)", json: #"{"book_id": 999, "reviewer": "r", "rating": 3}"#).status == .conflict)
            try await Self.expectStatsMatchReviews(client, database, bookID: second)
            // Deleted, one by one.
            let remaining = try await database.read { db in try Review.filter(\.bookID == first).fetchAll(db) }
            #expect(remaining.count == 2)
            for review in remaining {
                #expect(try await client.send(.delete, "/reviews/\(try #require(review.id))").status == .noContent)
                try await Self.expectStatsMatchReviews(client, database, bookID: first)
            }
            // No reviews left: count 0 and a null average, written out.
            let empty = try await client.send(.get, "/books/\(first)/stats")
            #expect(String(buffer: empty.body) == #"{"average_rating":null,"book_id":\#(first),"review_count":0}"#)
            try await Self.expectStatsMatchReviews(client, database, bookID: second)
            #expect(try await client.send(.get, "/books/\(second)/stats").decode(BookStatsSummary.self).reviewCount == 3)
        }
    }

    @Test(arguments: TestBackend.available)
    func aBookWithoutReviewsAndUnknownBooks(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "Unread", isbn: "u", published: 2000).id)
            #expect(try await client.send(.get, "/books/\(book)/stats").decode(BookStatsSummary.self)
                == BookStatsSummary(bookID: book, reviewCount: 0, averageRating: nil))
            #expect(try await database.read { db in try BookStats.fetchCount(db) } == 0)

            let missing = try await client.send(.get, "/books/999/stats")
            #expect(missing.status == .notFound)
            #expect(try missing.apiError().error.message == "no book with id 999")
            #expect(try await client.send(.get, "/books/x/stats").status == .badRequest)

            // Failed review writes leave no stats behind.
            #expect(try await client.send(.post, "/reviews", json: #"{"book_id": 999, "reviewer": "r", "rating": 3}"#).status == .conflict)
            #expect(try await client.send(.post, "/reviews", json: #"{"book_id": \#(book), "reviewer": "r", "rating": 9}"#).status == .unprocessableContent)
            #expect(try await database.read { db in try BookStats.fetchCount(db) } == 0)

            // Deleting the book deletes its stats (ON DELETE CASCADE).
            _ = try await client.createReview(bookID: book, reviewer: "r", rating: 4)
            #expect(try await database.read { db in try BookStats.fetchAll(db) } == [BookStats(bookID: book, reviewCount: 1, ratingTotal: 4)])
            #expect(try await client.send(.delete, "/books/\(book)").status == .noContent)
            #expect(try await database.read { db in try BookStats.fetchCount(db) } == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentReviewsAreAllCounted(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "Popular", isbn: "p", published: 2000).id)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { _ = try await client.createReview(bookID: book, reviewer: "r\(index)", rating: 1 + index % 5) }
                }
                try await group.waitForAll()
            }
            #expect(try await client.send(.get, "/books/\(book)/stats").decode(BookStatsSummary.self)
                == BookStatsSummary(bookID: book, reviewCount: 40, averageRating: 3))
            try await Self.expectStatsMatchReviews(client, database, bookID: book)
        }
    }

    @Test(arguments: TestBackend.available)
    func theMigrationCountsTheReviewsAlreadyStored(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            // A database of the schema before book_stats, with reviews.
            let old = try testDatabase.openUnmigrated()
            var migrator = makeBookshelfMigrator(backend: backend.backend)
            migrator.logger = quietLogger
            try await migrator.migrate(old, upTo: "createReview")
            let (first, second) = try await old.write { db -> (Int64, Int64) in
                let author = try Author(name: "A").insertAndFetch(db)
                let authorID = author.id ?? 0
                let first = try Book(authorID: authorID, title: "One", isbn: "1", published: 2000, priceCents: 1).insertAndFetch(db).id ?? 0
                let second = try Book(authorID: authorID, title: "Two", isbn: "2", published: 2000, priceCents: 1).insertAndFetch(db).id ?? 0
                _ = try Book(authorID: authorID, title: "Three", isbn: "3", published: 2000, priceCents: 1).insertAndFetch(db)
                for (book, rating) in [(first, 5), (first, 2), (second, 4)] {
                    try db.execute(sql: "INSERT INTO review (book_id, reviewer, rating) VALUES (?, 'r', ?)", arguments: [book, rating])
                }
                return (first, second)
            }
            old.close()

            let database = try await testDatabase.open().writer
            defer { database.close() }
            let stats = try await database.read { db in try BookStats.order(\.bookID).fetchAll(db) }
            #expect(stats == [BookStats(bookID: first, reviewCount: 2, ratingTotal: 7), BookStats(bookID: second, reviewCount: 1, ratingTotal: 4)])
            // The older reviews have no created_at.
            #expect(try await database.read { db in try Review.order(\.id).fetchAll(db).map(\.createdAt) } == [nil, nil, nil])
        }
    }
}
