// Tests of POST /books/import: a bulk import with insertAll, all or nothing,
// on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Book import endpoint")
struct BookImportEndpointTests {
    /// One book of an import body.
    struct Entry: Encodable {
        var authorID: Int64
        var title: String
        var isbn: String
        var published = 2000
        var priceCents = 1000

        enum CodingKeys: String, CodingKey {
            case authorID = "author_id", title, isbn, published, priceCents = "price_cents"
        }
    }

    /// The body of `POST /books/import`.
    struct Body: Encodable {
        var books: [Entry]
    }

    /// What `POST /books/import` answers.
    struct Imported: Decodable {
        var books: [Book]
        var count: Int
    }

    @Test(arguments: TestBackend.available)
    func importsTwoHundredFiftyBooksInOrder(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let first = try #require(try await client.createAuthor("First").id)
            let second = try #require(try await client.createAuthor("Second").id)
            let existing = try await client.createBook(authorID: first, title: "Before", isbn: "before", published: 1999)
            let entries = (0..<250).map { index in
                Entry(authorID: index % 3 == 0 ? second : first, title: "Book \(index) — “quoted”", isbn: "isbn-\(index)", published: 1900 + index, priceCents: index * 10)
            }
            let response = try await client.send(.post, "/books/import", body: Body(books: entries))
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let imported = try response.decode(Imported.self)
            #expect(imported.count == 250)
            #expect(imported.books.map(\.title) == entries.map(\.title))
            #expect(imported.books.map(\.isbn) == entries.map(\.isbn))
            #expect(imported.books.map(\.authorID) == entries.map(\.authorID))
            let ids = imported.books.compactMap(\.id)
            #expect(ids.count == 250)
            #expect(Set(ids).count == 250)
            #expect(!ids.contains(try #require(existing.id)))

            for (book, entry) in zip(imported.books, entries) {
                let read = try await client.send(.get, "/books/\(try #require(book.id))")
                #expect(read.status == .ok)
                let stored = try read.decode(Book.self)
                #expect(stored == book)
                #expect(stored.title == entry.title)
            }
            #expect(try await database.read { db in try Book.fetchCount(db) } == 251)
        }
    }

    @Test(arguments: TestBackend.available)
    func aDuplicateISBNImportsNothing(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            _ = try await client.createBook(authorID: author, title: "Kept", isbn: "taken", published: 2000)

            // With a stored book: the new books before it are not kept either.
            var entries = (0..<20).map { Entry(authorID: author, title: "New \($0)", isbn: "new-\($0)") }
            entries.append(Entry(authorID: author, title: "Clash", isbn: "taken"))
            let clash = try await client.send(.post, "/books/import", body: Body(books: entries))
            #expect(clash.status == .conflict)
            #expect(try clash.apiError().error.message == "a book with ISBN 'taken' already exists")
            #expect(try await database.read { db in try Book.fetchAll(db).map(\.isbn) } == ["taken"])

            // Twice in the batch.
            let twice = [
                Entry(authorID: author, title: "X", isbn: "x"), Entry(authorID: author, title: "Y", isbn: "y"),
                Entry(authorID: author, title: "X again", isbn: "x"),
            ]
            let duplicate = try await client.send(.post, "/books/import", body: Body(books: twice))
            #expect(duplicate.status == .conflict)
            #expect(try duplicate.apiError().error.message == "ISBN 'x' appears more than once in the import")
            #expect(try await database.read { db in try Book.fetchCount(db) } == 1)

            // The same books without the clash go in.
            let accepted = try await client.send(.post, "/books/import", body: Body(books: Array(entries.dropLast())))
            #expect(accepted.status == .created)
            #expect(try await database.read { db in try Book.fetchCount(db) } == 21)
        }
    }

    @Test(arguments: TestBackend.available)
    func anUnknownAuthorImportsNothing(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)
            let entries = [Entry(authorID: author, title: "Fine", isbn: "fine"), Entry(authorID: 999, title: "Orphan", isbn: "orphan")]
            let response = try await client.send(.post, "/books/import", body: Body(books: entries))
            #expect(response.status == .conflict)
            #expect(try response.apiError().error.message == "no author with id 999")
            #expect(try await database.read { db in try Book.fetchCount(db) } == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func invalidEmptyAndOversizedImportsAreRefused(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("A").id)

            let empty = try await client.send(.post, "/books/import", json: #"{"books": []}"#)
            #expect(empty.status == .unprocessableContent)
            #expect(try empty.apiError().error.message == "`books` must hold from 1 to 1000 books, got 0")

            let tooMany = (0...1000).map { Entry(authorID: author, title: "Book \($0)", isbn: "isbn-\($0)") }
            let oversized = try await client.send(.post, "/books/import", body: Body(books: tooMany))
            #expect(oversized.status == .contentTooLarge)
            #expect(try oversized.apiError().error.message == "`books` must hold from 1 to 1000 books, got 1001")

            // Exactly the limit is fine (a body larger than the 64 KiB of other routes).
            let atLimit = try await client.send(.post, "/books/import", body: Body(books: Array(tooMany.dropLast())))
            #expect(atLimit.status == .created)
            #expect(try await database.read { db in try Book.fetchCount(db) } == 1000)

            let blank = [Entry(authorID: author, title: "Fine", isbn: "a"), Entry(authorID: author, title: "  ", isbn: "b")]
            let invalid = try await client.send(.post, "/books/import", body: Body(books: blank))
            #expect(invalid.status == .unprocessableContent)
            #expect(try invalid.apiError().error.message == "books[1]: `title` must not be empty")

            let missing = try await client.send(.post, "/books/import", json: #"{"books": [{"author_id": \#(author), "title": "T"}]}"#)
            #expect(missing.status == .unprocessableContent)
            #expect(try missing.apiError().error.message == "missing field `books[0].isbn`")
            #expect(try await client.send(.post, "/books/import", json: #"{"books": "#).status == .badRequest)
            #expect(try await client.send(.post, "/books/import", json: #"{}"#).status == .unprocessableContent)
            #expect(try await database.read { db in try Book.fetchCount(db) } == 1000)
        }
    }
}
