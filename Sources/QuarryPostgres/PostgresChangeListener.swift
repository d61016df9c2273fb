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
// reset ever arrives) is found by a `SELECT 1` every `keepAliveInterval`.
//
// Every wait is bounded by the connect timeout, and none awaits a query that
// may never answer (PostgresNIO's queries ignore cancellation; see
// BoundedAwait.swift): connecting and confirming the LISTEN, together, and
// each keep-alive query. When the bound passes first, the session is closed,
// which ends what still waits on it: at start, the observation that started
// the listener gets the error; later, the listener connects again.

import Foundation
import Logging
import PostgresNIO
import Quarry
import Synchronization

final class PostgresChangeListener: ForeignCommitWatcher, @unchecked Sendable {
    /// How often the listening connection is checked, by default, when it
    /// receives nothing.
    static let keepAliveInterval = Duration.seconds(10)
    /// The longest pause between two connection attempts.
    static let maximumRetryDelay = Duration.seconds(5)

    private let feed: ForeignCommitFeed
    private let configuration: PostgresConfiguration
    private let logger: Logger?
    private let connectionLogger: Logger
    private let tuning: Tuning

    /// What tests change in the listeners of a pool
    /// (`PostgresDatabasePool.listenerTuning`).
    struct Tuning: Sendable {
        /// How often the listening connection is checked when it receives nothing.
        var keepAliveInterval = PostgresChangeListener.keepAliveInterval
        /// Runs on each new connection once it is logged in, before its
        /// `LISTEN` is sent: a test seam (a fault proxy switched to
        /// `.blackhole` there leaves the `LISTEN` unanswered).
        var willListen: (@Sendable () async -> Void)?
    }

    private struct State {
        var task: Task<Void, Never>?
        var isStopped = false
        /// The server process of the listening connection, while it listens.
        var backendPID: Int64?
        /// How many times the listener started listening.
        var listenCount = 0
    }
    private let state = Mutex(State())

    init(
        feed: ForeignCommitFeed, configuration: PostgresConfiguration, logger: Logger?, connectionLogger: Logger,
        tuning: Tuning = Tuning()
    ) {
        self.feed = feed
        self.configuration = configuration
        self.logger = logger
        self.connectionLogger = connectionLogger
        self.tuning = tuning
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
    ///
    /// Connecting and confirming take at most the connect timeout, together:
    /// past it, the session is closed and this throws, without waiting for
    /// the server's answers any longer.
    private func connectAndListen() async throws -> ListeningSession {
        let configuration = self.configuration
        let connectionLogger = self.connectionLogger
        let feed = self.feed
        let willListen = tuning.willListen
        let timeout = configuration.connectTimeout
        let opened = OpenedSession()
        let listened: (session: ListeningSession, backendPID: Int64)
        do {
            listened = try await awaitResult(
                within: timeout,
                timeoutError: {
                    DatabaseError(
                        sqlState: "08006",
                        message: "could not LISTEN on \(configuration): no answer within \(timeout) (PostgresConfiguration.connectTimeout)",
                        sql: "LISTEN \(PostgreSQLDialect.changeChannel)")
                },
                discardingLate: { late in await late.session.close() }
            ) {
                let session = try await PostgresSession.connect(to: configuration, logger: connectionLogger)
                guard opened.keep(session) else {
                    // The wait ended meanwhile.
                    try? await session.close()
                    throw CancellationError()
                }
                await willListen?()
                let listening = try await ListeningSession(session: session, feed: feed)
                let pid = try await session.execute(sql: "SELECT pg_backend_pid()")
                guard case .integer(let backendPID)? = pid.rows.first?.first else {
                    await listening.close()
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(configuration) did not tell its backend process id")
                }
                return (listening, backendPID)
            }
        } catch {
            // Ends what may still wait on the session (a LISTEN without answer).
            if let session = opened.abandon() { try? await session.close() }
            throw error
        }
        state.withLock {
            $0.backendPID = listened.backendPID
            $0.listenCount += 1
        }
        return listened.session
    }

    /// Listens until stopped, connecting again after each failure.
    private func run(from first: ListeningSession) async {
        var current: ListeningSession? = first
        var failures = 0
        while !Task.isCancelled {
            if let session = current {
                do {
                    try await session.waitForFailure(keepAlive: tuning.keepAliveInterval, timeout: configuration.connectTimeout)
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
    /// answer within `timeout` (then the session is closed at once, without
    /// waiting for the answer).
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
                    do {
                        _ = try await awaitResult(
                            within: timeout,
                            timeoutError: {
                                DatabaseError(
                                    sqlState: "08006",
                                    message: "the keep-alive query of the connection listening for notifications got no answer from \(session.configuration) within \(timeout) (PostgresConfiguration.connectTimeout)",
                                    sql: "SELECT 1")
                            }
                        ) { try await session.execute(sql: "SELECT 1") }
                    } catch {
                        // Ends the notifications, and the query if it still waits.
                        try? await session.close()
                        throw error
                    }
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
}

/// The session that `connectAndListen` opened, for the wait that gives up
/// on it to close it: kept by the connecting task unless the wait already
/// ended, then taken by the wait when it ends without a listening session.
private final class OpenedSession: Sendable {
    private let state = Mutex<(session: PostgresSession?, isAbandoned: Bool)>((nil, false))

    /// Keeps `session`; false when the wait has ended (close it yourself).
    func keep(_ session: PostgresSession) -> Bool {
        state.withLock { state in
            guard !state.isAbandoned else { return false }
            state.session = session
            return true
        }
    }

    /// Marks the wait ended and returns the session kept, if any.
    func abandon() -> PostgresSession? {
        state.withLock { state in
            state.isAbandoned = true
            defer { state.session = nil }
            return state.session
        }
    }
}
