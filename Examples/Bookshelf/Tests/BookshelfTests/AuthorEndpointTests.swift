// Tests of the /authors endpoints: CRUD, list filters and paging, eager
// loading of books, bulk delete with RETURNING, and their error statuses; on
// each backend (TestBackend.available).

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Authors endpoints")
struct AuthorEndpointTests {
    @Test(arguments: TestBackend.available)
    func createReadUpdateDelete(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let created = try await client.createAuthor("  Ursula K. Le Guin ", bio: "Earthsea")
            let id = try #require(created.id)
            #expect(created.name == "Ursula K. Le Guin")  // trimmed
            #expect(created.bio == "Earthsea")

            let read = try await client.send(.get, "/authors/\(id)")
            #expect(read.status == .ok)
            #expect(try read.decode(Author.self) == created)

            let updated = try await client.send(.put, "/authors/\(id)", json: #"{"name": "Ursula Le Guin"}"#)
            #expect(updated.status == .ok)
            #expect(try updated.decode(Author.self) == Author(id: id, name: "Ursula Le Guin", bio: nil))
            let stored = try await database.read { db in try Author.fetchOne(db, key: id) }
            #expect(stored?.name == "Ursula Le Guin")

            let deleted = try await client.send(.delete, "/authors/\(id)")
            #expect(deleted.status == .noContent)
            let gone = try await client.send(.get, "/authors/\(id)")
            #expect(gone.status == .notFound)
            #expect(try gone.apiError().error.message == "no author with id \(id)")
        }
    }

    @Test(arguments: TestBackend.available)
    func unknownAndMalformedIDs(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            for (method, uri) in [(HTTPRequest.Method.get, "/authors/999"), (.delete, "/authors/999"), (.delete, "/authors/999/books")] {
                let response = try await client.send(method, uri)
                #expect(response.status == .notFound, "\(method) \(uri)")
                _ = try response.apiError()
            }
            let put = try await client.send(.put, "/authors/999", json: #"{"name": "Nobody"}"#)
            #expect(put.status == .notFound)
            for uri in ["/authors/abc", "/authors/0", "/authors/-3", "/authors/1.5", "/authors/99999999999999999999"] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(try response.apiError().error.message.contains("positive integer id"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func listFiltersSortsAndPages(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            for name in ["Carol", "alice", "Bob", "Dave", "Alan"] {
                _ = try await client.createAuthor(name)
            }
            let sorted = try await client.send(.get, "/authors?sort=-name")
            #expect(sorted.status == .ok)
            let page = try sorted.decode(Page<Author>.self)
            #expect(page.items.map(\.name) == ["alice", "Dave", "Carol", "Bob", "Alan"])  // BINARY collation
            #expect(page.total == 5 && page.page == 1 && page.perPage == 20)

            let second = try await client.send(.get, "/authors?sort=name&page=2&per_page=2")
            let secondPage = try second.decode(Page<Author>.self)
            #expect(secondPage.items.map(\.name) == ["Carol", "Dave"])
            #expect(secondPage.total == 5 && secondPage.page == 2 && secondPage.perPage == 2)

            let beyond = try await client.send(.get, "/authors?page=4&per_page=2").decode(Page<Author>.self)
            #expect(beyond.items.isEmpty && beyond.total == 5)

            let filtered = try await client.send(.get, "/authors?name=a&sort=id").decode(Page<Author>.self)
            #expect(filtered.items.map(\.name) == ["Carol", "alice", "Dave", "Alan"])  // case-sensitive "a"
            #expect(filtered.total == 4)

            let maximum = try await client.send(.get, "/authors?per_page=\(PageRequest.maximumPerPage)")
            #expect(maximum.status == .ok)
        }
    }

    @Test(arguments: TestBackend.available)
    func includeBooksLoadsThemEagerly(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let author = try await client.createAuthor("Iain Banks")
            let other = try await client.createAuthor("Someone Else")
            let authorID = try #require(author.id)
            let late = try await client.createBook(authorID: authorID, title: "Excession", isbn: "isbn-2", published: 1996)
            let early = try await client.createBook(authorID: authorID, title: "Consider Phlebas", isbn: "isbn-1", published: 1987)
            _ = try await client.createBook(authorID: try #require(other.id), title: "Other", isbn: "isbn-3", published: 2000)

            let response = try await client.send(.get, "/authors/\(authorID)?include=books")
            #expect(response.status == .ok)
            let loaded = try response.decode(AuthorWithBooks.self)
            #expect(loaded.author == author)
            #expect(loaded.books == [early, late])  // ordered by year

            let lonely = try await client.createAuthor("No Books Yet")
            let empty = try await client.send(.get, "/authors/\(try #require(lonely.id))?include=books").decode(AuthorWithBooks.self)
            #expect(empty.books.isEmpty)

            let missing = try await client.send(.get, "/authors/999?include=books")
            #expect(missing.status == .notFound)
            let bad = try await client.send(.get, "/authors/\(authorID)?include=reviews")
            #expect(bad.status == .badRequest)
            #expect(try bad.apiError().error.message.contains("reviews"))
        }
    }

    @Test(arguments: TestBackend.available)
    func deletingAnAuthorWithBooksConflictsUntilTheBulkDelete(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try await client.createAuthor("Prolific")
            let authorID = try #require(author.id)
            let first = try await client.createBook(authorID: authorID, title: "One", isbn: "p-1", published: 2001)
            let second = try await client.createBook(authorID: authorID, title: "Two", isbn: "p-2", published: 2002)
            let kept = try await client.createBook(authorID: try #require(try await client.createAuthor("Other").id), title: "Kept", isbn: "k-1", published: 2003)
            _ = try await client.createReview(bookID: try #require(first.id), reviewer: "r", rating: 4)
            _ = try await client.createReview(bookID: try #require(kept.id), reviewer: "r", rating: 2)

            let refused = try await client.send(.delete, "/authors/\(authorID)")
            #expect(refused.status == .conflict)
            #expect(try refused.apiError().error.message.contains("still has 2 book"))

            let bulk = try await client.send(.delete, "/authors/\(authorID)/books")
            #expect(bulk.status == .ok)
            struct Bulk: Decodable { var books: [Book]; var count: Int }
            let result = try bulk.decode(Bulk.self)
            #expect(result.books == [first, second])
            #expect(result.count == 2)
            let (books, reviews) = try await database.read { db in (try Book.fetchAll(db), try Review.fetchAll(db)) }
            #expect(books == [kept])
            #expect(reviews.map(\.bookID) == [kept.id])  // the cascade removed the first book's review

            let deleted = try await client.send(.delete, "/authors/\(authorID)")
            #expect(deleted.status == .noContent)
        }
    }

    @Test(arguments: TestBackend.available)
    func invalidAuthorBodies(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let empty = try await client.send(.post, "/authors", json: #"{"name": "   "}"#)
            #expect(empty.status == .unprocessableContent)
            #expect(try empty.apiError().error.message == "`name` must not be empty")
            let long = try await client.send(.post, "/authors", body: ["name": String(repeating: "x", count: 201)])
            #expect(long.status == .unprocessableContent)
            let wrongType = try await client.send(.post, "/authors", json: #"{"name": 42}"#)
            #expect(wrongType.status == .unprocessableContent)
            #expect(try wrongType.apiError().error.message == "field `name` must be a string")
            #expect(try await database.read { db in try Author.fetchCount(db) } == 0)
        }
    }
}
