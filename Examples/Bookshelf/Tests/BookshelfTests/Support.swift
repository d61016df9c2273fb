// Test support: a fresh database per test (an SQLite file, or a PostgreSQL
// schema of its own when QUARRY_POSTGRES_URL is set: see TestDatabase.swift),
// the app under test, and small helpers to send JSON and decode responses.

import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Quarry
import Synchronization
import Testing

/// A temporary directory, removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bookshelf-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A logger that only prints critical messages, to keep test output readable.
let quietLogger: Logger = {
    var logger = Logger(label: "bookshelf-tests")
    logger.logLevel = .critical
    return logger
}()

/// Runs `body` against the full application (router, error middleware,
/// database closer) on a fresh, migrated database of `backend` (a file in a
/// real `DatabasePool`, or a schema of its own in a `PostgresDatabasePool`),
/// through HummingbirdTesting's in-process router client (or, with `.live`,
/// a real server on a free port: `client.port`). Returns the pool, closed by
/// then, for checks after shutdown; a PostgreSQL schema is dropped by then.
@discardableResult
func withBookshelf(
    _ backend: TestBackend = .sqlite,
    _ setup: TestingSetup = .router,
    logger: Logger = quietLogger,
    eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat,
    _ body: @Sendable (any TestClientProtocol, any DatabaseWriter) async throws -> Void
) async throws -> any DatabaseWriter {
    try await withTestDatabase(backend) { testDatabase in
        let database = try await testDatabase.open(logger: logger)
        let configuration = BookshelfConfiguration(port: 0, databasePath: testDatabase.location, eventsHeartbeat: eventsHeartbeat)
        let app = buildApplication(configuration, database: database, logger: logger)
        do {
            try await app.test(setup) { client in
                try await body(client, database.writer)
            }
        } catch {
            database.writer.close()  // before the schema is dropped (the app closes it otherwise)
            throw error
        }
        return database.writer
    }
}

extension TestClientProtocol {
    /// Sends a request with an optional raw JSON body.
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    /// Sends an Encodable value as JSON.
    func send(_ method: HTTPRequest.Method, _ uri: String, body: some Encodable) async throws -> TestResponse {
        let data = try JSONEncoder().encode(body)
        return try await send(method, uri, json: String(decoding: data, as: UTF8.self))
    }

    /// Creates an author and returns it (the request must answer 201).
    func createAuthor(_ name: String, bio: String? = nil) async throws -> Author {
        let response = try await send(.post, "/authors", body: ["name": name, "bio": bio])
        #expect(response.status == .created)
        return try response.decode(Author.self)
    }

    /// Creates a book and returns it (the request must answer 201).
    func createBook(authorID: Int64, title: String, isbn: String, published: Int, priceCents: Int = 1000) async throws -> Book {
        let json = """
            {"author_id": \(authorID), "title": "\(title)", "isbn": "\(isbn)", "published": \(published), "price_cents": \(priceCents)}
            """
        let response = try await send(.post, "/books", json: json)
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try response.decode(Book.self)
    }

    /// Creates a review and returns it (the request must answer 201).
    func createReview(bookID: Int64, reviewer: String, rating: Int, comment: String? = nil) async throws -> Review {
        var fields = "\"book_id\": \(bookID), \"reviewer\": \"\(reviewer)\", \"rating\": \(rating)"
        if let comment { fields += ", \"comment\": \"\(comment)\"" }
        let response = try await send(.post, "/reviews", json: "{\(fields)}")
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try response.decode(Review.self)
    }
}

extension TestResponse {
    /// The body decoded from JSON (dates in ISO 8601, as the service sends them).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(body.readableBytesView))
    }

    /// The error body; fails the test when the body is not the documented error shape.
    func apiError() throws -> APIError.Body {
        let error = try decode(APIError.Body.self)
        #expect(error.error.status == Int(status.code))
        #expect(headers[.contentType]?.hasPrefix("application/json") == true)
        return error
    }
}

/// A swift-log handler that keeps what is logged, to check what the service logs.
struct CapturingLogHandler: LogHandler {
    /// The messages logged, with their level and metadata, in order.
    final class Storage: Sendable {
        let entries = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])
    }

    let storage: Storage
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let entry = (level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 })
        storage.entries.withLock { $0.append(entry) }
    }
}
