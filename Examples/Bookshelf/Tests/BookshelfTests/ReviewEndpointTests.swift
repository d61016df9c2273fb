// Tests of the /reviews endpoints: CRUD, list filters, rating bounds and
// reviews of missing books, on each backend (TestBackend.available).

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Reviews endpoints")
struct ReviewEndpointTests {
    @Test(arguments: TestBackend.available)
    func createReadUpdateDelete(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "T", isbn: "i", published: 2000).id)
            let review = try await client.createReview(bookID: book, reviewer: "Ann", rating: 4, comment: "Good")
            let id = try #require(review.id)
            let createdAt = try #require(review.createdAt)
            #expect(review == Review(id: id, bookID: book, reviewer: "Ann", rating: 4, comment: "Good", createdAt: createdAt))
            #expect(try await client.send(.get, "/reviews/\(id)").decode(Review.self) == review)

            let updated = try await client.send(.put, "/reviews/\(id)", json: #"{"book_id": \#(book), "reviewer": "Ann", "rating": 5}"#)
            #expect(updated.status == .ok)
            #expect(try updated.decode(Review.self) == Review(id: id, bookID: book, reviewer: "Ann", rating: 5, comment: nil, createdAt: createdAt))
            #expect(try await database.read { db in try Review.fetchOne(db, key: id)?.rating } == 5)

            #expect(try await client.send(.delete, "/reviews/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/reviews/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/reviews/\(id)").status == .notFound)
            #expect(try await client.send(.put, "/reviews/\(id)", json: #"{"book_id": \#(book), "reviewer": "A", "rating": 1}"#).status == .notFound)
            #expect(try await client.send(.get, "/reviews/one").status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func reviewOfAMissingBookConflicts(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let response = try await client.send(.post, "/reviews", json: #"{"book_id": 42, "reviewer": "Ann", "rating": 3}"#)
            #expect(response.status == .conflict)
            #expect(try response.apiError().error.message == "no book with id 42")
            #expect(try await database.read { db in try Review.fetchCount(db) } == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func ratingsOutsideOneToFiveAreRefused(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let book = try #require(try await client.createBook(authorID: author, title: "T", isbn: "i", published: 2000).id)
            for rating in [0, 6, -1] {
                let response = try await client.send(.post, "/reviews", json: #"{"book_id": \#(book), "reviewer": "Ann", "rating": \#(rating)}"#)
                #expect(response.status == .unprocessableContent)
                #expect(try response.apiError().error.message == "`rating` must be from 1 to 5, got \(rating)")
            }
            #expect(try await database.read { db in try Review.fetchCount(db) } == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func listFiltersAndSorts(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let author = try #require(try await client.createAuthor("A").id)
            let first = try #require(try await client.createBook(authorID: author, title: "One", isbn: "1", published: 2000).id)
            let second = try #require(try await client.createBook(authorID: author, title: "Two", isbn: "2", published: 2001).id)
            for (book, rating) in [(first, 2), (first, 5), (second, 4), (first, 3), (second, 1)] {
                _ = try await client.createReview(bookID: book, reviewer: "r\(rating)", rating: rating)
            }
            let best = try await client.send(.get, "/reviews?book_id=\(first)&sort=-rating").decode(Page<Review>.self)
            #expect(best.items.map(\.rating) == [5, 3, 2])
            #expect(best.total == 3)
            let high = try await client.send(.get, "/reviews?min_rating=4&sort=rating").decode(Page<Review>.self)
            #expect(high.items.map(\.rating) == [4, 5])
            let paged = try await client.send(.get, "/reviews?sort=id&page=2&per_page=2").decode(Page<Review>.self)
            #expect(paged.items.map(\.reviewer) == ["r4", "r3"])
            #expect(paged.total == 5)
        }
    }
}
