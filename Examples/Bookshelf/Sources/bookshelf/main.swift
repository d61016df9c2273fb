// bookshelf: runs the Bookshelf HTTP service (Hummingbird 2 over Quarry), or
// backs up its database while it runs.
//
//     bookshelf --database bookshelf.sqlite --hostname 127.0.0.1 --port 8080
//     bookshelf --database postgres://bookshelf@db.internal:5432/bookshelf
//     bookshelf backup --database bookshelf.sqlite --to /backups/bookshelf.sqlite
//     bookshelf migrate status --database bookshelf.sqlite    (also: plan, apply)
//
// `serve` is the default subcommand. The database (an SQLite file path, or a
// postgres:// URL for PostgreSQL) can also come from BOOKSHELF_DATABASE. SIGTERM or SIGINT stops the server gracefully: requests
// in flight finish, then the database closes.

import ArgumentParser
import BookshelfService
import Foundation
import Hummingbird
import Logging
import QuarryMigrateCommand

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
    option ?? ProcessInfo.processInfo.environment["BOOKSHELF_DATABASE"] ?? "bookshelf.sqlite"
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs the HTTP service.")

    @Option(name: .long, help: ArgumentHelp(
        "The SQLite database file, or a PostgreSQL URL postgres://user[:password]@host[:port]/db "
            + "(default: $BOOKSHELF_DATABASE, else bookshelf.sqlite).", valueName: "path-or-url"))
    var database: String?

    @Option(name: .long, help: "The interface to listen on.")
    var hostname = "127.0.0.1"

    @Option(name: .long, help: "The TCP port.")
    var port = 8080

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
    }

    func run() async throws {
        let configuration = BookshelfConfiguration(
            hostname: hostname, port: port, databasePath: databasePath(database),
            logLevel: Logger.Level(rawValue: logLevel) ?? .info)
        let app = try await buildApplication(configuration)
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
