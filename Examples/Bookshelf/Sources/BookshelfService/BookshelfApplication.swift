// buildApplication: opens the database (an SQLite file or a PostgreSQL
// server), builds the router and the Hummingbird application that serves it,
// with the database's migrations as the application's start-up step.

import Hummingbird
import Logging
import Metrics
import Quarry
import ServiceLifecycle
import Tracing

/// What the service needs to start.
public struct BookshelfConfiguration: Sendable {
    /// The interface to listen on.
    public var hostname: String
    /// The TCP port (0 picks a free one).
    public var port: Int
    /// The SQLite database file, created if needed, or a PostgreSQL URL
    /// (`postgres://user@host:port/db`, see ``DatabaseBackend/init(location:)``).
    public var databasePath: String
    /// The log level of the service's loggers.
    public var logLevel: Logger.Level
    /// How often `GET /books/events` sends a heartbeat comment (which keeps
    /// proxies from closing an idle stream, and lets the server notice a
    /// client that went away).
    public var eventsHeartbeat: Duration
    /// On SQLite, how often the pool checks (`PRAGMA data_version`) whether
    /// another process committed to the file while `GET /books/events`
    /// streams run, so that their clients see the books another `bookshelf`
    /// process on the same file added (Quarry's
    /// `Configuration.foreignCommitPollingInterval`); nil for never. Ignored
    /// on PostgreSQL, where the server notifies every commit (LISTEN/NOTIFY).
    public var foreignCommitPollingInterval: Duration?
    /// Where the database pool sends spans (`Configuration.tracer`), or nil
    /// for none. The `bookshelf` command passes `InstrumentationSystem.tracer`.
    public var tracer: (any Tracer)?
    /// Where the database pool records metrics (`Configuration.metricsFactory`),
    /// or nil for none. The `bookshelf` command passes `MetricsSystem.factory`.
    public var metricsFactory: (any MetricsFactory)?

    /// The default ``eventsHeartbeat``: 15 seconds.
    public static let defaultEventsHeartbeat: Duration = .seconds(15)
    /// The default ``foreignCommitPollingInterval``: 250 milliseconds.
    public static let defaultForeignCommitPollingInterval: Duration = .milliseconds(250)

    /// Makes a configuration; the defaults are those of the `bookshelf` command.
    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, databasePath: String = "bookshelf.sqlite", logLevel: Logger.Level = .info,
        eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat,
        foreignCommitPollingInterval: Duration? = BookshelfConfiguration.defaultForeignCommitPollingInterval,
        tracer: (any Tracer)? = nil, metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.hostname = hostname
        self.port = port
        self.databasePath = databasePath
        self.logLevel = logLevel
        self.eventsHeartbeat = eventsHeartbeat
        self.foreignCommitPollingInterval = foreignCommitPollingInterval
        self.tracer = tracer
        self.metricsFactory = metricsFactory
    }
}

/// The router with every Bookshelf endpoint, reading and writing `database`;
/// `eventsHeartbeat` is the heartbeat of `GET /books/events`.
///
/// Every error becomes a JSON ``APIError`` body (see ``ErrorMiddleware``).
/// The endpoints are the same on both backends (`GET /books/search` picks a
/// query strategy per backend, see ``BookSearchStrategy``).
///
/// With `instrumented`, Hummingbird's `TracingMiddleware` and
/// `MetricsMiddleware` come first: each request is a span of the
/// bootstrapped tracer (`InstrumentationSystem.tracer`), the parent of the
/// database's spans, and is counted and timed by `MetricsSystem.factory`.
public func buildRouter(
    database: BookshelfDatabase, eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat,
    instrumented: Bool = false
) -> Router<BookshelfRequestContext> {
    let router = Router(context: BookshelfRequestContext.self)
    let (writer, backend) = (database.writer, database.backend)
    if instrumented {
        // Outermost, so that they see the status ErrorMiddleware gives an error.
        router.add(middleware: TracingMiddleware())
        router.add(middleware: MetricsMiddleware())
    }
    router.add(middleware: ErrorMiddleware())
    router.get("health") { _, _ in HealthStatus(status: "ok") }
    AuthorController(database: writer, backend: backend).addRoutes(to: router.group("authors"))
    BookController(database: writer, backend: backend).addRoutes(to: router.group("books"))
    BookImportController(database: writer).addRoutes(to: router.group("books"))
    BookEventsController(database: database, heartbeat: eventsHeartbeat).addRoutes(to: router.group("books"))
    BookSearchController(database: writer, backend: backend).addRoutes(to: router.group("books"))
    ReviewController(database: writer, backend: backend).addRoutes(to: router.group("reviews"))
    AuditController(database: writer).addRoutes(to: router.group("audit"))
    return router
}

/// Opens the database of `configuration` — a `DatabasePool`, or a
/// `PostgresDatabasePool` for a `postgres://` URL — with the pool
/// configuration ``BookshelfConfiguration/databaseConfiguration(logger:base:)``
/// (the service's logger for SQL, its tracer and metrics factory), and
/// returns the application serving it; the migrations run when the
/// application runs (see ``buildApplication(_:database:logger:services:schemaCheck:)``).
///
/// Running the application (`runService()`) handles SIGTERM and SIGINT
/// gracefully: the server finishes the requests in flight, then
/// ``DatabaseCloser`` closes the pool.
///
/// - parameters:
///   - services: services to run before, and stop after, all others (the
///     OpenTelemetry exporter, say, so that it exports the last spans).
///   - schemaCheck: a check of the schema after the migrations.
///   - databaseConfiguration: the base of the pool's configuration (its
///     `prepareDatabase` steps, say).
/// - throws: when the database cannot be opened. A migration that fails
///   makes running the application throw.
public func buildApplication(
    _ configuration: BookshelfConfiguration, services: [any Service] = [], schemaCheck: BookshelfSchemaCheck? = nil,
    databaseConfiguration: Configuration = Configuration()
) async throws -> Application<RouterResponder<BookshelfRequestContext>> {
    var logger = Logger(label: "bookshelf")
    logger.logLevel = configuration.logLevel
    let database = try connectBookshelfDatabase(
        location: configuration.databasePath,
        configuration: configuration.databaseConfiguration(logger: logger, base: databaseConfiguration))
    logger.info("database opened", metadata: ["database": "\(database.writer.path)", "backend": "\(database.backend)"])
    return buildApplication(configuration, database: database, logger: logger, services: services, schemaCheck: schemaCheck)
}

/// The application serving `database`, opened and maybe not migrated yet.
///
/// Start-up, when the application runs (in its service group): first
/// `services`, then the ``DatabaseCloser``; then, in Hummingbird's
/// `beforeServerStarts`, ``prepareBookshelfDatabase(_:logger:schemaCheck:)``
/// applies the migrations the database lacks and runs `schemaCheck`; only
/// then does the HTTP server listen. When that step throws, the server never
/// listens, the services shut down (the pool is closed) and running the
/// application throws the error. On shutdown the services stop in reverse
/// order: the server (requests in flight finish), the closer, then `services`.
/// With a ``BookshelfConfiguration/tracer`` or ``BookshelfConfiguration/metricsFactory``,
/// the router is instrumented (``buildRouter(database:eventsHeartbeat:instrumented:)``).
public func buildApplication(
    _ configuration: BookshelfConfiguration, database: BookshelfDatabase, logger: Logger, services: [any Service] = [],
    schemaCheck: BookshelfSchemaCheck? = nil
) -> Application<RouterResponder<BookshelfRequestContext>> {
    var app = Application(
        router: buildRouter(
            database: database, eventsHeartbeat: configuration.eventsHeartbeat,
            instrumented: configuration.tracer != nil || configuration.metricsFactory != nil),
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "bookshelf"),
        logger: logger)
    app.addServices(services)
    app.addServices(DatabaseCloser(database: database.writer, logger: logger))
    app.beforeServerStarts {
        try await prepareBookshelfDatabase(database, logger: logger, schemaCheck: schemaCheck)
    }
    return app
}
