// PostgresSession against the real server: large results, Unicode, arguments
// that are never spliced into the SQL, rowsAffected, the blocking and async
// variants, concurrent sessions, closing. Skips without QUARRY_POSTGRES_URL.

import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres
import Testing

@Suite(.enabled(if: PostgresTestServer.sessionSuiteEnabled, "no QUARRY_POSTGRES_URL"))
struct PostgresSessionTests {
    @Test func tenThousandRows() async throws {
        try await PostgresTestServer.withSession { session in
            let generated = try await session.execute(
                sql: "SELECT g AS id, 'row ' || g AS name, g * 0.5::float8 AS half FROM generate_series(1, $1::int4) AS g ORDER BY g",
                arguments: [10_000])
            #expect(generated.columnNames == ["id", "name", "half"])
            #expect(generated.rows.count == 10_000)
            #expect(generated.rowsAffected == 10_000)
            #expect(generated.rows.first == [.integer(1), .text("row 1"), .real(0.5)])
            #expect(generated.rows.last == [.integer(10_000), .text("row 10000"), .real(5000)])
            #expect(generated.rows.enumerated().allSatisfy { $0.element[0] == .integer(Int64($0.offset + 1)) })

            try await session.execute(sql: "CREATE TABLE big (id int8 PRIMARY KEY, name text)")
            let inserted = try await session.execute(sql: "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 10000) AS g")
            #expect(inserted.rowsAffected == 10_000)
            #expect(inserted.rows.isEmpty)
            let all = try await session.execute(sql: "SELECT id, name FROM big ORDER BY id")
            #expect(all.rows.count == 10_000)
            #expect(Set(all.rows.map { $0[1] }).count == 10_000)
        }
    }

    @Test func rowsAffectedComesFromTheCommandTag() async throws {
        try await PostgresTestServer.withSession { session in
            #expect(try await session.execute(sql: "CREATE TABLE t (id int8 PRIMARY KEY, score int4)").rowsAffected == 0)
            #expect(try await session.execute(sql: "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)").rowsAffected == 3)
            #expect(try await session.execute(sql: "UPDATE t SET score = score + 1 WHERE id >= $1", arguments: [2]).rowsAffected == 2)
            #expect(try await session.execute(sql: "UPDATE t SET score = 0 WHERE id = 99").rowsAffected == 0)
            let returning = try await session.execute(sql: "DELETE FROM t WHERE id = $1 RETURNING id, score", arguments: [3])
            #expect(returning.rowsAffected == 1)
            #expect(returning.columnNames == ["id", "score"])
            #expect(returning.rows == [[.integer(3), .integer(31)]])
            let upsert = try await session.execute(
                sql: "INSERT INTO t VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET score = excluded.score RETURNING score",
                arguments: [1, 100])
            #expect(upsert.rows == [[.integer(100)]] && upsert.rowsAffected == 1)
            let empty = try await session.execute(sql: "SELECT id FROM t WHERE id < 0")
            #expect(empty.rows.isEmpty && empty.rowsAffected == 0)
            #expect(empty.columnNames.isEmpty)  // PostgresNIO 1.33 gives no row description for an empty result
        }
    }

    @Test func unicodeInValuesNamesAndSQL() async throws {
        let texts = ["", "ascii", "é à ü ñ ß", "你好，世界", "𝄞 𝕏 🇫🇷 👩‍👩‍👧‍👦", "\u{202E}rtl\u{202C}", "a\u{0301}", "\u{FEFF}bom", "tab\tnew\nline\r", "'\"\\`$1?"]
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: "CREATE TABLE \"tâble ✓\" (id int8, \"nämé\" text, \"ключ\" varchar(100))")
            for (index, text) in texts.enumerated() {
                try await session.execute(sql: "INSERT INTO \"tâble ✓\" VALUES ($1, $2, $3)", arguments: [.integer(Int64(index)), .text(text), .text(text)])
            }
            let result = try await session.execute(sql: "SELECT \"nämé\", \"ключ\", 'literal ✓' AS \"ünï\" FROM \"tâble ✓\" ORDER BY id")
            #expect(result.columnNames == ["nämé", "ключ", "ünï"])
            #expect(result.rows.map { $0[0] } == texts.map { .text($0) })
            #expect(result.rows.map { $0[1] } == texts.map { .text($0) })
            #expect(result.rows.allSatisfy { $0[2] == .text("literal ✓") })
            let lengths = try await session.execute(sql: "SELECT length($1), octet_length($1)", arguments: ["𝄞é"])
            #expect(lengths.rows == [[.integer(2), .integer(6)]])
        }
    }

    static let injectionPayloads = [
        "'); DROP TABLE victim; --",
        "' OR '1'='1",
        "1; DELETE FROM victim",
        "$1",
        "$2 $1 $$ $$",
        "\\'; SELECT pg_sleep(10); --",
        "\"; DROP SCHEMA public CASCADE; --",
        "E'\\x00'",
        "%s %d %n",
        "Robert'); DROP TABLE Students;--",
        "?",
        "/* unterminated comment",
        "' || (SELECT current_user) || '",
    ]

    @Test func argumentsAreNeverSplicedIntoTheSQL() async throws {
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: "CREATE TABLE victim (id int8 PRIMARY KEY, payload text, bytes bytea, j jsonb)")
            for (index, payload) in Self.injectionPayloads.enumerated() {
                try await session.execute(
                    sql: "INSERT INTO victim VALUES ($1, $2, $3, $4)",
                    arguments: [.integer(Int64(index)), .text(payload), .blob(Data(payload.utf8)), .text(try Self.jsonString(payload))])
            }
            let rows = try await session.execute(sql: "SELECT payload, bytes, j FROM victim ORDER BY id").rows
            #expect(rows.count == Self.injectionPayloads.count)
            for (row, payload) in zip(rows, Self.injectionPayloads) {
                #expect(row[0] == .text(payload))
                #expect(row[1] == .blob(Data(payload.utf8)))
                #expect(row[2] == .text(try Self.jsonString(payload)))
            }
            for payload in Self.injectionPayloads {
                let found = try await session.execute(sql: "SELECT count(*) FROM victim WHERE payload = $1", arguments: [.text(payload)])
                #expect(found.rows == [[.integer(1)]], "\(payload)")
            }
            // A payload in an integer position is refused, not executed.
            await #expect(throws: DatabaseError.self) {
                try await session.execute(sql: "SELECT * FROM victim WHERE id = $1", arguments: ["0 OR 1=1"])
            }
            #expect(try await session.execute(sql: "SELECT count(*) FROM victim").rows == [[.integer(Int64(Self.injectionPayloads.count))]])
        }
    }

    static func jsonString(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: try encoder.encode(text), as: UTF8.self)
    }

    @Test func blockingVariantFromAThread() async throws {
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: "CREATE TABLE t (id int8, name text)")
            let schema = try await session.execute(sql: "SELECT current_schema()").rows[0][0]
            // A plain thread, as Quarry's synchronous closures have.
            let result = try await Self.onThread {
                let other = try Self.connectBlocking()
                defer { _ = try? Self.closeBlocking(other) }
                guard case .text(let name) = schema else { throw CancellationError() }
                try other.executeBlocking(sql: "SET search_path TO \(name)")
                for index in 1...100 {
                    try other.executeBlocking(sql: "INSERT INTO t VALUES ($1, $2)", arguments: [.integer(Int64(index)), .text("n\(index)")])
                }
                try session.executeBlocking(sql: "INSERT INTO t VALUES ($1, $2)", arguments: [101, "from the async session"])
                return try session.executeBlocking(sql: "SELECT count(*), max(id) FROM t")
            }
            #expect(result.rows == [[.integer(101), .integer(101)]])
            // Errors come out of the blocking variant as DatabaseError too.
            let error = try await Self.onThread { () -> DatabaseError? in
                do {
                    try session.executeBlocking(sql: "SELECT * FROM no_such_table")
                    return nil
                } catch let error as DatabaseError {
                    return error
                }
            }
            #expect(error?.sqlState == "42P01")
        }
    }

    @Test func blockingOnAnEventLoopThrowsInsteadOfDeadlocking() async throws {
        try await PostgresTestServer.withSession { session in
            let outcome = try await session.connection.eventLoop.submit { () -> String in
                do {
                    try session.executeBlocking(sql: "SELECT 1")
                    return "ran"
                } catch let error as DatabaseError {
                    return error.isMisuse ? "misuse: \(error.message)" : "other: \(error)"
                } catch {
                    return "other: \(error)"
                }
            }.get()
            #expect(outcome.hasPrefix("misuse: PostgresSession.executeBlocking was called on an event loop thread"), "\(outcome)")
            // Any event loop of the group, not only the connection's.
            let onAnotherLoop = try await MultiThreadedEventLoopGroup.singleton.next().submit { () -> Bool in
                (try? session.executeBlocking(sql: "SELECT 1")) == nil
            }.get()
            #expect(onAnotherLoop)
            #expect(try await session.execute(sql: "SELECT 1").rows == [[.integer(1)]])
        }
    }

    @Test func concurrentSessions() async throws {
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: "CREATE TABLE shared (session int4, n int4, PRIMARY KEY (session, n))")
            let schema = try await session.execute(sql: "SELECT current_schema()").rows[0][0]
            let configuration = try PostgresTestServer.configuration
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sessionIndex in 0..<8 {
                    group.addTask {
                        let worker = try await PostgresSession.connect(to: configuration)
                        guard case .text(let name) = schema else { return }
                        try await worker.execute(sql: "SET search_path TO \(name)")
                        for n in 0..<100 {
                            try await worker.execute(sql: "INSERT INTO shared VALUES ($1, $2)", arguments: [.integer(Int64(sessionIndex)), .integer(Int64(n))])
                        }
                        try await worker.close()
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await session.execute(sql: "SELECT count(*), count(DISTINCT session) FROM shared").rows == [[.integer(800), .integer(8)]])

            // Concurrent statements on one session run one after the other.
            let sums = try await withThrowingTaskGroup(of: DatabaseValue.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await session.execute(sql: "SELECT sum(n) + $1::int8 FROM shared", arguments: [.integer(Int64(index))]).rows[0][0]
                    }
                }
                var sums: [DatabaseValue] = []
                for try await sum in group { sums.append(sum) }
                return sums
            }
            // sum(int4) is int8; 8 × (0 + … + 99) = 39600.
            #expect(Set(sums) == Set((0..<50).map { DatabaseValue.integer(Int64(39_600 + $0)) }))
        }
    }

    @Test func closedSessionThrows() async throws {
        let session = try await PostgresSession.connect(to: PostgresTestServer.configuration)
        #expect(!session.isClosed)
        try await session.close()
        #expect(session.isClosed)
        try await session.close()  // twice is fine
        do {
            try await session.execute(sql: "SELECT 1")
            Issue.record("a closed session ran a statement")
        } catch let error as DatabaseError {
            // connection_does_not_exist: never sent.
            #expect(error.sqlState == "08003", "\(error)")
            #expect(error.isConnectionError)
            #expect(!error.isCommitOutcomeUnknown)
            #expect(error.sql == "SELECT 1")
        }
    }

    @Test func applicationNameAndEncoding() async throws {
        var configuration = try PostgresTestServer.configuration
        configuration.applicationName = "quarry-tests"
        let session = try await PostgresSession.connect(to: configuration)
        #expect(try await session.execute(sql: "SELECT current_setting('application_name'), current_setting('client_encoding')").rows
            == [[.text("quarry-tests"), .text("UTF8")]])
        try await session.close()
    }

    @Test func connectWithURL() async throws {
        let session = try await PostgresSession.connect(url: try #require(PostgresTestServer.url))
        #expect(try await session.execute(sql: "SELECT current_database()").rows == [[.text(session.configuration.database)]])
        try await session.close()
    }

    // MARK: Threads

    /// Runs `body` on a new thread (not an event loop, not the cooperative pool).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }

    /// Connects from synchronous code (test helper: waits on a semaphore).
    static func connectBlocking() throws -> PostgresSession {
        let box = ResultBox<PostgresSession>()
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            do {
                box.set(.success(try await PostgresSession.connect(to: PostgresTestServer.configuration)))
            } catch {
                box.set(.failure(error))
            }
            semaphore.signal()
        }
        semaphore.wait()
        return try box.get()
    }

    static func closeBlocking(_ session: PostgresSession) throws {
        let box = ResultBox<Void>()
        let semaphore = DispatchSemaphore(value: 0)
        Task {
            do {
                box.set(.success(try await session.close()))
            } catch {
                box.set(.failure(error))
            }
            semaphore.signal()
        }
        semaphore.wait()
        try box.get()
    }
}

/// A result handed from a task to a waiting thread.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }
    func get() throws -> T { try lock.withLock { result! }.get() }
}
