// Tests of GET /books/events, the Server-Sent Events stream of the book count
// and latest books, on a live server read by a raw HTTP client: the current
// value first, one event per commit to `book`, none for commits to other
// tables (region tracking), `limit`, heartbeats, and the stream's end on
// shutdown or when the client goes away; the stream and its format on both
// backends (on PostgreSQL, Quarry observes commits by LISTEN/NOTIFY). Other
// processes' commits: TwoProcessEventsTests.swift.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Quarry
import Synchronization
import Testing

/// The `data:` of a `books` event, as a client decodes it.
struct BooksEventPayload: Decodable, Equatable {
    struct Entry: Decodable, Equatable {
        var id: Int64
        var title: String
    }

    var count: Int
    var latest: [Entry]
}

@Suite("Book events (SSE)")
struct BookEventsTests {
    @Test(arguments: TestBackend.available)
    func streamsTheCurrentValueThenOneEventPerBookCommitAndNoneForOtherTables(backend: TestBackend) async throws {
        try await withBookshelf(backend, .live) { client, database in
            let authorID = try #require(try await client.createAuthor("Ursula K. Le Guin").id)
            let first = try await client.createBook(authorID: authorID, title: "A Wizard of Earthsea", isbn: "978-0553383041", published: 1968)
            let firstID = try #require(first.id)
            let port = try #require(client.port)
            let stream = try EventStreamClient(port: port, path: "/books/events?limit=2")
            defer { stream.disconnect() }

            // The current value, as soon as the stream opens.
            let initial = try await stream.waitForEvents(count: 1)
            let head = stream.snapshot
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "text/event-stream")
            #expect(head.headers["cache-control"] == "no-cache")
            #expect(head.headers["transfer-encoding"] == "chunked")
            #expect(initial[0].event == "books")
            #expect(try initial[0].decode(BooksEventPayload.self) == BooksEventPayload(count: 1, latest: [.init(id: firstID, title: "A Wizard of Earthsea")]))

            // Commits to tables the fetch does not read (`author`, `review`),
            // made once the observation runs, produce no event.
            _ = try await client.createAuthor("Another author")
            _ = try await client.createReview(bookID: firstID, reviewer: "Ged", rating: 5)
            #expect(try await database.read { db in try Review.fetchCount(db) } == 1)
            // Gives a wrong event a moment to show up; the checks below do not
            // depend on it (an event for those commits would come before the
            // next one anyway).
            try await Task.sleep(for: .milliseconds(200))
            #expect(stream.snapshot.events.count == 1)

            // A new book: the next event is count + 1, with the new book first.
            let second = try await client.createBook(authorID: authorID, title: "The Tombs of Atuan", isbn: "978-0689845369", published: 1970)
            let secondID = try #require(second.id)
            let events = try await stream.waitForEvents(count: 2)
            #expect(events.count == 2)
            #expect(events.map(\.event) == ["books", "books"])
            #expect(try events[1].decode(BooksEventPayload.self) == BooksEventPayload(count: 2, latest: [
                .init(id: secondID, title: "The Tombs of Atuan"),
                .init(id: firstID, title: "A Wizard of Earthsea"),
            ]))

            // limit=2: the server ends the response after the second event.
            let end = try await stream.waitForEnd()
            #expect(end.events.count == 2)
        }
    }

    @Test(arguments: TestBackend.available)
    func eventFormatAndTheFiveLatestBooks(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            // Through the buffering router client: limit=1 makes the body finite.
            let empty = try await client.send(.get, "/books/events?limit=1")
            #expect(empty.status == .ok)
            #expect(empty.headers[.contentType] == "text/event-stream")
            #expect(empty.headers[.cacheControl] == "no-cache")
            #expect(String(buffer: empty.body) == "event: books\ndata: {\"count\":0,\"latest\":[]}\n\n")

            let authorID = try #require(try await client.createAuthor("Iain M. Banks").id)
            for number in 1...6 {
                _ = try await client.createBook(authorID: authorID, title: "Culture \(number)", isbn: "isbn-\(number)", published: 1986 + number)
            }
            let full = try await client.send(.get, "/books/events?limit=1")
            #expect(String(buffer: full.body) == """
                event: books
                data: {"count":6,"latest":[{"id":6,"title":"Culture 6"},{"id":5,"title":"Culture 5"},{"id":4,"title":"Culture 4"},{"id":3,"title":"Culture 3"},{"id":2,"title":"Culture 2"}]}


                """)
        }
    }

    @Test(arguments: ["0", "abc", "1001", "-1", ""])
    func anInvalidLimitIs400(limit: String) async throws {
        try await withBookshelf { client, _ in
            let response = try await client.send(.get, "/books/events?limit=\(limit)")
            #expect(response.status == .badRequest)
            #expect(try response.apiError().error.message == "query parameter `limit` must be an integer from 1 to 1000, got '\(limit)'")
        }
    }

    @Test func serverShutdownEndsAnOpenStream() async throws {
        let storage = CapturingLogHandler.Storage()
        let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
        let stream = try await withStream(logger: logger) { _, stream in
            // No limit: the stream would go on; the test ends, the server shuts down.
            _ = try await stream.waitForEvents(count: 1)
        }
        // The server finished the response (last chunk) before it stopped.
        defer { stream.disconnect() }
        let end = try await stream.waitForEnd()
        #expect(end.events.count == 1)
        #expect(Self.endReasons(storage) == ["server shutting down"])
    }

    @Test func aClientThatGoesAwayEndsTheStream() async throws {
        let storage = CapturingLogHandler.Storage()
        let logger = Logger(label: "bookshelf-tests") { _ in CapturingLogHandler(storage: storage) }
        let stream = try await withStream(logger: logger, eventsHeartbeat: .milliseconds(50)) { _, stream in
            _ = try await stream.waitForEvents(count: 1)
            // Heartbeats (comments) arrive while nothing changes.
            _ = try await stream.waitFor("a heartbeat", timeout: .seconds(10)) { $0.comments >= 1 }
            stream.disconnect()
            // The next heartbeats fail to write: the server ends the stream
            // (and its observation) without waiting for a commit or shutdown.
            let deadline = ContinuousClock.now + .seconds(10)
            while Self.endReasons(storage).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(Self.endReasons(storage) == ["client gone"])
        }
        stream.disconnect()
    }

    /// Runs a live Bookshelf with one book, opens `GET /books/events` (no
    /// limit) on it, and runs `body`; returns the stream once the server
    /// stopped (the caller disconnects it).
    @discardableResult
    private func withStream(
        logger: Logger,
        eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat,
        _ body: @Sendable (any TestClientProtocol, EventStreamClient) async throws -> Void
    ) async throws -> EventStreamClient {
        let opened = Mutex<EventStreamClient?>(nil)
        try await withBookshelf(.sqlite, .live, logger: logger, eventsHeartbeat: eventsHeartbeat) { client, _ in
            let authorID = try #require(try await client.createAuthor("N. K. Jemisin").id)
            _ = try await client.createBook(authorID: authorID, title: "The Fifth Season", isbn: "978-0316229296", published: 2015)
            let stream = try EventStreamClient(port: try #require(client.port), path: "/books/events")
            opened.withLock { $0 = stream }
            try await body(client, stream)
        }
        return try #require(opened.withLock { $0 })
    }

    /// The `reason` of each "book events stream ended" log message.
    private static func endReasons(_ storage: CapturingLogHandler.Storage) -> [String] {
        storage.entries.withLock { entries in
            entries.filter { $0.message == "book events stream ended" }.compactMap { $0.metadata["reason"].map { "\($0)" } }
        }
    }
}
