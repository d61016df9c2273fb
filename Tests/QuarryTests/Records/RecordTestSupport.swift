// Test support for records: the storage kinds every record test runs on, and
// a recorder of executed SQL.

import Foundation
import Quarry
import Testing

/// An in-memory queue, a file DatabaseQueue and a file DatabasePool.
enum Storage: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory = "in-memory DatabaseQueue"
    case queue = "file DatabaseQueue"
    case pool = "file DatabasePool"

    var testDescription: String { rawValue }

    /// Opens a writer; keep `directory` alive while using it.
    func make(in directory: TemporaryDirectory) throws -> any DatabaseWriter {
        switch self {
        case .memory: return try DatabaseQueue()
        case .queue: return try WriterKind.queue.make(in: directory)
        case .pool: return try WriterKind.pool.make(in: directory)
        }
    }
}

/// Collects the SQL of executed statements.
final class SQLRecorder {
    var statements: [String] = []

    /// Records the statements `body` executes on `db`.
    func record<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        db.trace { [unowned self] event in
            // SQLite also reports each trigger program run by a statement, which
            // the trace shows as a repeat of the statement's SQL: keep one.
            // A server runs `$1…$n` where SQLite runs `?`: the same SQL for the shared suites.
            guard case .statement(let traced) = event else { return }
            let sql = traced.replacingOccurrences(of: #"\$[0-9]+"#, with: "?", options: .regularExpression)
            if self.statements.last != sql { self.statements.append(sql) }
        }
        defer { db.trace(nil) }
        return try body()
    }

    /// The statements that are not schema lookups made by Quarry.
    var writes: [String] {
        statements.filter {
            !$0.hasPrefix("PRAGMA") && !$0.contains("pragma_") && !$0.contains("sqlite_master") && !$0.hasPrefix("SELECT rowid")
                && !$0.contains("pg_catalog.")
        }
    }
}
