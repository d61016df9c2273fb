// The service's database at start-up: the pool's Quarry configuration (SQL
// log, spans, metrics), opening the pool without migrating it, and the
// start-up step that migrates it (and checks its schema) inside the service
// lifecycle, before the HTTP server listens.

import Logging
import Metrics
import Quarry
import QuarryPostgres
import Tracing

/// A check of the migrated schema, run at start-up after the migrations and
/// before the HTTP server listens; throwing stops the service.
///
/// Runs after Quarry's own schema check of ``bookshelfRecordTypes``: see
/// ``prepareBookshelfDatabase(_:logger:schemaCheck:)``.
public typealias BookshelfSchemaCheck = @Sendable (BookshelfDatabase, Logger) async throws -> Void

extension BookshelfConfiguration {
    /// The Quarry `Configuration` of the service's pool: `base` (the default
    /// configuration, or one with a `prepareDatabase` step), with
    ///
    /// - `logger`: the service's logger, which logs each SQL statement at
    ///   `.debug` (Quarry's `sqlLogLevel`), so `--log-level debug` shows the SQL;
    /// - `tracer` and `metricsFactory`: ``tracer`` and ``metricsFactory``
    ///   (the `bookshelf` command passes the bootstrapped ones,
    ///   `InstrumentationSystem.tracer` and `MetricsSystem.factory`; Quarry
    ///   treats the no-op ones as none);
    /// - `label`: `bookshelf`, the `db` dimension of Quarry's metrics;
    /// - `foreignCommitPollingInterval`: ``foreignCommitPollingInterval``,
    ///   unless `base` has one (SQLite only: other processes' commits reach
    ///   the observations of `GET /books/events`).
    ///
    /// On PostgreSQL, Quarry does not use these options yet (only the
    /// preparation steps apply to a `PostgresDatabasePool`): they are set
    /// anyway, and take effect when QuarryPostgres supports them.
    public func databaseConfiguration(logger: Logger, base: Configuration = Configuration()) -> Configuration {
        var configuration = base
        configuration.logger = logger
        configuration.tracer = tracer
        configuration.metricsFactory = metricsFactory
        configuration.label = "bookshelf"
        configuration.foreignCommitPollingInterval = base.foreignCommitPollingInterval ?? foreignCommitPollingInterval
        return configuration
    }
}

/// Opens the database `location` names, without migrating it: a WAL
/// `DatabasePool` for a file (created if needed), a `PostgresDatabasePool` of
/// `maximumConnectionCount` connections for a `postgres://` URL (which
/// connects once, so that a wrong address or password throws here).
///
/// - throws: a `DatabaseError` when the file cannot be opened or the server
///   reached, a `PostgresURLError` for a malformed URL.
public func connectBookshelfDatabase(
    location: String, configuration: Configuration = Configuration(), maximumConnectionCount: Int = 8
) throws -> BookshelfDatabase {
    switch DatabaseBackend(location: location) {
    case .sqlite:
        return BookshelfDatabase(try DatabasePool(path: location, configuration: configuration))
    case .postgres:
        let pool = try PostgresDatabasePool(url: location, maximumConnectionCount: maximumConnectionCount, configuration: configuration)
        return BookshelfDatabase(writer: pool, backend: .postgres)
    }
}

/// The service's start-up step, run by ``buildApplication(_:database:logger:services:schemaCheck:)``
/// in Hummingbird's `beforeServerStarts`, inside the service group, before
/// the HTTP server listens: applies the migrations `database` lacks (each
/// logged by Quarry's migrator), then checks that the record types of
/// ``bookshelfRecordTypes`` match their tables (`checkingSchemaOf:`), then
/// runs `schemaCheck`.
///
/// Logs `migrating database`, then `database ready`; on failure, logs
/// `database start-up failed` at `.error` with the error, and rethrows it:
/// the server never listens, the service group shuts down (the
/// ``DatabaseCloser`` closes the pool), and `bookshelf` exits with status 1.
///
/// - throws: a `MigrationError` (or the `DatabaseError` of a failed
///   migration), Quarry's `SchemaCheckError` listing every mismatch, or the
///   error of `schemaCheck`.
public func prepareBookshelfDatabase(
    _ database: BookshelfDatabase, logger: Logger, schemaCheck: BookshelfSchemaCheck? = nil
) async throws {
    // `path`: the file, or the PostgreSQL URL without its password.
    let metadata: Logger.Metadata = ["database": "\(database.writer.path)", "backend": "\(database.backend)"]
    do {
        logger.info("migrating database", metadata: metadata)
        var migrator = makeBookshelfMigrator(backend: database.backend)
        migrator.logger = logger
        // Migrates, then checks that every stored record type matches its
        // table (Quarry's start-up schema check): a mismatch stops the
        // service now, not at the first request that meets it.
        try await migrator.migrate(database.writer, checkingSchemaOf: bookshelfRecordTypes)
        // A further check of the caller's (tests make one fail on purpose).
        if let schemaCheck {
            try await schemaCheck(database, logger)
        }
        logger.info("database ready", metadata: metadata)
    } catch {
        var metadata = metadata
        metadata["error"] = "\(error)"
        logger.error("database start-up failed; the service stops", metadata: metadata)
        throw error
    }
}

/// The record types stored in the service's tables, which start-up checks
/// against the live schema (Quarry's `checkSchema(of:)`).
public var bookshelfRecordTypes: [any (TableRecord & Decodable).Type] {
    [Author.self, Book.self, Review.self, BookStats.self, AuditEntry.self]
}
