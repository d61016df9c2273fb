// Tests of SQL logging through swift-log.

import Foundation
import Logging
import Quarry
import Testing

/// A log handler that keeps the messages it receives.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [(Logger.Level, String)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [(Logger.Level, String)] { lock.withLock { storage } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { storage.append((event.level, event.message.description)) }
    }
}

@Suite struct LoggingTests {
    @Test func logsEachStatementWithoutArguments() throws {
        let handler = CapturingLogHandler()
        var configuration = Configuration()
        configuration.logger = Logger(label: "sql") { _ in handler }
        configuration.sqlLogLevel = .info
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE t (v TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
        }
        let messages = handler.messages.map(\.1)
        #expect(messages.contains("CREATE TABLE t (v TEXT)"))
        #expect(messages.contains("INSERT INTO t VALUES (?)"))
        #expect(!messages.contains { $0.contains("secret") })
        #expect(handler.messages.allSatisfy { $0.0 == .info })
    }

    @Test func publicArgumentsAreExpanded() throws {
        let handler = CapturingLogHandler()
        var configuration = Configuration()
        configuration.logger = Logger(label: "sql") { _ in handler }
        configuration.publicStatementArguments = true
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE t (v TEXT UNIQUE)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["visible"])
            let error = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["visible"])
            }
            _ = error
        }
        #expect(handler.messages.map(\.1).contains("INSERT INTO t VALUES ('visible')"))
    }
}
