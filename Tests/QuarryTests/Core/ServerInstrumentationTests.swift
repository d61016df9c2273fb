// The SQL log, spans and metrics of a PostgreSQL pool, through the same
// Configuration properties as SQLite's (Core/Database+Trace.swift,
// Core/Instrumentation.swift): the statements sent to the server are
// logged, traced under their access's span with `db.system` =
// `postgresql`, and timed.

import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
@testable import Quarry
import Testing
import Tracing

@Suite(.enabled(if: Backend.postgresURL != nil, "QUARRY_POSTGRES_URL is not set"))
struct ServerInstrumentationTests {
    @Test func accessesAndStatementsAreSpansWithThePostgreSQLSystem() throws {
        let tracer = InMemoryTracer()
        var configuration = Configuration()
        configuration.tracer = tracer
        try Backend.postgres.withWriter(configuration: configuration) { writer in
            try writer.write { db in try db.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY, name TEXT)") }
            tracer.clearAll()
            try tracer.withSpan("GET /players") { _ in
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO player (id, name) VALUES (?, ?)", arguments: [1, "Arthur"])
                }
            }
            #expect(throws: DatabaseError.self) {
                try writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM nope") }
            }
        }
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "GET /players" })
        let write = try #require(spans.first { $0.operationName == "quarry.write" })
        #expect(write.parentSpanID == request.spanID)
        #expect(write.attributes.get("db.system") == .string("postgresql"))
        #expect(write.attributes.get("db.system.name") == .string("postgresql"))
        #expect(write.attributes.get("db.namespace") == .string("quarry_test"))
        let insert = try #require(spans.first { $0.operationName == "INSERT" })
        #expect(insert.parentSpanID == write.spanID)
        #expect(insert.attributes.get("db.system") == .string("postgresql"))
        // The statement as the server receives it.
        #expect(insert.attributes.get("db.query.text") == .string("INSERT INTO player (id, name) VALUES ($1, $2)"))
        #expect(spans.contains { $0.operationName == "BEGIN" && $0.parentSpanID == write.spanID })
        #expect(spans.contains { $0.operationName == "COMMIT" && $0.parentSpanID == write.spanID })
        // A statement the server refused records its error, as its access does.
        let failed = try #require(spans.first { $0.operationName == "SELECT" && $0.status?.code == .error })
        #expect(failed.errors.first?.error is DatabaseError)
        #expect(spans.first { $0.operationName == "quarry.read" }?.status?.code == .error)
    }

    @Test func statementsAreTimedAndConnectionWaitsRecorded() throws {
        let metrics = TestMetrics()
        var configuration = Configuration()
        configuration.metricsFactory = metrics
        configuration.label = "main"
        try Backend.postgres.withWriter(configuration: configuration) { writer in
            _ = try writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        }
        let durations = try metrics.expectTimer("quarry.statement.duration", [("role", "server"), ("db", "main")])
        #expect(!durations.values.isEmpty)
        #expect(durations.values.allSatisfy { $0 > 0 })
        let waits = try metrics.expectTimer("quarry.connection.wait", [("role", "server"), ("db", "main")])
        #expect(!waits.values.isEmpty)
    }

    @Test func theSQLLogHasTheStatementsAndTheArgumentsOnlyWhenPublic() throws {
        for publicArguments in [false, true] {
            let handler = CapturingLogHandler()
            var configuration = Configuration()
            configuration.logger = Logger(label: "sql") { _ in handler }
            configuration.sqlLogLevel = .info
            configuration.publicStatementArguments = publicArguments
            try Backend.postgres.withWriter(configuration: configuration) { writer in
                try writer.write { db in
                    try db.execute(sql: "CREATE TABLE t (v TEXT)")
                    try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: ["secret"])
                }
            }
            let messages = handler.messages.map(\.1)
            #expect(messages.contains("CREATE TABLE t (v TEXT)"))
            #expect(messages.contains { $0.hasPrefix("INSERT INTO t VALUES ($1)") })
            #expect(messages.contains { $0.contains("secret") } == publicArguments, "\(messages)")
            #expect(handler.messages.allSatisfy { $0.0 == .info })
        }
    }
}
