// Tests of the opt-in observability: spans (Configuration.tracer, with
// swift-distributed-tracing's InMemoryTracer) and metrics
// (Configuration.metricsFactory, with swift-metrics' TestMetrics).

import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
@testable import Quarry
import Testing
import Tracing

private func makeWriter(_ kind: WriterKind, in directory: TemporaryDirectory, _ configure: (inout Configuration) -> Void) throws -> any DatabaseWriter {
    var configuration = Configuration()
    configure(&configuration)
    return try kind.make(in: directory, configuration: configuration)
}

/// A writer that reports to a new in-memory tracer, with `schema` created and
/// its spans cleared.
private func makeTracedWriter(
    _ kind: WriterKind, in directory: TemporaryDirectory, schema: String
) throws -> (InMemoryTracer, any DatabaseWriter) {
    let tracer = InMemoryTracer()
    let writer = try makeWriter(kind, in: directory) { $0.tracer = tracer }
    try writer.write { db throws in try db.execute(sql: schema) }
    tracer.clearAll()
    return (tracer, writer)
}

@Suite struct TracingTests {
    @Test(arguments: WriterKind.allCases)
    func everyAccessAndStatementIsASpanUnderTheCallersSpan(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let (tracer, writer) = try makeTracedWriter(kind, in: directory, schema: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")

        try tracer.withSpan("GET /players") { _ in
            try writer.write { db throws in
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Arthur"])
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["Barbara"])
            }
            _ = try writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY name") }
        }
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "GET /players" })
        let write = try #require(spans.first { $0.operationName == "quarry.write" })
        let read = try #require(spans.first { $0.operationName == "quarry.read" })
        #expect(write.parentSpanID == request.spanID && read.parentSpanID == request.spanID)
        #expect(write.attributes.get("db.system.name") == .string("sqlite"))
        #expect(write.attributes.get("db.namespace") == .string("db.sqlite"))

        let inserts = spans.filter { $0.operationName == "INSERT" }
        #expect(inserts.count == 2)
        #expect(inserts.allSatisfy { $0.parentSpanID == write.spanID })
        // Without publicStatementArguments, the SQL keeps its parameters.
        #expect(inserts.first?.attributes.get("db.query.text") == .string("INSERT INTO player (name) VALUES (?)"))
        #expect(inserts.first?.attributes.get("db.operation.name") == .string("INSERT"))

        let select = try #require(spans.first { $0.operationName == "SELECT" && $0.parentSpanID == read.spanID })
        #expect(select.attributes.get("db.response.returned_rows") == .int64(2))
        // Transaction control is traced too, under the access.
        #expect(spans.contains { $0.operationName == "BEGIN" && $0.parentSpanID == write.spanID })
        #expect(spans.contains { $0.operationName == "COMMIT" && $0.parentSpanID == write.spanID })
    }

    @Test func asyncAccessesAreChildrenOfTheTasksSpan() async throws {
        let tracer = InMemoryTracer()
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(.pool, in: directory) { $0.tracer = tracer }
        try await tracer.withSpan("job") { _ in
            try await writer.write { db in try db.execute(sql: "CREATE TABLE t (v)") }
            _ = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        }
        let spans = tracer.finishedSpans
        let job = try #require(spans.first { $0.operationName == "job" })
        #expect(spans.filter { $0.parentSpanID == job.spanID }.map(\.operationName).sorted() == ["quarry.read", "quarry.write"])
        let create = try #require(spans.first { $0.operationName == "CREATE" })
        let write = try #require(spans.first { $0.operationName == "quarry.write" })
        #expect(create.parentSpanID == write.spanID)
    }

    @Test func publicStatementArgumentsPutTheValuesInTheQueryText() throws {
        let tracer = InMemoryTracer()
        let dbQueue = try DatabaseQueue(configuration: {
            var configuration = Configuration()
            configuration.tracer = tracer
            configuration.publicStatementArguments = true
            return configuration
        }())
        _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT ? + 1", arguments: [41]) }
        #expect(tracer.finishedSpans.contains { $0.attributes.get("db.query.text") == .string("SELECT 41 + 1") })
    }

    @Test(arguments: WriterKind.allCases)
    func aFailingStatementRecordsItsErrorOnItsSpanAndTheAccessSpan(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let (tracer, writer) = try makeTracedWriter(kind, in: directory, schema: "CREATE TABLE t (v UNIQUE)")
        #expect(throws: DatabaseError.self) {
            try writer.write { db throws in try db.execute(sql: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)") }
        }
        let spans = tracer.finishedSpans
        let failed = spans.filter { $0.operationName == "INSERT" && $0.status?.code == .error }
        #expect(failed.count == 1)
        #expect(failed.first?.errors.first?.error is DatabaseError)
        let write = try #require(spans.first { $0.operationName == "quarry.write" })
        #expect(write.status?.code == .error)
        // A statement that does not compile never started: only the access records it.
        tracer.clearAll()
        #expect(throws: DatabaseError.self) { try writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM nope") } }
        #expect(tracer.finishedSpans.first { $0.operationName == "quarry.read" }?.status?.code == .error)
    }

    /// The no-op backends, what the global systems hold until a backend is
    /// bootstrapped, turn nothing on: no trace callback, no clock reads.
    @Test func noOpBackendsAreTheSameAsNone() throws {
        var configuration = Configuration()
        configuration.tracer = NoOpTracer()
        configuration.metricsFactory = NOOPMetricsHandler.instance
        #expect(Instrumentation(configuration: configuration, path: "db.sqlite", role: "queue") == nil)
        configuration.metricsFactory = TestMetrics()
        #expect(Instrumentation(configuration: configuration, path: "db.sqlite", role: "queue")?.tracer == nil)
        configuration.tracer = InMemoryTracer()
        #expect(Instrumentation(configuration: configuration, path: "db.sqlite", role: "queue")?.tracer != nil)
    }

    @Test func withoutATracerNothingIsReported() throws {
        let tracer = InMemoryTracer()
        let dbQueue = try DatabaseQueue()
        try tracer.withSpan("outer") { _ in
            _ = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        }
        #expect(tracer.finishedSpans.map(\.operationName) == ["outer"])
    }
}

@Suite struct MetricsTests {
    @Test(arguments: WriterKind.allCases)
    func connectionWaitsAndStatementDurationsAreTimed(kind: WriterKind) async throws {
        let metrics = TestMetrics()
        let directory = try TemporaryDirectory()
        let writer = try makeWriter(kind, in: directory) {
            $0.metricsFactory = metrics
            $0.label = "main"
        }
        try await writer.write { db in try db.execute(sql: "CREATE TABLE t (v)") }
        _ = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        let writerRole = kind == .queue ? "queue" : "writer"
        let readerRole = kind == .queue ? "queue" : "reader"
        let writeWait = try metrics.expectTimer("quarry.connection.wait", [("role", writerRole), ("db", "main")])
        let readWait = try metrics.expectTimer("quarry.connection.wait", [("role", readerRole), ("db", "main")])
        #expect(!writeWait.values.isEmpty && !readWait.values.isEmpty)
        #expect(writeWait.values.allSatisfy { $0 >= 0 })
        let durations = try metrics.expectTimer("quarry.statement.duration", [("role", readerRole), ("db", "main")])
        #expect(!durations.values.isEmpty)
    }

    @Test func checkpointsRecordTheirFrameCounts() throws {
        let metrics = TestMetrics()
        let directory = try TemporaryDirectory()
        let dbPool = try makeWriter(.pool, in: directory) { $0.metricsFactory = metrics }
        try dbPool.write { db throws in try db.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (randomblob(10000))") }
        let result = try dbPool.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        let frames = try metrics.expectRecorder("quarry.checkpoint.wal_frames", [("role", "writer")])
        let copied = try metrics.expectRecorder("quarry.checkpoint.checkpointed_frames", [("role", "writer")])
        #expect(frames.lastValue == Double(result.walFrameCount) && result.walFrameCount > 0)
        #expect(copied.lastValue == Double(result.checkpointedFrameCount))
    }

    @Test func busyWaitsAndRefusedCheckpointsAreCounted() throws {
        let metrics = TestMetrics()
        let directory = try TemporaryDirectory()
        let dbPool = try makeWriter(.pool, in: directory) {
            $0.metricsFactory = metrics
            $0.busyTimeout = .milliseconds(30)
        }
        try dbPool.write { db throws in try db.execute(sql: "CREATE TABLE t (v)") }
        // Another queue on the file holds the write lock: the pool's writer waits, then fails.
        let other = try DatabaseQueue(path: dbPool.path)
        try other.write { _ throws in
            #expect(throws: DatabaseError.self) {
                try dbPool.write { db throws in try db.execute(sql: "INSERT INTO t VALUES (1)") }
            }
            #expect(throws: DatabaseError.self) {
                try dbPool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
        }
        let sleeps = try metrics.expectCounter("quarry.busy.sleeps", [("role", "writer")])
        #expect(sleeps.totalValue >= 30)
        let busy = try metrics.expectCounter("quarry.checkpoint.busy", [("role", "writer")])
        #expect(busy.totalValue == 1)
    }
}
