// Opt-in observability: spans through swift-distributed-tracing
// (Configuration.tracer) and metrics through swift-metrics
// (Configuration.metricsFactory).
//
// One Instrumentation is made per connection pool (a DatabaseQueue's, a
// DatabasePool's writer, its readers) when either option is set, and shared
// by the pool's connections. With neither set, there is none, and the only
// cost left is a nil check per access: no clock reads, no trace callback.
//
// Spans: one per access ("quarry.read", "quarry.write",
// "quarry.writeWithoutTransaction"), child of the caller's ServiceContext,
// and one per statement, child of its access, fed by sqlite3_trace_v2
// (statement start, rows, end: see SQLite/SQLiteConnection+Hooks.swift). Attribute names
// follow OpenTelemetry's database conventions.

import CoreMetrics
import Dispatch
import Tracing

final class Instrumentation: Sendable {
    /// Where spans go, if anywhere.
    let tracer: (any Tracer)?

    /// The database file's name, or the server's database (`db.namespace`).
    let databaseName: String

    /// The database system (`db.system` and `db.system.name`): `sqlite`,
    /// `postgresql`.
    let system: String

    /// `quarry.connection.wait`: time spent waiting for a connection.
    let connectionWait: CoreMetrics.Timer?
    /// `quarry.statement.duration`: each statement's run time, as SQLite measures it.
    let statementDuration: CoreMetrics.Timer?
    /// `quarry.busy.sleeps`: milliseconds slept in the busy handler, waiting
    /// for a lock held by another process or pool.
    let busySleeps: Counter?
    /// `quarry.checkpoint.wal_frames` and `quarry.checkpoint.checkpointed_frames`:
    /// the WAL's frames and those copied, after each checkpoint.
    let checkpointWALFrames: Recorder?
    let checkpointCopiedFrames: Recorder?
    /// `quarry.checkpoint.busy`: checkpoints that could not finish (`SQLITE_BUSY`).
    let checkpointBusy: Counter?

    /// Returns nil when the configuration asks for neither spans nor metrics.
    ///
    /// - parameters:
    ///   - role: `queue`, `writer`, `reader` or `server`: a metric dimension.
    ///   - system: the database system, as OpenTelemetry names it.
    ///   - databaseName: `db.namespace`; the last component of `path` when nil.
    init?(configuration: Configuration, path: String, role: String, system: String = "sqlite", databaseName: String? = nil) {
        // The no-op backends (what InstrumentationSystem.tracer and
        // MetricsSystem.factory are until a backend is bootstrapped) record
        // nothing: skipping them costs nothing and changes nothing.
        let tracer = configuration.tracer.flatMap { $0 is NoOpTracer ? nil : $0 }
        let factory = configuration.metricsFactory.flatMap { $0 is NOOPMetricsHandler ? nil : $0 }
        guard tracer != nil || factory != nil else { return nil }
        self.tracer = tracer
        self.system = system
        self.databaseName = databaseName ?? path.split(separator: "/").last.map(String.init) ?? path
        if let factory {
            var dimensions = [("role", role)]
            if let label = configuration.label { dimensions.append(("db", label)) }
            connectionWait = Timer(label: "quarry.connection.wait", dimensions: dimensions, factory: factory)
            statementDuration = Timer(label: "quarry.statement.duration", dimensions: dimensions, factory: factory)
            busySleeps = Counter(label: "quarry.busy.sleeps", dimensions: dimensions, factory: factory)
            checkpointWALFrames = Recorder(label: "quarry.checkpoint.wal_frames", dimensions: dimensions, factory: factory)
            checkpointCopiedFrames = Recorder(
                label: "quarry.checkpoint.checkpointed_frames", dimensions: dimensions, factory: factory)
            checkpointBusy = Counter(label: "quarry.checkpoint.busy", dimensions: dimensions, factory: factory)
        } else {
            connectionWait = nil
            statementDuration = nil
            busySleeps = nil
            checkpointWALFrames = nil
            checkpointCopiedFrames = nil
            checkpointBusy = nil
        }
    }

    /// Whether the trace callback must report statements.
    var observesStatements: Bool { tracer != nil || statementDuration != nil }

    /// Records the wait for a connection that started at `start` (uptime nanoseconds).
    func recordConnectionWait(since start: UInt64) {
        connectionWait?.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds &- start))
    }

    /// Runs `body`, an access to `database`, inside a span when there is a tracer.
    func withAccessSpan<T>(
        _ operation: String, database: Database, parent: ServiceContext, _ body: () throws -> T
    ) throws -> T {
        guard let tracer else { return try body() }
        let span = tracer.startAnySpan("quarry.\(operation)", context: parent, ofKind: .client)
        setDatabaseAttributes(of: span)
        let previous = database.accessContext
        database.accessContext = span.context
        defer {
            database.endFinishedStatementSpan()
            database.accessContext = previous
            span.end()
        }
        do {
            return try body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}

extension Instrumentation {
    /// Starts the span of a statement, SQLite's or a server's, named after
    /// its first keyword; nil without a tracer.
    func startStatementSpan(_ sql: String, parent: ServiceContext) -> (any Span)? {
        guard let tracer else { return nil }
        let operation = sql.prefix(while: { !$0.isWhitespace && $0 != "(" && $0 != ";" }).uppercased()
        let span = tracer.startAnySpan(operation.isEmpty ? "SQL" : operation, context: parent, ofKind: .client)
        setDatabaseAttributes(of: span)
        span.attributes["db.query.text"] = sql
        if !operation.isEmpty { span.attributes["db.operation.name"] = operation }
        return span
    }

    /// The attributes of every span: the database system and name.
    private func setDatabaseAttributes(of span: any Span) {
        span.attributes["db.system"] = system
        span.attributes["db.system.name"] = system
        span.attributes["db.namespace"] = databaseName
    }
}

/// A statement's open span, and the rows it returned so far.
struct StatementSpan {
    var span: any Span
    var rowCount = 0
    /// When SQLite reported the statement's end (its span waits for
    /// `stepError` to record a failure: SQLite reports the end first).
    var endInstant: DefaultTracerClock.Instant?
}

extension Tracer {
    /// `startSpan` through an existential tracer.
    fileprivate func startAnySpan(_ name: String, context: ServiceContext, ofKind kind: SpanKind) -> any Tracing.Span {
        startSpan(name, context: context, ofKind: kind)
    }
}

extension Database {
    /// Starts the span of a statement (trace callback, `SQLITE_TRACE_STMT`).
    func statementSpanStarts(_ statement: OpaquePointer, sql: String) {
        endFinishedStatementSpan()
        // A statement of a script keeps the white space before it.
        let sql = String(sql.drop(while: \.isWhitespace))
        guard let span = instrumentation?.startStatementSpan(sql, parent: accessContext ?? .topLevel) else { return }
        statementSpans[statement]?.span.end()
        statementSpans[statement] = StatementSpan(span: span)
    }

    /// Notes the end of a statement (`SQLITE_TRACE_PROFILE`). SQLite reports
    /// it before `sqlite3_step` returns an error, so the span stays open, with
    /// its end time, until the next statement starts or the access ends.
    func statementSpanEnds(_ statement: OpaquePointer) {
        endFinishedStatementSpan()
        guard var entry = statementSpans.removeValue(forKey: statement) else { return }
        entry.endInstant = DefaultTracerClock.now
        finishedStatementSpan = (statement, entry)
    }

    /// Records a failed step on the statement's span.
    func statementSpanFails(_ statement: OpaquePointer, error: any Error) {
        let entry = finishedStatementSpan?.statement == statement ? finishedStatementSpan?.entry : statementSpans[statement]
        guard let entry else { return }
        entry.span.recordError(error)
        entry.span.setStatus(SpanStatus(code: .error))
    }

    /// Ends the span of the statement that ended last, at its end time.
    func endFinishedStatementSpan() {
        guard let (_, entry) = finishedStatementSpan else { return }
        finishedStatementSpan = nil
        entry.span.attributes["db.response.returned_rows"] = entry.rowCount
        if let endInstant = entry.endInstant {
            entry.span.end(at: endInstant)
        } else {
            entry.span.end()
        }
    }
}
