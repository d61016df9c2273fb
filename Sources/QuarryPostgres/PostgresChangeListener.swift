// PostgresChangeListener: the foreign-commit watcher of a PostgresDatabasePool
// (Quarry's Core/ForeignCommitFeed.swift). One dedicated connection runs
// `LISTEN quarry_change` while observations run, and publishes the table
// each notification names (see PostgreSQLDialect+Notifications.swift for the
// trigger that sends them).
//
// Failures: when the listening connection ends (the server restarted, an
// administrator ran pg_terminate_backend, the network failed), notifications
// sent meanwhile are lost. The listener connects again, with a growing pause
// between attempts (0.1 s doubling up to 5 s), and once it listens again it
// publishes a change of unknown tables: every observation fetches again, so
// that none keeps a value a missed commit changed. A silent network (no
// reset ever arrives) is found by a `SELECT 1` every `keepAliveInterval`,
// bounded by the connect timeout.

import Foundation
import Logging
import PostgresNIO
import Quarry
import Synchronization

final class PostgresChangeListener: ForeignCommitWatcher, @unchecked Sendable {
    /// How often the listening connection is checked when it receives nothing.
    static let keepAliveInterval = Duration.seconds(10)
    /// The longest pause between two connection attempts.
    static let maximumRetryDelay = Duration.seconds(5)

    private let feed: ForeignCommitFeed
    private let configuration: PostgresConfiguration
    private let logger: Logger?
    private let connectionLogger: Logger

    private struct State {
        var task: Task<Void, Never>?
        var isStopped = false
        /// The server process of the listening connection, while it listens.
        var backendPID: Int64?
        /// How many times the listener started listening.
        var listenCount = 0
    }
    private let state = Mutex(State())

    init(feed: ForeignCommitFeed, configuration: PostgresConfiguration, logger: Logger?, connectionLogger: Logger) {
        self.feed = feed
        self.configuration = configuration
        self.logger = logger
        self.connectionLogger = connectionLogger
    }

    /// The server process of the listening connection (for tests that end it).
    var backendPID: Int64? { state.withLock { $0.backendPID } }

    /// How many times the listener started listening (1, plus one per reconnection).
    var listenCount: Int { state.withLock { $0.listenCount } }

    /// Connects and listens; throws when the first connection fails.
    func start() async throws {
        let session = try await connectAndListen()
        state.withLock { state in
            if state.isStopped {
                Task.detached { await session.close() }
                return
            }
            state.task = Task.detached { [self] in await run(from: session) }
        }
    }

    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.isStopped = true
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// A new connection that listens on the channel: `LISTEN` is confirmed
    /// when the statement that follows it on the connection answers.
    private func connectAndListen() async throws -> ListeningSession {
        let session = try await PostgresSession.connect(to: configuration, logger: connectionLogger)
        do {
            let listening = try await ListeningSession(session: session, feed: feed)
            let pid = try await session.execute(sql: "SELECT pg_backend_pid()")
            guard case .integer(let backendPID)? = pid.rows.first?.first else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(configuration) did not tell its backend process id")
            }
            state.withLock {
                $0.backendPID = backendPID
                $0.listenCount += 1
            }
            return listening
        } catch {
            try? await session.close()
            throw error
        }
    }

    /// Listens until stopped, connecting again after each failure.
    private func run(from first: ListeningSession) async {
        var current: ListeningSession? = first
        var failures = 0
        while !Task.isCancelled {
            if let session = current {
                do {
                    try await session.waitForFailure(keepAlive: Self.keepAliveInterval, timeout: configuration.connectTimeout)
                } catch {
                    if Task.isCancelled { break }
                    logger?.error(
                        "the connection listening for PostgreSQL notifications failed; reconnecting: \(error)",
                        metadata: ["server": "\(configuration)"])
                }
                await session.close()
                state.withLock { $0.backendPID = nil }
                current = nil
            }
            if Task.isCancelled { break }
            let delay = min(Self.maximumRetryDelay, .milliseconds(100) * (1 << min(failures, 6)))
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
            do {
                current = try await connectAndListen()
                failures = 0
                // Notifications were lost while no connection listened.
                feed.publish(ForeignCommit(tables: nil))
            } catch {
                failures += 1
                logger?.error(
                    "could not reconnect to listen for PostgreSQL notifications (attempt \(failures)): \(error)",
                    metadata: ["server": "\(configuration)"])
            }
        }
        await current?.close()
        state.withLock { $0.backendPID = nil }
    }
}

/// A session that listens on the change channel and publishes each
/// notification to a feed, until it fails or is closed.
private final class ListeningSession: Sendable {
    let session: PostgresSession
    private let consuming: Task<Void, any Error>

    init(session: PostgresSession, feed: ForeignCommitFeed) async throws {
        self.session = session
        let (listening, confirmation) = AsyncStream<Void>.makeStream()
        let connection = session.connection
        let started = Mutex(false)
        consuming = Task.detached {
            defer { confirmation.finish() }
            try await connection.listen(on: PostgreSQLDialect.changeChannel) { notifications in
                started.withLock { $0 = true }
                confirmation.finish()
                for try await notification in notifications {
                    feed.publish(ForeignCommit(tables: [notification.payload.lowercased()]))
                }
            }
        }
        // Ends when the listener started, or failed to.
        for await _ in listening {}
        guard started.withLock({ $0 }) else {
            consuming.cancel()
            throw DatabaseError(sqlState: "08006", message: "could not LISTEN on \(session.configuration)", sql: nil)
        }
        // The LISTEN request was queued first: the answer to a statement
        // after it means the server has run it.
        try await session.execute(sql: "SELECT 1")
    }

    /// Returns or throws when the connection stops listening: its
    /// notifications end, or a keep-alive `SELECT 1` fails or does not
    /// answer within `timeout`.
    func waitForFailure(keepAlive: Duration, timeout: Duration) async throws {
        let session = self.session
        let consuming = self.consuming
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await consuming.value
                } onCancel: {
                    consuming.cancel()
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: keepAlive)
                    try await Self.withTimeout(timeout) { try await session.execute(sql: "SELECT 1") }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
            throw DatabaseError(sqlState: "08006", message: "the server stopped sending notifications", sql: nil)
        }
    }

    func close() async {
        consuming.cancel()
        try? await session.close()
    }

    private static func withTimeout(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw DatabaseError(sqlState: "08006", message: "the keep-alive query got no answer within \(timeout)", sql: nil)
            }
        }
    }
}
