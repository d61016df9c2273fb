// The transaction state of pooled PostgreSQL connections, followed through
// every statement form that opens or ends a transaction: the chained forms,
// comments before the keywords, two-phase commit (refused), and a task
// cancelled after its access ended, which must not stop the next access.

import Foundation
@testable import Quarry
@testable import QuarryPostgres
import Testing

extension PostgresTestServer {
    static let transactionStateSuiteEnabled = isConfigured(for: "PostgresTransactionStateTests")
}

@Suite(.enabled(if: PostgresTestServer.transactionStateSuiteEnabled, "QUARRY_POSTGRES_URL is not set"))
struct PostgresTransactionStateTests {
    struct Failure: Error {}

    private func ids(_ pool: PostgresDatabasePool) throws -> [Int] {
        try pool.read { db in try Int.fetchAll(db, sql: "SELECT id FROM entry ORDER BY id") }
    }

    /// An access opens a transaction by hand in a chained or commented form,
    /// writes, and throws: on a pool of one connection, the next write must
    /// not run inside that transaction and commit the thrown access's write.
    @Test(arguments: [
        ("BEGIN", "COMMIT AND CHAIN"), ("BEGIN", "commit work and chain"), ("BEGIN", "ROLLBACK AND CHAIN"),
        ("BEGIN", "/* chained */ END AND CHAIN"), ("/* a /* nested */ comment */ BEGIN", "SELECT 1"),
        ("-- line\nSTART TRANSACTION", "SELECT 1"),
    ])
    func aTransactionOpenedByHandNeverReachesTheNextAccess(begin: String, chain: String) async throws {
        try await PostgresTestServer.withPool(maximumConnectionCount: 1) { pool in
            try pool.write { db in try db.execute(sql: "CREATE TABLE entry (id BIGINT PRIMARY KEY)") }
            #expect(throws: Failure.self) {
                try pool.writeWithoutTransaction { db in
                    try db.execute(sql: begin)
                    try db.execute(sql: "INSERT INTO entry (id) VALUES (1)")
                    try db.execute(sql: chain)
                    #expect(db.isInsideTransaction, "\(chain)")
                    try db.execute(sql: "INSERT INTO entry (id) VALUES (2)")
                    throw Failure()
                }
            }
            try pool.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (3)") }
            let committedFirst = chain.lowercased().contains("commit") || chain.contains("END")
            #expect(try ids(pool) == (committedFirst ? [1, 3] : [3]), "\(begin) … \(chain)")
        }
    }

    @Test func prepareTransactionIsRefusedBeforeItIsSent() async throws {
        try await PostgresTestServer.withPool(maximumConnectionCount: 1) { pool in
            try pool.write { db in try db.execute(sql: "CREATE TABLE entry (id BIGINT PRIMARY KEY)") }
            let error = try #require(throws: DatabaseError.self) {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO entry (id) VALUES (1)")
                    try db.execute(sql: "/* two-phase */ PREPARE TRANSACTION 'quarry_test'")
                }
            }
            #expect(error.resultCode == .SQLITE_MISUSE, "\(error)")
            #expect(error.message.contains("PREPARE TRANSACTION is not supported"), "\(error)")
            #expect(try ids(pool) == [])
            // The server got nothing to prepare.
            #expect(try pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'quarry_test'")
            } == 0)
        }
    }

    /// The first task is cancelled after its access released the connection
    /// and the second access runs a statement on it (the test seam holds
    /// the first access between its release and its return): the second
    /// access's statement must run to its end.
    @Test func aLateCancellationNeverStopsTheNextAccess() async throws {
        try await PostgresTestServer.withPool(maximumConnectionCount: 1) { pool in
            let connections = pool.pool.pool
            let released = AsyncStream<Void>.makeStream()
            let resume = AsyncStream<Void>.makeStream()
            connections.afterAsyncAccessForTesting = {
                released.continuation.yield()
                for await _ in resume.stream { break }
            }
            let first = Task { try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") } }
            var releases = released.stream.makeAsyncIterator()
            await releases.next()
            connections.afterAsyncAccessForTesting = nil
            let started = AsyncStream<Void>.makeStream()
            let second = Task {
                try await pool.read { db in
                    started.continuation.yield()
                    return try Int.fetchOne(db, sql: "SELECT 2 FROM pg_sleep(0.5)")
                }
            }
            var starts = started.stream.makeAsyncIterator()
            await starts.next()
            // Let the sleep reach the server before the cancellation.
            try await Task.sleep(for: .milliseconds(150))
            first.cancel()
            let secondResult = await Result { try await second.value }
            resume.continuation.yield()
            #expect(try await first.value == 1)
            #expect(try secondResult.get() == 2)
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
