// Tests of graceful shutdown on a live server: a request in flight when
// shutdown starts still completes (and its write commits), and the pool is
// closed only after the HTTP server stopped; on each backend.

import BookshelfService
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Quarry
import ServiceLifecycle
import Testing

@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test(arguments: TestBackend.available)
    func aRequestInFlightFinishesBeforeThePoolCloses(backend: TestBackend) async throws {
        try await withTestDatabase(backend) { testDatabase in
            try await Self.aRequestInFlightFinishesBeforeThePoolCloses(testDatabase)
        }
    }

    static func aRequestInFlightFinishesBeforeThePoolCloses(_ testDatabase: TestDatabase) async throws {
        let opened = try await testDatabase.open()
        let database = opened.writer
        let router = buildRouter(database: opened)
        // A test-only slow route: it starts, waits, then writes.
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        router.post("slow") { _, _ -> Author in
            startedContinuation.yield()
            try await Task.sleep(for: .milliseconds(500))
            return try await database.write { db in
                var author = Author(name: "written during shutdown")
                return try author.insertAndFetch(db)
            }
        }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [DatabaseCloser(database: database, logger: quietLogger)],
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: quietLogger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: quietLogger))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var portIterator = ports.makeAsyncIterator()
            let port = try #require(await portIterator.next())
            #expect(port > 0)
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/slow")))
            request.httpMethod = "POST"
            request.timeoutInterval = 30
            let session = URLSession(configuration: .ephemeral)
            async let response = session.data(for: request)
            var startedIterator = started.makeAsyncIterator()
            _ = await startedIterator.next()
            // Shutdown starts while the request is in its handler.
            await group.triggerGracefulShutdown()
            let (data, urlResponse) = try await response
            #expect((urlResponse as? HTTPURLResponse)?.statusCode == 200)
            let author = try JSONDecoder().decode(Author.self, from: data)
            #expect(author.name == "written during shutdown")
            try await tasks.waitForAll()
        }

        // The pool is closed now; the write committed.
        await #expect(throws: DatabaseError.self) {
            try await database.read { db in try Author.fetchCount(db) }
        }
        let reopened = try testDatabase.openUnmigrated()
        defer { reopened.close() }
        #expect(try await reopened.read { db in try Author.fetchAll(db).map(\.name) } == ["written during shutdown"])
    }
}
