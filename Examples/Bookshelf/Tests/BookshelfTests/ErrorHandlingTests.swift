// Tests of error handling across the service: malformed JSON, unknown routes,
// oversized bodies, the error body format, and database errors that must be
// logged but never leaked; on each backend.

@testable import BookshelfService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Quarry
import QuarryPostgres
import Testing

@Suite("Error handling")
struct ErrorHandlingTests {
    @Test(arguments: TestBackend.available)
    func malformedJSONIs400(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            for body in [#"{"name": "#, "not json", "", #"{"name" "A"}"#, "{\"name\": \"A\"} trailing"] {
                for uri in ["/authors", "/books", "/reviews", "/books/discount"] {
                    let response = try await client.send(.post, uri, json: body)
                    #expect(response.status == .badRequest, "\(uri) \(body)")
                    #expect(try response.apiError().error.message == "the request body is not valid JSON")
                }
            }
            let put = try await client.send(.put, "/authors/1", json: "{")
            #expect(put.status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func errorBodyHasTheDocumentedShape(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let response = try await client.send(.get, "/books/12345")
            #expect(response.status == .notFound)
            let object = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
            let error = try #require(object?["error"] as? [String: Any])
            #expect(error["status"] as? Int == 404)
            #expect(error["message"] as? String == "no book with id 12345")
            #expect(object?.count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func unknownRoutesAre404JSON(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            for (method, uri) in [(HTTPRequest.Method.get, "/nothing"), (.get, "/authors/1/nothing"), (.patch, "/books/1")] {
                let response = try await client.send(method, uri)
                #expect(response.status == .notFound, "\(method) \(uri)")
                _ = try response.apiError()
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func oversizedBodyIsRefused(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            // BookshelfRequestContext accepts 2 MiB.
            let name = String(repeating: "x", count: 3 * 1024 * 1024)
            let response = try await client.send(.post, "/authors", json: #"{"name": "\#(name)"}"#)
            #expect(response.status == .contentTooLarge)
            _ = try response.apiError()
            #expect(try await database.read { db in try Author.fetchCount(db) } == 0)
        }
    }

    @Test(arguments: TestBackend.available)
    func healthAnswers(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, _ in
            let response = try await client.send(.get, "/health")
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
        }
    }

    @Test(arguments: TestBackend.available)
    func textWithANULCharacter(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            // SQLite stores it; PostgreSQL text cannot hold one: 422, not 500.
            let created = try await client.send(.post, "/authors", json: #"{"name": "Nul\u0000Byte"}"#)
            switch backend {
            case .sqlite:
                #expect(created.status == .created)
            case .postgres:
                #expect(created.status == .unprocessableContent)
                #expect(try created.apiError().error.message == "a text value holds a character the database cannot store (NUL)")
                #expect(try await database.read { db in try Author.fetchCount(db) } == 0)
            }
            // As a substring filter, a NUL never fails either.
            for uri in ["/authors?name=%00", "/books?q=a%00b"] {
                let response = try await client.send(.get, uri)
                #expect(response.status == .ok, "\(uri)")
            }
        }
    }

    @Test func databaseErrorsAreMappedWithoutLeakingSQL() {
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/books"),
            body: .init(buffer: ByteBuffer()))
        let captured = CapturingLogHandler.Storage()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(storage: captured) }
        let sql = "INSERT INTO \"book\" (\"isbn\") VALUES (?)"
        let cases: [(DatabaseError, HTTPResponse.Status)] = [
            (DatabaseError(resultCode: .SQLITE_CONSTRAINT_UNIQUE, message: "UNIQUE constraint failed: book.isbn", sql: sql), .conflict),
            (DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: "FOREIGN KEY constraint failed", sql: sql), .conflict),
            (DatabaseError(resultCode: .SQLITE_CONSTRAINT_CHECK, message: "CHECK constraint failed: rating", sql: sql), .unprocessableContent),
            (DatabaseError(resultCode: .SQLITE_CONSTRAINT_NOTNULL, message: "NOT NULL constraint failed: book.title", sql: sql), .unprocessableContent),
            (DatabaseError(resultCode: .SQLITE_IOERR, message: "disk I/O error", sql: sql), .internalServerError),
            (DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked", sql: sql), .serviceUnavailable),
            (DatabaseError(sqlState: "57P01", message: "terminating connection due to administrator command", sql: sql), .serviceUnavailable),
            (DatabaseError(sqlState: "08006", message: "the connection to PostgreSQL was lost", sql: sql), .serviceUnavailable),
            (DatabaseError(sqlState: "08007", message: "the connection was lost during COMMIT", sql: "COMMIT"), .internalServerError),
        ]
        for (error, status) in cases {
            let mapped = ErrorMiddleware<BookshelfRequestContext>.apiError(for: error, request: request, logger: logger)
            #expect(mapped.status == status, "\(error)")
            for leak in ["INSERT", "book", "constraint", "disk", "locked", "SQLITE", "PostgreSQL", "COMMIT", "administrator"] {
                #expect(!mapped.message.contains(leak), "\(mapped.message)")
            }
        }
        // What the client does not see is logged, SQL included: info for the
        // constraint violations, error for the failures.
        let entries = captured.entries.withLock { $0 }
        #expect(entries.map(\.level) == [.info, .info, .info, .info, .error, .error, .error, .error, .error])
        #expect(entries.dropLast().allSatisfy { "\($0.metadata["error"] ?? "")".contains(sql) })
        #expect(entries.allSatisfy { "\($0.metadata["route"] ?? "")" == "POST /books" })

        struct Unexpected: Error {}
        let other = ErrorMiddleware<BookshelfRequestContext>.apiError(for: Unexpected(), request: request, logger: logger)
        #expect(other == APIError(.internalServerError, "internal error"))
        let notFound = ErrorMiddleware<BookshelfRequestContext>.apiError(
            for: RecordError.recordNotFound(databaseTableName: "book", key: ["id": .integer(3)]), request: request, logger: logger)
        #expect(notFound.status == .notFound)
    }

    @Test(arguments: TestBackend.available)
    func aDatabaseFailureDuringARequestIs500WithoutDetails(backend: TestBackend) async throws {
        try await withBookshelf(backend) { client, database in
            // Break the schema under the service: reads of book now fail
            // (on PostgreSQL, CASCADE drops the foreign key of book_stats too).
            try await database.write { db in
                try db.execute(sql: "DROP TABLE review")
                try db.execute(sql: backend == .postgres ? "DROP TABLE book CASCADE" : "DROP TABLE book")
            }
            let response = try await client.send(.get, "/books")
            #expect(response.status == .internalServerError)
            #expect(try response.apiError().error.message == "internal error")
            #expect(!String(buffer: response.body).contains("SELECT"))
        }
    }
}
