// buildApplication: opens and migrates the database (an SQLite file or a
// PostgreSQL server), builds the router and the Hummingbird application that
// serves it.

import Hummingbird
import Logging
import Quarry

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

    /// The default ``eventsHeartbeat``: 15 seconds.
    public static let defaultEventsHeartbeat: Duration = .seconds(15)

    /// Makes a configuration; the defaults are those of the `bookshelf` command.
    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, databasePath: String = "bookshelf.sqlite", logLevel: Logger.Level = .info,
        eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat
    ) {
        self.hostname = hostname
        self.port = port
        self.databasePath = databasePath
        self.logLevel = logLevel
        self.eventsHeartbeat = eventsHeartbeat
    }
}

/// The router with every Bookshelf endpoint, reading and writing `database`;
/// `eventsHeartbeat` is the heartbeat of `GET /books/events`.
///
/// Every error becomes a JSON ``APIError`` body (see ``ErrorMiddleware``).
/// On PostgreSQL, the SQLite-only endpoints (search, the event stream)
/// answer 501.
public func buildRouter(
    database: BookshelfDatabase, eventsHeartbeat: Duration = BookshelfConfiguration.defaultEventsHeartbeat
) -> Router<BookshelfRequestContext> {
    let router = Router(context: BookshelfRequestContext.self)
    let (writer, backend) = (database.writer, database.backend)
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

/// Opens (and migrates) the database of `configuration` — a `DatabasePool`,
/// or a `PostgresDatabasePool` for a `postgres://` URL — and returns the
/// application serving it. Running the application
/// (`runService()`) handles SIGTERM and SIGINT gracefully: the server
/// finishes the requests in flight, then ``DatabaseCloser`` closes the pool.
///
/// - throws: when the database cannot be opened or migrated.
public func buildApplication(_ configuration: BookshelfConfiguration) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "bookshelf")
    logger.logLevel = configuration.logLevel
    let database = try await openBookshelfDatabase(location: configuration.databasePath, logger: logger)
    return buildApplication(configuration, database: database, logger: logger)
}

/// The application serving an already opened and migrated `database`; it
/// closes the pool when it shuts down.
public func buildApplication(
    _ configuration: BookshelfConfiguration, database: BookshelfDatabase, logger: Logger
) -> Application<RouterResponder<BookshelfRequestContext>> {
    var app = Application(
        router: buildRouter(database: database, eventsHeartbeat: configuration.eventsHeartbeat),
        configuration: .init(address: .hostname(configuration.hostname, port: configuration.port), serverName: "bookshelf"),
        logger: logger)
    app.addServices(DatabaseCloser(database: database.writer, logger: logger))
    return app
}
