// Errors of PostgresSession against the real server: real constraint
// violations and other server errors keep PostgreSQL's SQLSTATE and message
// and answer Quarry's helpers; failures to connect name the host, port and
// database and never hang. Skips without QUARRY_POSTGRES_URL.

import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres
import Testing

@Suite(.enabled(if: PostgresTestServer.errorSuiteEnabled, "no QUARRY_POSTGRES_URL"))
struct PostgresErrorTests {
    /// The error of `sql` after a small schema with constraints.
    private func error(of sql: String, arguments: [DatabaseValue] = []) async throws -> DatabaseError {
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: """
                CREATE TABLE team (id int8 PRIMARY KEY)
                """)
            try await session.execute(sql: """
                CREATE TABLE player (
                    id int8 PRIMARY KEY,
                    email text UNIQUE,
                    score int4 NOT NULL CHECK (score >= 0),
                    team_id int8 REFERENCES team (id))
                """)
            try await session.execute(sql: "INSERT INTO team VALUES (1)")
            try await session.execute(sql: "INSERT INTO player VALUES (1, 'a@x.org', 1, 1)")
            do {
                try await session.execute(sql: sql, arguments: arguments)
            } catch let error as DatabaseError {
                // The session is still usable after an error.
                #expect(try await session.execute(sql: "SELECT count(*) FROM player").rows == [[.integer(1)]])
                return error
            }
            Issue.record("no error for \(sql)")
            return DatabaseError(resultCode: .SQLITE_OK, message: "none")
        }
    }

    @Test func uniqueViolation() async throws {
        let sql = "INSERT INTO player VALUES ($1, $2, $3, NULL)"
        let error = try await error(of: sql, arguments: [2, "a@x.org", 5])
        #expect(error.sqlState == "23505")
        #expect(error.isUniqueConstraintViolation && error.isConstraintViolation)
        #expect(!error.isForeignKeyViolation && !error.isNotNullConstraintViolation && !error.isCheckConstraintViolation)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
        #expect(error.message == "duplicate key value violates unique constraint \"player_email_key\"")
        #expect(error.sql == sql)
        #expect(error.arguments == nil)
        // The detail, which repeats the key's value, is left out.
        #expect(!error.description.contains("a@x.org"))
        #expect(error.description.hasPrefix("PostgreSQL error 23505: duplicate key value"))

        let primaryKey = try await self.error(of: "INSERT INTO player VALUES (1, 'b@x.org', 5, NULL)")
        #expect(primaryKey.isUniqueConstraintViolation && primaryKey.message.contains("player_pkey"))
    }

    @Test func foreignKeyViolation() async throws {
        let error = try await error(of: "INSERT INTO player VALUES (2, 'b@x.org', 5, $1)", arguments: [99])
        #expect(error.sqlState == "23503")
        #expect(error.isForeignKeyViolation && error.isConstraintViolation && !error.isUniqueConstraintViolation)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)
        #expect(error.message.contains("violates foreign key constraint \"player_team_id_fkey\""))
        let delete = try await self.error(of: "DELETE FROM team")
        #expect(delete.isForeignKeyViolation)
    }

    @Test func notNullViolation() async throws {
        let error = try await error(of: "INSERT INTO player VALUES (2, 'b@x.org', $1, NULL)", arguments: [.null])
        #expect(error.sqlState == "23502")
        #expect(error.isNotNullConstraintViolation && error.isConstraintViolation)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL)
        #expect(error.message.contains("\"score\""))
    }

    @Test func checkViolation() async throws {
        let error = try await error(of: "UPDATE player SET score = $1", arguments: [-1])
        #expect(error.sqlState == "23514")
        #expect(error.isCheckConstraintViolation && error.isConstraintViolation)
        #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
        #expect(error.message.contains("player_score_check"))
    }

    @Test(arguments: [
        ("SELEC 1", "42601", ResultCode.SQLITE_ERROR, "syntax error at or near \"SELEC\""),
        ("SELECT * FROM no_such_table", "42P01", .SQLITE_ERROR, "relation \"no_such_table\" does not exist"),
        ("SELECT no_such_column FROM player", "42703", .SQLITE_ERROR, "column \"no_such_column\" does not exist"),
        ("SELECT 1 / 0", "22012", .SQLITE_ERROR, "division by zero"),
        ("SELECT 'abc'::int4", "22P02", .SQLITE_MISMATCH, "invalid input syntax for type integer: \"abc\""),
        ("SELECT 1; SELECT 2", "42601", .SQLITE_ERROR, "cannot insert multiple commands into a prepared statement"),
        ("SELECT $1::text", "08P01", .SQLITE_MISUSE, "bind message supplies 0 parameters"),
    ])
    func otherServerErrors(sql: String, sqlState: String, code: ResultCode, message: String) async throws {
        let error = try await error(of: sql)
        #expect(error.sqlState == sqlState)
        #expect(error.extendedResultCode == code)
        #expect(error.message.hasPrefix(message), "\(error.message)")
        #expect(error.sql == sql)
        #expect(!error.isConstraintViolation)
    }

    @Test func integerPayloadInATextOnlyPositionIsRefused() async throws {
        let error = try await error(of: "INSERT INTO player VALUES ($1, 'b@x.org', 1, NULL)", arguments: ["not a number"])
        #expect(error.sqlState == "22P02")
    }

    @Test func nulCharacterInTextIsRefused() async throws {
        let error = try await error(of: "SELECT $1::text", arguments: ["a\u{0}b"])
        #expect(error.sqlState == "22021")
    }

    @Test func serializationFailureIsBusy() async throws {
        try await PostgresTestServer.withSession { session in
            try await session.execute(sql: "CREATE TABLE counter (id int4 PRIMARY KEY, n int4)")
            try await session.execute(sql: "INSERT INTO counter VALUES (1, 0)")
            let schema = try await session.execute(sql: "SELECT current_schema()").rows[0][0]
            guard case .text(let name) = schema else {
                Issue.record("current_schema() answered \(schema), not a name")
                return
            }
            let other = try await PostgresSession.connect(to: PostgresTestServer.configuration)
            try await other.execute(sql: "SET search_path TO \(name)")
            try await session.execute(sql: "BEGIN ISOLATION LEVEL REPEATABLE READ")
            #expect(try await session.execute(sql: "SELECT n FROM counter").rows == [[.integer(0)]])
            try await other.execute(sql: "UPDATE counter SET n = n + 1")
            do {
                try await session.execute(sql: "UPDATE counter SET n = n + 1")
                Issue.record("no serialization failure")
            } catch let error as DatabaseError {
                #expect(error.sqlState == "40001")
                #expect(error.isBusy)
            }
            try await session.execute(sql: "ROLLBACK")
            try await other.close()
        }
    }

    // MARK: Connection failures

    @Test func refusedPortNamesHostPortAndDatabase() async throws {
        let port = try await Self.closedPort()
        do {
            let session = try await PostgresSession.connect(
                to: PostgresConfiguration(host: "127.0.0.1", port: port, user: "postgres", database: "some_db", connectTimeout: .seconds(30)))
            try await session.close()
            Issue.record("connected to a closed port")
        } catch let error as DatabaseError {
            #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
            #expect(error.message.contains("\"some_db\""))
            #expect(error.resultCode == .SQLITE_CANTOPEN)
            // sqlclient_unable_to_establish_sqlconnection
            #expect(error.sqlState == "08001")
            #expect(error.isConnectionError)
            // The refusal ended the attempt, not the 30 s connect timeout:
            // it does not hang (a check that no load on the machine can
            // fail, unlike a bound on the elapsed time).
            #expect(!error.message.contains("connect timeout"), "\(error.message)")
        }
    }

    @Test func missingDatabaseNamesHostPortAndDatabase() async throws {
        var configuration = try PostgresTestServer.configuration
        configuration.database = "no_such_database_for_quarry"
        do {
            let session = try await PostgresSession.connect(to: configuration)
            try await session.close()
            Issue.record("connected to a missing database")
        } catch let error as DatabaseError {
            #expect(error.sqlState == "3D000")
            #expect(error.resultCode == .SQLITE_CANTOPEN)
            #expect(error.message.contains("\(configuration.host):\(configuration.port)"), "\(error.message)")
            #expect(error.message.contains("\"no_such_database_for_quarry\""))
            #expect(error.message.contains("does not exist"))
        }
    }

    /// A listener on 127.0.0.1 that accepts connections and never answers.
    private static func silentServer() async throws -> (channel: any Channel, port: Int) {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0).get()
        return (server, try #require(server.localAddress?.port))
    }

    @Test func silentServerTimesOut() async throws {
        // PostgresNIO waits for the server's first message, and the connect
        // timeout ends it (PostgresNIO's own or PostgresSession's, whichever
        // fires first).
        let (server, port) = try await Self.silentServer()
        for mode in [PostgresConfiguration.SSLMode.disable, .prefer] {
            let start = ContinuousClock.now
            do {
                let session = try await PostgresSession.connect(
                    to: PostgresConfiguration(host: "127.0.0.1", port: port, user: "postgres", database: "db", sslMode: mode, connectTimeout: .seconds(1)))
                try await session.close()
                Issue.record("connected to a silent server")
            } catch let error as DatabaseError {
                #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
                #expect(error.message.lowercased().contains("connect timeout"), "\(error.message)")
                #expect(error.resultCode == .SQLITE_CANTOPEN)
                #expect(error.sqlState == "08001")
            }
            // Not before the configured timeout. (Its upper bound is checked
            // by connectTimeoutEndsAConnectionAtTheConfiguredBound: this async
            // path resumes on Swift's cooperative threads, which the suite's
            // synchronous tests can hold for tens of seconds.)
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .seconds(1), "\(mode): gave up after \(elapsed), before the 1 s connect timeout")
        }
        try await server.close()
    }

    /// The connect timeout of a pool (the blocking connection, timed by an
    /// event loop) against a server that never answers: the error is the
    /// timeout's, after the configured time and not much later. Timed on a
    /// thread of its own (OwnThread.swift), so that the bound measures the
    /// pool, not how busy Swift's cooperative threads are.
    @Test func connectTimeoutEndsAConnectionAtTheConfiguredBound() async throws {
        let (server, port) = try await Self.silentServer()
        let timeout: Duration = .seconds(2)
        let (error, elapsed) = try await onOwnThread { () -> (DatabaseError?, Duration) in
            let start = ContinuousClock.now
            do {
                let pool = try PostgresDatabasePool(
                    PostgresConfiguration(host: "127.0.0.1", port: port, user: "postgres", database: "db", sslMode: .disable, connectTimeout: timeout),
                    maximumConnectionCount: 1)
                pool.close()
                return (nil, ContinuousClock.now - start)
            } catch let error as DatabaseError {
                return (error, ContinuousClock.now - start)
            }
        }
        try await server.close()
        let timedOut = try #require(error, "connected to a silent server")
        #expect(timedOut.message.contains("connect timeout"), "\(timedOut.message)")
        #expect(timedOut.message.contains("127.0.0.1:\(port)"), "\(timedOut.message)")
        #expect(timedOut.sqlState == "08001" && timedOut.isConnectionError)
        // At least the configured time; at most that and a generous slack
        // for a loaded machine under the sanitizers (the pool waits on its
        // own thread, the timer runs on an event loop: no cooperative thread).
        #expect(elapsed >= timeout, "gave up after \(elapsed), before the \(timeout) connect timeout")
        #expect(elapsed < timeout + .seconds(30), "gave up after \(elapsed), long after the \(timeout) connect timeout")
    }

    @Test func requireTLSAgainstAServerWithoutTLS() async throws {
        // The test server has no TLS: sslmode=require must fail, not fall back.
        var configuration = try PostgresTestServer.configuration
        configuration.sslMode = .require
        do {
            let session = try await PostgresSession.connect(to: configuration)
            try await session.close()
            Issue.record("connected without TLS under sslmode=require")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .SQLITE_CANTOPEN)
            #expect(error.message.contains("\(configuration.host):\(configuration.port)"), "\(error.message)")
        }
        // sslmode=prefer falls back to plain text.
        configuration.sslMode = .prefer
        let session = try await PostgresSession.connect(to: configuration)
        #expect(try await session.execute(sql: "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").rows == [[.integer(0)]])
        try await session.close()
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound, then released).
    static func closedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        return port
    }
}
