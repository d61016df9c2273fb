// DatabaseCloser: a ServiceLifecycle service that closes the database pool
// (SQLite or PostgreSQL) once the service group shuts down gracefully, after
// the HTTP server stopped.

import Logging
import Quarry
import ServiceLifecycle

/// Waits for graceful shutdown, then closes the pool.
///
/// Added to the Hummingbird `Application`'s services: the application's
/// `ServiceGroup` starts it before the HTTP server and, on SIGTERM or SIGINT,
/// shuts services down in reverse order — the server first (it finishes the
/// requests in flight), then this service, which closes the pool.
public struct DatabaseCloser: Service {
    /// The pool to close.
    public let database: any DatabaseWriter
    /// Where the closing is logged.
    public let logger: Logger

    /// Makes the service.
    public init(database: any DatabaseWriter, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Waits until shutdown (or cancellation), then closes the pool.
    public func run() async throws {
        // Returns on graceful shutdown; throws CancellationError on cancellation.
        try? await gracefulShutdown()
        database.close()
        // `path`: the file, or the PostgreSQL URL without its password.
        logger.info("database closed", metadata: ["path": "\(database.path)"])
    }
}

extension DatabaseCloser: CustomStringConvertible {
    /// `DatabaseCloser`: the service's name in ServiceLifecycle's logs.
    public var description: String { "DatabaseCloser" }
}
