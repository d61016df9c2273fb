// Tracing executed SQL: a closure per connection, and swift-log through Configuration.logger.
//
// Both are fed by the connection: on SQLite by one sqlite3_trace_v2 callback
// (SQLite/SQLiteConnection+Hooks.swift); on a server by ServerConnection.run,
// through `observingServerStatement` below.

import Logging
import Tracing

/// An event reported by ``Database/trace(options:_:)``.
public enum TraceEvent: Sendable, CustomStringConvertible {
    /// A statement starts executing. `sql` has the statement's parameters, or
    /// their values when ``Configuration/publicStatementArguments`` is set.
    case statement(sql: String)
    /// A statement finished executing, after `duration` of SQLite's own time.
    case profile(sql: String, duration: Duration)

    /// The SQL, and the duration for a profile event.
    public var description: String {
        switch self {
        case .statement(let sql): return sql
        case .profile(let sql, let duration): return "\(duration) \(sql)"
        }
    }
}

/// Which events ``Database/trace(options:_:)`` reports.
public struct TraceOptions: OptionSet, Sendable {
    /// The bit mask.
    public let rawValue: Int32
    /// Creates options from a bit mask.
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// Statements as they start.
    /// (The bits are SQLite's `SQLITE_TRACE_STMT` and `SQLITE_TRACE_PROFILE`,
    /// which its trace callback takes as they are.)
    public static let statements = TraceOptions(rawValue: 1)
    /// Statements as they end, with their duration.
    public static let profile = TraceOptions(rawValue: 2)
}

extension Database {
    /// Calls `handler` for each statement this connection executes; pass nil to stop.
    ///
    /// ```swift
    /// db.trace { event in print(event) }
    /// ```
    ///
    /// To log SQL from every connection of a queue or pool, set
    /// ``Configuration/logger`` instead. Neither reports the
    /// `PRAGMA schema_version` that Quarry runs before fetches to notice
    /// schema changes (see ``cachedStatement(sql:)``).
    public func trace(options: TraceOptions = .statements, _ handler: ((TraceEvent) -> Void)?) {
        traceHandler = handler
        traceOptions = handler == nil ? [] : options
        installTrace()
    }

    /// Registers (or removes) the connection's trace of statements for the
    /// handler, the logger, spans and metrics
    /// (``DatabaseConnection/updateTrace(_:)``).
    func installTrace() { connection.updateTrace(self) }
}

extension Database {
    /// Runs `body`, which sends one statement to a database server, and
    /// reports it as SQLite's trace callback reports its statements: to
    /// ``trace(options:_:)``, to ``Configuration/logger``, as a span under
    /// the access's span, and in the statement-duration metric. The
    /// duration is the client's: the round trip included.
    func observingServerStatement<T>(_ sql: String, values: [DatabaseValue], _ body: () throws -> T) throws -> T {
        let wantsStatement = traceOptions.contains(.statements) || configuration.logger != nil
        if wantsStatement {
            let logged = configuration.publicStatementArguments && !values.isEmpty ? "\(sql) -- \(values)" : sql
            if let logger = configuration.logger {
                logger.log(level: configuration.sqlLogLevel, "\(logged)", metadata: configuration.label.map { ["db": "\($0)"] })
            }
            if traceOptions.contains(.statements) { traceHandler?(.statement(sql: logged)) }
        }
        let timed = traceOptions.contains(.profile) || instrumentation?.statementDuration != nil
        let start = timed ? ContinuousClock.now : nil
        let span = instrumentation?.startStatementSpan(sql, parent: accessContext ?? .topLevel)
        do {
            let result = try body()
            finishServerStatement(sql, start: start)
            span?.end()
            return result
        } catch {
            finishServerStatement(sql, start: start)
            span?.recordError(error)
            span?.setStatus(SpanStatus(code: .error))
            span?.end()
            throw error
        }
    }

    private func finishServerStatement(_ sql: String, start: ContinuousClock.Instant?) {
        guard let start else { return }
        let duration = ContinuousClock.now - start
        instrumentation?.statementDuration?.recordNanoseconds(Int64(clamping: Database.nanoseconds(duration)))
        if traceOptions.contains(.profile) { traceHandler?(.profile(sql: sql, duration: duration)) }
    }
}
