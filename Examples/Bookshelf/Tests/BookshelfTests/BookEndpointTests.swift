// Tests of the /books endpoints: CRUD, filtered/sorted/paged lists, the
// top-rated aggregate, the bulk discount (UPDATE … RETURNING) and their errors;
// on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Books endpoints")
struct BookEndpointTests {
    @Test(arguments: TestBackend.available)
    func createReadUpdateDelete(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let authorID = try #require(try await client.createAuthor("Octavia Butler").id)
            let book = try await client.createBook(authorID: authorID, title: "Kindred", isbn: "978-0807083697", published: 1979, priceCents: 1599)
            let id = try #require(book.id)
            #expect(book == Book(id: id, authorID: authorID, title: "Kindred", isbn: "978-0807083697", published: 1979, priceCents: 1599))

            let read = try await client.send(.get, "/books/\(id)")
            #expect(read.status == .ok)
            #expect(try read.decode(Book.self) == book)
            // The JSON keys are the documented snake_case ones.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(read.body.readableBytesView)) as? [String: Any])
            #expect(Set(object.keys) == ["id", "author_id", "title", "isbn", "published", "price_cents"])

            let json = #"{"author_id": \#(authorID), "title": "Kindred (25th)", "isbn": "978-0807083697", "published": 2004, "price_cents": 1799}"#
            let updated = try await client.send(.put, "/books/\(id)", json: json)
            #expect(updated.status == .ok)
            #expect(try updated.decode(Book.self).published == 2004)
            #expect(try await database.read { db in try Book.fetchOne(db, key: id)?.title } == "Kindred (25th)")

            #expect(try await client.send(.delete, "/books/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/books/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/books/\(id)").status == .notFound)
            #expect(try await client.send(.put, "/books/\(id)", json: json).status == .notFound)
            #expect(try await client.send(.get, "/books/x1").status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func duplicateISBNAndUnknownAuthorConflict(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let authorID = try #require(try await client.createAuthor("A").id)
            let first = try await client.createBook(authorID: authorID, title: "First", isbn: "dup", published: 2000)
            let second = try await client.createBook(authorID: authorID, title: "Second", isbn: "other", published: 2001)

            let duplicate = try await client.send(.post, "/books", json: #"{"author_id": \#(authorID), "title": "Copy", "isbn": "dup", "published": 2002, "price_cents": 1}"#)
            #expect(duplicate.status == .conflict)
            let message = try duplicate.apiError().error.message
            #expect(message == "a book with ISBN 'dup' already exists")
            #expect(!message.contains("INSERT") && !message.contains("UNIQUE"))

            let renamed = try await client.send(.put, "/books/\(try #require(second.id))", json: #"{"author_id": \#(authorID), "title": "Second", "isbn": "dup", "published": 2001, "price_cents": 1}"#)
            #expect(renamed.status == .conflict)

            let orphan = try await client.send(.post, "/books", json: #"{"author_id": 999, "title": "Orphan", "isbn": "o", "published": 2002, "price_cents": 1}"#)
            #expect(orphan.status == .conflict)
            #expect(try orphan.apiError().error.message == "no author with id 999")

            let stored = try await database.read { db in try Book.order(\.id).fetchAll(db) }
            #expect(stored == [first, second])
        }
    }

    @Test(arguments: TestBackend.available)
    func listFiltersSortsAndPages(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let a = try #require(try await client.createAuthor("A").id)
            let b = try #require(try await client.createAuthor("B").id)
            var byA: [Book] = []
            for (index, year) in [1990, 2010, 2000, 2020, 1980].enumerated() {
                byA.append(try await client.createBook(authorID: a, title: "A book \(index)", isbn: "a-\(index)", published: year, priceCents: 100 * (5 - index)))
            }
            _ = try await client.createBook(authorID: b, title: "B book", isbn: "b-0", published: 2015)

            let newest = try await client.send(.get, "/books?author_id=\(a)&sort=-published&page=1&per_page=2").decode(Page<Book>.self)
            #expect(newest.items.map(\.published) == [2020, 2010])
            #expect(newest.total == 5)
            let next = try await client.send(.get, "/books?author_id=\(a)&sort=-published&page=2&per_page=2").decode(Page<Book>.self)
            #expect(next.items.map(\.published) == [2000, 1990])
            let last = try await client.send(.get, "/books?author_id=\(a)&sort=-published&page=3&per_page=2").decode(Page<Book>.self)
            #expect(last.items.map(\.published) == [1980])

            let cheapest = try await client.send(.get, "/books?sort=price&per_page=1").decode(Page<Book>.self)
            #expect(cheapest.items.first?.isbn == "a-4")
            #expect(cheapest.total == 6)

            let range = try await client.send(.get, "/books?published_from=1990&published_to=2010&sort=published").decode(Page<Book>.self)
            #expect(range.items.map(\.published) == [1990, 2000, 2010])
            let search = try await client.send(.get, "/books?q=B%20book").decode(Page<Book>.self)
            #expect(search.items.map(\.isbn) == ["b-0"])
            let byTitle = try await client.send(.get, "/books?author_id=\(a)&sort=-title").decode(Page<Book>.self)
            #expect(byTitle.items == byA.reversed())
            let nobody = try await client.send(.get, "/books?author_id=999").decode(Page<Book>.self)
            #expect(nobody.items.isEmpty && nobody.total == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func badListParametersAre400(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let cases = [
                "/books?per_page=\(PageRequest.maximumPerPage + 1)", "/books?per_page=0", "/books?per_page=ten",
                "/books?page=0", "/books?page=-1", "/books?page=2.5", "/books?sort=isbn", "/books?sort=-",
                "/books?author_id=abc", "/books?author_id=0", "/books?published_from=x",
                "/books/top?limit=\(101)", "/books/top?min_reviews=0", "/reviews?min_rating=6", "/authors?sort=bio",
            ]
            for uri in cases {
                let response = try await client.send(.get, uri)
                #expect(response.status == .badRequest, "\(uri)")
                _ = try response.apiError()
            }
            let tooMany = try await client.send(.get, "/books?per_page=101")
            #expect(try tooMany.apiError().error.message.contains("from 1 to 100"))
        }
    }

    @Test(arguments: TestBackend.available)
    func topRatedAggregatesAverageAndCount(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let author = try #require(try await client.createAuthor("A").id)
            let good = try #require(try await client.createBook(authorID: author, title: "Good", isbn: "g", published: 2000).id)
            let great = try #require(try await client.createBook(authorID: author, title: "Great", isbn: "gr", published: 2001).id)
            let tied = try #require(try await client.createBook(authorID: author, title: "Tied", isbn: "t", published: 2002).id)
            _ = try await client.createBook(authorID: author, title: "Unreviewed", isbn: "u", published: 2003)
            for rating in [4, 3, 5] { _ = try await client.createReview(bookID: good, reviewer: "r", rating: rating) }
            for rating in [5, 5] { _ = try await client.createReview(bookID: great, reviewer: "r", rating: rating) }
            for rating in [4] { _ = try await client.createReview(bookID: tied, reviewer: "r", rating: rating) }

            let response = try await client.send(.get, "/books/top")
            #expect(response.status == .ok)
            struct Top: Decodable { var items: [RatedBook] }
            let top = try response.decode(Top.self).items
            #expect(top.map(\.book.title) == ["Great", "Good", "Tied"])  // 5.0; 4.0 with 3 reviews; 4.0 with 1
            #expect(top.map(\.averageRating) == [5.0, 4.0, 4.0])
            #expect(top.map(\.reviewCount) == [2, 3, 1])

            let popular = try await client.send(.get, "/books/top?min_reviews=2&limit=1").decode(Top.self).items
            #expect(popular.map(\.book.title) == ["Great"])
            let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            let first = try #require((object?["items"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["book", "average_rating", "review_count"])
        }
    }

    @Test(arguments: TestBackend.available)
    func discountUpdatesAndReturnsTheAuthorsBooks(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let other = try #require(try await client.createAuthor("B").id)
            let one = try await client.createBook(authorID: author, title: "One", isbn: "1", published: 2000, priceCents: 1000)
            let two = try await client.createBook(authorID: author, title: "Two", isbn: "2", published: 2001, priceCents: 1999)
            let untouched = try await client.createBook(authorID: other, title: "Three", isbn: "3", published: 2002, priceCents: 500)

            let response = try await client.send(.post, "/books/discount", json: #"{"author_id": \#(author), "percent": 10}"#)
            #expect(response.status == .ok)
            struct Bulk: Decodable { var books: [Book]; var count: Int }
            let result = try response.decode(Bulk.self)
            #expect(result.count == 2)
            #expect(result.books.map(\.id) == [one.id, two.id])
            #expect(result.books.map(\.priceCents) == [900, 1799])  // 1999 * 90 / 100 = 1799 (rounded down)
            let stored = try await database.read { db in try Book.order(\.id).fetchAll(db) }
            #expect(stored.map(\.priceCents) == [900, 1799, 500])
            #expect(stored.last == untouched)

            let unknown = try await client.send(.post, "/books/discount", json: #"{"author_id": 999, "percent": 10}"#)
            #expect(unknown.status == .notFound)
            for percent in [0, 100, -5] {
                let bad = try await client.send(.post, "/books/discount", json: #"{"author_id": \#(author), "percent": \#(percent)}"#)
                #expect(bad.status == .unprocessableContent, "percent \(percent)")
            }
            let noBooks = try #require(try await client.createAuthor("C").id)
            let empty = try await client.send(.post, "/books/discount", json: #"{"author_id": \#(noBooks), "percent": 10}"#).decode(Bulk.self)
            #expect(empty.books.isEmpty && empty.count == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func invalidBookBodies(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let cases: [(String, String)] = [
                (#"{"author_id": \#(author), "title": "T", "isbn": "i", "published": "1999", "price_cents": 1}"#, "field `published` must be an integer"),
                (#"{"author_id": \#(author), "title": "T", "isbn": "i", "published": 1999}"#, "missing field `price_cents`"),
                (#"{"author_id": \#(author), "title": null, "isbn": "i", "published": 1999, "price_cents": 1}"#, "field `title` must not be null"),
                (#"{"author_id": \#(author), "title": "T", "isbn": "i", "published": 1999, "price_cents": -1}"#, "`price_cents` must be from 0 to 100000000, got -1"),
                (#"{"author_id": \#(author), "title": "T", "isbn": "", "published": 1999, "price_cents": 1}"#, "`isbn` must not be empty"),
                (#"{"author_id": "one", "title": "T", "isbn": "i", "published": 1999, "price_cents": 1}"#, "field `author_id` must be an integer"),
                (#"{"author_id": \#(author), "title": "T", "isbn": "i", "published": 1999.5, "price_cents": 1}"#, "a number in the request body does not fit its field (a fraction or an out-of-range integer)"),
                (#"{"author_id": \#(author), "title": "T", "isbn": "i", "published": 1999, "price_cents": 99999999999999999999999}"#, "a number in the request body does not fit its field (a fraction or an out-of-range integer)"),
                (#"[1, 2]"#, "field `(body)` must be an object"),
            ]
            for (json, message) in cases {
                let response = try await client.send(.post, "/books", json: json)
                #expect(response.status == .unprocessableContent, "\(json) \(String(buffer: response.body))")
                #expect(try response.apiError().error.message == message, "\(json)")
            }
            #expect(try await database.read { db in try Book.fetchCount(db) } == 0)
        }
    }
}
