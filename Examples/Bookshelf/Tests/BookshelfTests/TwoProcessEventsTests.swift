// Tests of GET /books/events across processes: two `bookshelf` server
// processes on one database (one SQLite file; one PostgreSQL schema), an SSE
// client on process B, a book created with POST through process A — the
// client receives it within a bound. On SQLite the commit reaches B through
// the pool's polling of `PRAGMA data_version` (250 ms by default); on
// PostgreSQL through the `book` trigger's NOTIFY and B's LISTEN connection.

import BookshelfService
import Foundation
import Testing

@Suite("Book events across two processes")
struct TwoProcessEventsTests {
    /// How long another process's book may take to reach a stream.
    static let deliveryBound: Duration = .seconds(5)

    @Test(arguments: TestBackend.available)
    func aBookPostedThroughOneProcessReachesTheEventStreamOfAnother(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            // A first, so that B starts on a migrated database.
            let processA = try BookshelfProcess(name: "A", database: testDatabase.processLocation)
            defer { processA.stop() }
            let portA = try await processA.waitUntilListening()
            let processB = try BookshelfProcess(name: "B", database: testDatabase.processLocation)
            defer { processB.stop() }
            let portB = try await processB.waitUntilListening()
            #expect(portA != portB)
            let clientA = ProcessClient(port: portA)

            let authorID = try await clientA.create("/authors", json: #"{"name": "Octavia E. Butler"}"#)
            let stream = try EventStreamClient(port: portB, path: "/books/events?limit=3")
            defer { stream.disconnect() }
            let initial = try await stream.waitForEvents(count: 1)
            #expect(stream.snapshot.status == 200)
            #expect(try initial[0].decode(BooksEventPayload.self) == BooksEventPayload(count: 0, latest: []))

            // A book through A: B's stream shows it within the bound.
            let posted = ContinuousClock.now
            let firstID = try await clientA.create("/books", json: """
                {"author_id": \(authorID), "title": "Kindred", "isbn": "978-0807083697", "published": 1979, "price_cents": 1500}
                """)
            let events = try await stream.waitForEvents(count: 2, timeout: Self.deliveryBound)
            let delay = ContinuousClock.now - posted
            #expect(try events[1].decode(BooksEventPayload.self) == BooksEventPayload(count: 1, latest: [.init(id: firstID, title: "Kindred")]))
            #expect(delay < Self.deliveryBound, "\(backend): delivered after \(delay)")

            // A second one, the same way (the watch goes on after a delivery).
            let secondID = try await clientA.create("/books", json: """
                {"author_id": \(authorID), "title": "Dawn", "isbn": "978-0446603775", "published": 1987, "price_cents": 1200}
                """)
            let more = try await stream.waitForEvents(count: 3, timeout: Self.deliveryBound)
            #expect(try more[2].decode(BooksEventPayload.self) == BooksEventPayload(count: 2, latest: [
                .init(id: secondID, title: "Dawn"), .init(id: firstID, title: "Kindred"),
            ]))
            // limit=3: B ends the response.
            let end = try await stream.waitForEnd()
            #expect(end.events.count == 3)

            // Both processes stop gracefully on SIGTERM (exit status 0),
            // before the test database goes away.
            processB.stop()
            processA.stop()
            #expect(processA.terminationStatus == 0, "A's log:\n\(processA.log)")
            #expect(processB.terminationStatus == 0, "B's log:\n\(processB.log)")
        }
    }
}
