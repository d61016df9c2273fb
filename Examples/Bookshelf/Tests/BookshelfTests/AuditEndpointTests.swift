// Tests of the audit trail: the triggers on `book` write one `audit` row per
// insert, update and delete, whatever endpoint made the change, and
// GET /audit lists them newest first; on each backend (plpgsql triggers on
// PostgreSQL).

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Quarry
import Testing

@Suite("Audit endpoint")
struct AuditEndpointTests {
    /// `YYYY-MM-DDTHH:MM:SSZ`, as the triggers write `changed_at`.
    static func isTimestamp(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil
    }

    @Test(arguments: TestBackend.available)
    func insertUpdateAndDeleteOfABookAreAudited(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            let authorID = try #require(try await client.createAuthor("Octavia Butler").id)
            let book = try await client.createBook(authorID: authorID, title: "Kindred", isbn: "k", published: 1979)
            let id = try #require(book.id)
            let json = #"{"author_id": \#(authorID), "title": "Kindred (25th)", "isbn": "k", "published": 2004, "price_cents": 1}"#
            #expect(try await client.send(.put, "/books/\(id)", json: json).status == .ok)
            #expect(try await client.send(.delete, "/books/\(id)").status == .noContent)

            let response = try await client.send(.get, "/audit")
            #expect(response.status == .ok)
            let page = try response.decode(Page<AuditEntry>.self)
            #expect(page.total == 3 && page.page == 1 && page.perPage == PageRequest.defaultPerPage)
            // Newest first.
            #expect(page.items.map(\.action) == ["delete", "update", "insert"])
            #expect(page.items.allSatisfy { $0.tableName == "book" && $0.rowID == id })
            #expect(page.items.map(\.oldTitle) == ["Kindred (25th)", "Kindred", nil])
            #expect(page.items.map(\.newTitle) == [nil, "Kindred (25th)", "Kindred"])
            #expect(page.items.allSatisfy { Self.isTimestamp($0.changedAt) }, "\(page.items.map(\.changedAt))")
            let ids = page.items.map(\.id)
            #expect(ids == ids.sorted(by: >))

            // The JSON keys are the column names.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
            let first = try #require((object["items"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["id", "table_name", "row_id", "action", "old_title", "changed_at"])

            // The same rows in the table, written in the transactions of the changes.
            let stored = try await database.read { db in try AuditEntry.order(\.id).fetchAll(db) }
            #expect(stored == page.items.reversed())
        }
    }

    @Test(arguments: TestBackend.available)
    func authorChangesAreNotBookChanges(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let authorID = try #require(try await client.createAuthor("A").id)
            _ = try await client.createBook(authorID: authorID, title: "T", isbn: "t", published: 2000)
            #expect(try await client.send(.put, "/authors/\(authorID)", json: #"{"name": "B"}"#).status == .ok)
            let page = try await client.send(.get, "/audit").decode(Page<AuditEntry>.self)
            #expect(page.items.map(\.action) == ["insert"])
        }
    }

    @Test(arguments: TestBackend.available)
    func bulkWritesAuditEveryRow(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let authorID = try #require(try await client.createAuthor("Bulk").id)
            let json = """
                {"books": [
                    {"author_id": \(authorID), "title": "One", "isbn": "1", "published": 2001, "price_cents": 1000},
                    {"author_id": \(authorID), "title": "Two", "isbn": "2", "published": 2002, "price_cents": 1000},
                    {"author_id": \(authorID), "title": "Three", "isbn": "3", "published": 2003, "price_cents": 1000}
                ]}
                """
            #expect(try await client.send(.post, "/books/import", json: json).status == .created)
            #expect(try await client.send(.post, "/books/discount", json: #"{"author_id": \#(authorID), "percent": 50}"#).status == .ok)
            #expect(try await client.send(.delete, "/authors/\(authorID)/books").status == .ok)

            let page = try await client.send(.get, "/audit?per_page=100").decode(Page<AuditEntry>.self)
            #expect(page.total == 9)
            #expect(page.items.map(\.action) == Array(repeating: "delete", count: 3) + Array(repeating: "update", count: 3) + Array(repeating: "insert", count: 3))
            // A price change keeps the title on both sides.
            #expect(page.items.filter { $0.action == "update" }.allSatisfy { $0.oldTitle == $0.newTitle && $0.newTitle != nil })
            #expect(Set(page.items.filter { $0.action == "insert" }.compactMap(\.newTitle)) == ["One", "Two", "Three"])
        }
    }

    @Test(arguments: TestBackend.available)
    func aRefusedWriteLeavesNoAuditRow(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let authorID = try #require(try await client.createAuthor("A").id)
            _ = try await client.createBook(authorID: authorID, title: "First", isbn: "dup", published: 2000)
            let duplicate = #"{"author_id": \#(authorID), "title": "Copy", "isbn": "dup", "published": 2000, "price_cents": 1}"#
            #expect(try await client.send(.post, "/books", json: duplicate).status == .conflict)
            let page = try await client.send(.get, "/audit").decode(Page<AuditEntry>.self)
            #expect(page.total == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func filtersByRowAndPages(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let authorID = try #require(try await client.createAuthor("A").id)
            var ids: [Int64] = []
            for index in 1...4 {
                ids.append(try #require(try await client.createBook(authorID: authorID, title: "B\(index)", isbn: "i\(index)", published: 2000).id))
            }
            #expect(try await client.send(.delete, "/books/\(ids[1])").status == .noContent)

            let forOne = try await client.send(.get, "/audit?row_id=\(ids[1])").decode(Page<AuditEntry>.self)
            #expect(forOne.items.map(\.action) == ["delete", "insert"] && forOne.total == 2)

            let first = try await client.send(.get, "/audit?per_page=2").decode(Page<AuditEntry>.self)
            let second = try await client.send(.get, "/audit?per_page=2&page=2").decode(Page<AuditEntry>.self)
            let third = try await client.send(.get, "/audit?per_page=2&page=3").decode(Page<AuditEntry>.self)
            #expect(first.total == 5)
            #expect((first.items + second.items + third.items).map(\.rowID) == [ids[1], ids[3], ids[2], ids[1], ids[0]])

            for uri in ["/audit?per_page=101", "/audit?page=0", "/audit?row_id=0", "/audit?row_id=x"] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .badRequest, "\(uri)")
                _ = try response.apiError()
            }
        }
    }
}
