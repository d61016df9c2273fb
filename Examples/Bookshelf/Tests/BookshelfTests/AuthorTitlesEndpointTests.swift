// Tests of GET /authors/:id/titles: an author and their titles from one
// json_group_array query (json_agg on PostgreSQL), including an author without
// books; on each backend.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Author titles endpoint")
struct AuthorTitlesEndpointTests {
    @Test(arguments: TestBackend.available)
    func titlesOfAnAuthor(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let author = try #require(try await client.createAuthor("Ursula K. Le Guin").id)
            let other = try #require(try await client.createAuthor("Other").id)
            for (title, isbn) in [("The Left Hand of Darkness", "2"), ("A Wizard of Earthsea", "1"), ("The Dispossessed", "3")] {
                _ = try await client.createBook(authorID: author, title: title, isbn: isbn, published: 1970)
            }
            _ = try await client.createBook(authorID: other, title: "Not hers", isbn: "4", published: 1970)
            // Text that JSON must escape survives json_group_array and decoding.
            let tricky = #"Quotes "and" \ backslash, ünïcödé, 🐉"#
            try await database.write { db in
                try Book(authorID: author, title: tricky, isbn: "5", published: 1971, priceCents: 1).insert(db)
            }

            let response = try await client.send(.get, "/authors/\(author)/titles")
            #expect(response.status == .ok)
            let titles = try response.decode(AuthorTitles.self)
            let expected = try await database.read { db in
                try String.fetchAll(db, sql: "SELECT title FROM book WHERE author_id = ?", arguments: [author])
            }
            #expect(titles == AuthorTitles(authorID: author, name: "Ursula K. Le Guin", titles: expected.sorted()))
            #expect(titles.titles.first == "A Wizard of Earthsea")
            #expect(titles.titles.contains(tricky))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            #expect(Set(object.keys) == ["author_id", "name", "titles"])
        }
    }

    @Test(arguments: TestBackend.available)
    func anAuthorWithoutBooksHasNoTitles(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let author = try #require(try await client.createAuthor("Unpublished").id)
            let response = try await client.send(.get, "/authors/\(author)/titles")
            #expect(response.status == .ok)
            // Not [null], the json_group_array of the LEFT JOIN's NULL row.
            #expect(String(buffer: response.body) == #"{"author_id":\#(author),"name":"Unpublished","titles":[]}"#)

            // Their only book deleted: empty again.
            let book = try #require(try await client.createBook(authorID: author, title: "Draft", isbn: "d", published: 2020).id)
            #expect(try await client.send(.get, "/authors/\(author)/titles").decode(AuthorTitles.self).titles == ["Draft"])
            #expect(try await client.send(.delete, "/books/\(book)").status == .noContent)
            #expect(try await client.send(.get, "/authors/\(author)/titles").decode(AuthorTitles.self).titles == [])
        }
    }

    @Test(arguments: TestBackend.available)
    func unknownAuthorsAndBadIDs(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let missing = try await client.send(.get, "/authors/404/titles")
            #expect(missing.status == .notFound)
            #expect(try missing.apiError().error.message == "no author with id 404")
            #expect(try await client.send(.get, "/authors/zero/titles").status == .badRequest)
            #expect(try await client.send(.get, "/authors/0/titles").status == .badRequest)
        }
    }
}
