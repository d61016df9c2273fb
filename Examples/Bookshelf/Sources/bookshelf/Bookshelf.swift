// bookshelf: runs the Bookshelf HTTP service (Hummingbird 2 over Quarry), or
// backs up its database while it runs.
//
//     bookshelf --database bookshelf.sqlite --hostname 127.0.0.1 --port 8080
//     bookshelf --database postgres://bookshelf@db.internal:5432/bookshelf
//     bookshelf backup --database bookshelf.sqlite --to /backups/bookshelf.sqlite
//     bookshelf migrate status --database bookshelf.sqlite    (also: plan, apply)
//
// `serve` is the default subcommand. The database (an SQLite file path, or a
// postgres:// URL for PostgreSQL), host, port, log level and OpenTelemetry
// switch can also come from BOOKSHELF_DATABASE, BOOKSHELF_HOSTNAME,
// BOOKSHELF_PORT, BOOKSHELF_LOG_LEVEL and BOOKSHELF_OTEL (flags win), and how
// often, on SQLite, other processes' commits are polled for the event stream
// from BOOKSHELF_FOREIGN_COMMIT_POLLING_MS. SIGTERM
// or SIGINT stops the server gracefully: requests in flight finish, then the
// database closes.

import ArgumentParser
import BookshelfService
import Foundation
import Hummingbird
import Logging
import Metrics
import QuarryMigrateCommand
import Tracing

@main
struct Bookshelf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookshelf",
        abstract: "A JSON bookshelf service: authors, books and reviews in SQLite or PostgreSQL.",
        subcommands: [Serve.self, Backup.self, MigrateCommand<BookshelfMigrations>.self],
        defaultSubcommand: Serve.self)
}

/// The database, a file path or a `postgres://` URL: `--database`, else
/// $BOOKSHELF_DATABASE, else bookshelf.sqlite.
func databasePath(_ option: String?) -> String {
    ServeSettings.databaseLocation(flag: option, environment: ProcessInfo.processInfo.environment)
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs the HTTP service.",
        discussion: """
            Each option falls back on an environment variable, then on its default: \
            --database on BOOKSHELF_DATABASE (bookshelf.sqlite), --hostname on BOOKSHELF_HOSTNAME (127.0.0.1), \
            --port on BOOKSHELF_PORT (8080), --log-level on BOOKSHELF_LOG_LEVEL (info), \
            --otel/--no-otel on BOOKSHELF_OTEL (off), --foreign-commit-polling-ms on \
            BOOKSHELF_FOREIGN_COMMIT_POLLING_MS (250). An invalid value, flag or variable, is an error. \
            Start-up: the database opens, then the migrations run inside the service group, before the \
            HTTP server listens; a failing migration stops the service with exit status 1.
            """)

    @Option(name: .long, help: ArgumentHelp(
        "The SQLite database file, or a PostgreSQL URL postgres://user[:password]@host[:port]/db "
            + "(default: $BOOKSHELF_DATABASE, else bookshelf.sqlite).", valueName: "path-or-url"))
    var database: String?

    @Option(name: .long, help: "The interface to listen on (default: $BOOKSHELF_HOSTNAME, else 127.0.0.1).")
    var hostname: String?

    @Option(name: .long, help: "The TCP port (default: $BOOKSHELF_PORT, else 8080).")
    var port: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Log level: trace, debug (also logs each SQL statement), info, notice, warning, error, critical "
            + "(default: $BOOKSHELF_LOG_LEVEL, else info).", valueName: "level"))
    var logLevel: String?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Export spans and metrics with OpenTelemetry (OTLP/HTTP to http://localhost:4318, or $OTEL_EXPORTER_OTLP_ENDPOINT) "
            + "(default: $BOOKSHELF_OTEL, else off)."))
    var otel: Bool?

    @Option(name: .customLong("foreign-commit-polling-ms"), help: ArgumentHelp(
        "On SQLite, how often to check for other processes' commits while GET /books/events streams run, so that "
            + "their books reach the streams; 0 never checks "
            + "(default: $BOOKSHELF_FOREIGN_COMMIT_POLLING_MS, else 250).", valueName: "milliseconds"))
    var foreignCommitPollingMilliseconds: Int?

    var flags: ServeFlags {
        ServeFlags(
            database: database, hostname: hostname, port: port, logLevel: logLevel, otel: otel,
            foreignCommitPollingMilliseconds: foreignCommitPollingMilliseconds)
    }

    /// The settings: flags, else the environment, else the defaults.
    func settings() throws -> ServeSettings {
        do {
            return try ServeSettings(flags: flags, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func validate() throws {
        _ = try settings()
    }

    func run() async throws {
        let settings = try settings()
        // Once per process, before any logger is made.
        // With OpenTelemetry on, each message carries the current span's
        // trace_id and span_id.
        LoggingSystem.bootstrap(
            { label, metadataProvider in
                var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
                handler.logLevel = settings.logLevel
                return handler
            }, metadataProvider: Observability.loggingMetadataProvider(settings))
        let observability = try Observability.bootstrap(settings)
        var configuration = settings.applicationConfiguration
        if settings.otel {
            // The backends swift-otel bootstrapped: for the pool's spans and
            // metrics, and (their being set) the router's tracing and
            // metrics middlewares.
            configuration.tracer = InstrumentationSystem.tracer
            configuration.metricsFactory = MetricsSystem.factory
        }
        let app = try await buildApplication(configuration, services: observability.services)
        try await app.runService()
    }
}

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Backs up the database into a file, also while the service runs, and checks the copy.",
        discussion: """
            Opens the database file as a pool of its own (no migrations, reads only) and \
            copies it 64 pages at a time in one read transaction: the server goes on writing, and the copy is \
            the database as of the start of the backup. The copy must then pass \
            PRAGMA integrity_check. SQLite only: back up a PostgreSQL database with pg_dump.
            """)

    @Option(name: .long, help: ArgumentHelp(
        "The SQLite database file to back up (default: $BOOKSHELF_DATABASE, else bookshelf.sqlite).", valueName: "path"))
    var database: String?

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "The backup file to write (replaced if it exists; its directory must exist).", valueName: "path"))
    var destination: String

    func run() async throws {
        let summary = try await backupDatabase(atPath: databasePath(database), toPath: destination)
        print(summary)
    }
}
