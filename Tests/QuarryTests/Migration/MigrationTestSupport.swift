// Test support for the migrator: a log handler that keeps what it receives,
// and small helpers reading the state of a migrated database.

import Foundation
import Logging
import Quarry

/// A log handler that keeps the messages and metadata it receives.
final class MigratorLogRecorder: LogHandler, @unchecked Sendable {
    struct Entry {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }
    private let lock = NSLock()
    private var storage: [Entry] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var entries: [Entry] { lock.withLock { storage } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { storage.append(Entry(level: event.level, message: event.message.description, metadata: event.metadata ?? [:])) }
    }

    var logger: Logger { Logger(label: "test.migrator") { _ in self } }
}

/// The rows of the `log` table that test migrations write to, in order.
func migrationLog(_ writer: any DatabaseReader) throws -> [String] {
    try writer.read { db throws in
        guard try db.tableExists("log") else { return [] }
        // A log with an id column (the shared tests': PostgreSQL has no rowid) is read in id order.
        let order = try db.columns(in: "log").contains { $0.name == "id" } ? "id" : "rowid"
        return try String.fetchAll(db, sql: "SELECT name FROM log ORDER BY \(order)")
    }
}
