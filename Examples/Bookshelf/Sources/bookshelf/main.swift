// bookshelf: runs the Bookshelf HTTP service (Hummingbird 2 over Quarry).
//
//     bookshelf --database bookshelf.sqlite --hostname 127.0.0.1 --port 8080
//
// The database path can also come from BOOKSHELF_DATABASE. SIGTERM or SIGINT
// stops it gracefully: requests in flight finish, then the database closes.

import ArgumentParser
import BookshelfService
import Foundation
import Hummingbird
import Logging

@main
struct Bookshelf: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookshelf",
        abstract: "A JSON bookshelf service: authors, books and reviews in SQLite.")

    @Option(name: .long, help: "The SQLite database file (default: $BOOKSHELF_DATABASE, else bookshelf.sqlite).")
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
        let path = database ?? ProcessInfo.processInfo.environment["BOOKSHELF_DATABASE"] ?? "bookshelf.sqlite"
        let configuration = BookshelfConfiguration(
            hostname: hostname, port: port, databasePath: path, logLevel: Logger.Level(rawValue: logLevel) ?? .info)
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
