// PostgresDatabasePool: Quarry's DatabaseWriter over a PostgreSQL server.
//
// The same `read`/`write` closures and `Database` API as SQLite's
// DatabaseQueue and DatabasePool, so that code written against
// `any DatabaseWriter` runs on both. What works on PostgreSQL so far is
// listed in the DocC article "PostgreSQL"; SQLite-only features throw.

import Logging
import Quarry
import Synchronization

/// A pool of connections to a PostgreSQL server, used like a `DatabasePool`.
///
/// ```swift
/// let dbPool = try PostgresDatabasePool(url: "postgres://app@db.internal:5432/app")
/// try dbPool.write { db in
///     try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
/// }
/// let names = try dbPool.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
/// ```
///
/// - `read` runs in a `REPEATABLE READ, READ ONLY` transaction: its queries
///   see one snapshot, and writes throw (SQLSTATE `25006`).
/// - `write` runs in a transaction at the server's default isolation level
///   (`READ COMMITTED`), which commits when the closure returns and rolls
///   back when it throws. Unlike SQLite's single writer, several writes may
///   run at once, each on its own connection.
/// - SQL uses Quarry's parameters (`?`, `:name`), sent as PostgreSQL's
///   `$1…$n`; scripts run one statement at a time.
public final class PostgresDatabasePool: DatabaseWriter, ForeignCommitSource {
    /// Internal, not private: tests reach its test seams.
    let pool: DatabaseServerPool

    /// The server, as a URL without password.
    public var path: String { pool.path }

    /// The configuration of the `Database` connections. Of its options,
    /// these apply to PostgreSQL: the preparation steps (those added with
    /// `prepareDatabase(_:)`, then the `prepareDatabase` property, run on
    /// each new connection: `try db.execute(sql: "SET search_path TO app")`,
    /// say), `readonly`, `maximumStatementDuration` (the server's
    /// `statement_timeout`), `logger`, `sqlLogLevel`, `tracer`,
    /// `metricsFactory`, `label`, and `publicStatementArguments` (which also
    /// keeps the server's error detail). The others configure SQLite.
    public var configuration: Configuration { pool.configuration }

    /// The server's address and login.
    public let postgresConfiguration: PostgresConfiguration

    /// The commits that observations learn of, from the connection that
    /// listens for the notifications of `createChangeNotificationTrigger(on:)`.
    package let foreignCommitFeed: ForeignCommitFeed?

    /// The listener that runs now, if any (for tests).
    var changeListener: PostgresChangeListener? { listener.current.withLock { $0 } }
    private let listener = ListenerBox()

    /// The keep-alive interval and test seam of the listeners the pool
    /// starts from now on (for tests).
    var listenerTuning: PostgresChangeListener.Tuning {
        get { listener.tuning.withLock { $0 } }
        set { listener.tuning.withLock { $0 = newValue } }
    }

    /// Connects to PostgreSQL: one connection at once, so that a wrong
    /// address or password throws here, and up to `maximumConnectionCount`
    /// as accesses need them.
    ///
    /// - Parameters:
    ///   - postgresConfiguration: The server, the login, TLS, and the
    ///     timeouts (``PostgresConfiguration/connectTimeout``,
    ///     ``PostgresConfiguration/acquisitionTimeout``,
    ///     ``PostgresConfiguration/statementDeadline``).
    ///   - maximumConnectionCount: The most connections open at once (8 by
    ///     default); mind the server's `max_connections` (100 by default),
    ///     shared by every process and replica.
    ///   - configuration: The SQL log, spans and metrics, the server's
    ///     statement timeout (`maximumStatementDuration`), `readonly`, and
    ///     the preparation steps of each connection.
    ///   - connectionLogger: Where PostgresNIO logs its own events
    ///     (connections, TLS, the protocol); nothing by default. The URL
    ///     parameters the pool ignores (``PostgresConfiguration/ignoredURLParameters``)
    ///     are logged once as a warning, to `configuration.logger` if set,
    ///     else to this logger.
    /// - Throws: `DatabaseError` when the first connection fails.
    public init(
        _ postgresConfiguration: PostgresConfiguration, maximumConnectionCount: Int = 8,
        configuration: Configuration = Configuration(), connectionLogger: Logger? = nil
    ) throws {
        self.postgresConfiguration = postgresConfiguration
        var connecting = postgresConfiguration
        // The server's statement timeout answers first: the client waits longer.
        if let limit = configuration.maximumStatementDuration, let deadline = connecting.statementDeadline,
            deadline < limit + .seconds(5)
        {
            connecting.statementDeadline = limit + .seconds(5)
        }
        let logger = connectionLogger ?? PostgresSession.silentLogger
        // URL parameters of libpq that PostgresNIO has no use for: said once,
        // names only (a value may be a secret).
        if !postgresConfiguration.ignoredURLParameters.isEmpty {
            (configuration.logger ?? logger).warning(
                "PostgreSQL URL parameters ignored (not supported by QuarryPostgres): \(postgresConfiguration.ignoredURLParameters.joined(separator: ", "))",
                metadata: ["server": "\(postgresConfiguration)"])
        }
        let keepsErrorDetail = configuration.publicStatementArguments
        pool = try DatabaseServerPool(
            description: postgresConfiguration.description, maximumConnectionCount: maximumConnectionCount,
            acquisitionTimeout: postgresConfiguration.acquisitionTimeout, configuration: configuration
        ) { [connecting] in
            try PostgresServerConnection.connect(to: connecting, logger: logger, keepsErrorDetail: keepsErrorDetail)
        }
        let current = listener
        foreignCommitFeed = ForeignCommitFeed { [connecting] feed in
            let made = PostgresChangeListener(
                feed: feed, configuration: connecting, logger: configuration.logger ?? connectionLogger, connectionLogger: logger,
                tuning: current.tuning.withLock { $0 })
            current.current.withLock { $0 = made }
            return made
        }
    }

    /// Connects to the server of a `postgres://` URL (see ``PostgresConfiguration/init(url:)``).
    ///
    /// - Throws: ``PostgresURLError`` for a malformed URL, `DatabaseError`
    ///   when the first connection fails.
    public convenience init(
        url: String, maximumConnectionCount: Int = 8, configuration: Configuration = Configuration(),
        connectionLogger: Logger? = nil
    ) throws {
        try self.init(
            PostgresConfiguration(url: url), maximumConnectionCount: maximumConnectionCount, configuration: configuration,
            connectionLogger: connectionLogger)
    }

    /// Closes the connections. Later accesses throw.
    public func close() { pool.close() }

    /// Stops the statements that run now on the pool's connections: each
    /// gets a cancel request (`pg_cancel_backend`, sent on a connection of
    /// its own), and fails with PostgreSQL's "query canceled" error, SQLSTATE
    /// `57014`. Returns at once, before the statements stop; statements that
    /// start later are not affected. Cancelling the task of an async access
    /// stops its statement the same way, and the access throws
    /// `CancellationError`.
    public func interrupt() { pool.interrupt() }

    /// Runs `block` in a read-only transaction that sees one snapshot.
    @discardableResult
    public func read<T>(_ block: (Database) throws -> T) throws -> T { try pool.read(block) }

    /// The async variant of `read(_:)`.
    @discardableResult
    public func read<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(block)
    }

    /// Runs `block` in a transaction that commits when it returns.
    @discardableResult
    public func write<T>(_ block: (Database) throws -> T) throws -> T { try pool.write(block) }

    /// The async variant of `write(_:)`.
    @discardableResult
    public func write<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write(block)
    }

    /// Runs `block` on a connection outside of any transaction.
    @discardableResult
    public func writeWithoutTransaction<T>(_ block: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction(block)
    }

    /// The async variant of `writeWithoutTransaction(_:)`.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction(block)
    }
}

/// The pool's current listener, set by its feed's factory.
private final class ListenerBox: Sendable {
    let current = Mutex<PostgresChangeListener?>(nil)
    let tuning = Mutex(PostgresChangeListener.Tuning())
}
