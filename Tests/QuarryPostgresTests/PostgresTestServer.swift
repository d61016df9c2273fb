// The PostgreSQL server the tests run against: QUARRY_POSTGRES_URL, as
// `bash scripts/postgres-server.sh env` prints it. Without it, the suites that
// need a server are disabled and each prints one line saying why, so that
// `swift test` stays one command on a machine without PostgreSQL.

import Foundation
import Quarry
import QuarryPostgres
import Testing

enum PostgresTestServer {
    /// The server's URL, or nil when the tests must skip.
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }()

    /// The reason the server suites skip.
    static let skipReason = "QUARRY_POSTGRES_URL is not set; to run the PostgreSQL tests: bash scripts/postgres-server.sh start && eval \"$(bash scripts/postgres-server.sh env)\" && swift test"

    // One flag per suite, so that each prints its line once.
    static let valueSuiteEnabled = isConfigured(for: "PostgresValueTests")
    static let sessionSuiteEnabled = isConfigured(for: "PostgresSessionTests")
    static let errorSuiteEnabled = isConfigured(for: "PostgresErrorTests")

    /// Whether a server is configured; when not, prints one line for `suite`.
    static func isConfigured(for suite: String) -> Bool {
        if url == nil { print("\(suite) skipped: \(skipReason)") }
        return url != nil
    }

    static var configuration: PostgresConfiguration {
        get throws { try PostgresConfiguration(url: url ?? "postgres://unset@127.0.0.1/unset") }
    }

    /// Runs `body` with a new session whose `search_path` is a new schema of
    /// its own, dropped afterwards with everything in it, so that tests never
    /// see each other's tables.
    static func withSession<T>(_ body: (PostgresSession) async throws -> T) async throws -> T {
        let session = try await PostgresSession.connect(to: configuration)
        let schema = "quarry_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        do {
            try await session.execute(sql: "CREATE SCHEMA \(schema)")
            try await session.execute(sql: "SET search_path TO \(schema)")
            let result = try await body(session)
            try await session.execute(sql: "DROP SCHEMA \(schema) CASCADE")
            try await session.close()
            return result
        } catch {
            if !session.isClosed {
                _ = try? await session.execute(sql: "DROP SCHEMA IF EXISTS \(schema) CASCADE")
            } else if let cleanup = try? await PostgresSession.connect(to: configuration) {
                _ = try? await cleanup.execute(sql: "DROP SCHEMA IF EXISTS \(schema) CASCADE")
                try? await cleanup.close()
            }
            try? await session.close()
            throw error
        }
    }

    /// Runs `body` with a pool whose connections all use a new schema of
    /// their own (`search_path`), dropped afterwards with everything in it:
    /// record types keep fixed table names, and tests still never see each
    /// other's tables.
    ///
    /// `server` and `configure` adjust the server's configuration (the URL's,
    /// or another server's) and the pool's.
    static func withPool<T>(
        maximumConnectionCount: Int = 4, server: PostgresConfiguration? = nil,
        configure: (inout Configuration) -> Void = { _ in },
        _ body: (PostgresDatabasePool) async throws -> T
    ) async throws -> T {
        let schema = "quarry_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let serverConfiguration = try server ?? configuration
        // The pool's application name, if any, stays the pool's own.
        var adminConfiguration = serverConfiguration
        adminConfiguration.applicationName = nil
        let admin = try await PostgresSession.connect(to: adminConfiguration)
        try await admin.execute(sql: "CREATE SCHEMA \(schema)")
        var poolConfiguration = Configuration()
        configure(&poolConfiguration)
        poolConfiguration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
        func dropSchema() async {
            _ = try? await admin.execute(sql: "DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try? await admin.close()
        }
        let pool: PostgresDatabasePool
        do {
            pool = try PostgresDatabasePool(
                serverConfiguration, maximumConnectionCount: maximumConnectionCount, configuration: poolConfiguration)
        } catch {
            await dropSchema()
            throw error
        }
        do {
            let result = try await body(pool)
            pool.close()
            await dropSchema()
            return result
        } catch {
            pool.close()
            await dropSchema()
            throw error
        }
    }
}

/// In CI (`CI=true`, which `.ci/run` sets for `swift test`), the PostgreSQL
/// suites must run: without a server they would all skip and the run pass.
/// `scripts/postgres-ran.sh` checks the same from the run's output.
@Suite struct PostgresTestServerTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CI"] == "true", "CI is not true"))
    func ciConfiguresAServer() {
        #expect(PostgresTestServer.url != nil, "CI=true and QUARRY_POSTGRES_URL is not set: the PostgreSQL tests would not run. \(PostgresTestServer.skipReason)")
    }
}
