// Tracing executed SQL: a closure per connection, and swift-log through Configuration.logger.
//
// Both are fed by one sqlite3_trace_v2 callback (https://www.sqlite.org/c3ref/trace_v2.html).

import CSQLite
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
    public static let statements = TraceOptions(rawValue: Int32(SQLITE_TRACE_STMT))
    /// Statements as they end, with their duration.
    public static let profile = TraceOptions(rawValue: Int32(SQLITE_TRACE_PROFILE))
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

    /// Registers (or removes) the SQLite trace callback for the handler and the logger.
    func installTrace() {
        // Backend conditional: SQLite's trace callback needs its handle. A
        // server's statements are traced by ServerConnection.run.
        guard let sqliteConnection else { return }
        var mask = traceOptions.rawValue
        if configuration.logger != nil { mask |= Int32(SQLITE_TRACE_STMT) }
        if let instrumentation, instrumentation.observesStatements {
            mask |= Int32(SQLITE_TRACE_PROFILE)
            if instrumentation.tracer != nil { mask |= Int32(SQLITE_TRACE_STMT | SQLITE_TRACE_ROW) }
        }
        guard mask != 0 else {
            sqlite3_trace_v2(sqliteConnection, 0, nil, nil)
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(sqliteConnection, UInt32(mask), { mask, context, statement, detail in
            guard let context, let statement else { return 0 }
            let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
            database.report(mask: mask, statement: OpaquePointer(statement), detail: detail)
            return 0
        }, context)
    }

    private func report(mask: UInt32, statement: OpaquePointer, detail: UnsafeMutableRawPointer?) {
        // Rows only count for the statement's span: no SQL text to build.
        if mask == UInt32(SQLITE_TRACE_ROW) {
            statementSpans[statement]?.rowCount += 1
            return
        }
        // Quarry's check of the schema version runs before most fetches: not
        // the application's SQL (see Database+SchemaVersion.swift).
        if sqliteSchemaVersionCheck.isCheckStatement(statement) { return }
        if mask == UInt32(SQLITE_TRACE_PROFILE), let instrumentation {
            let nanoseconds = detail?.load(as: Int64.self) ?? 0
            instrumentation.statementDuration?.recordNanoseconds(nanoseconds)
            if instrumentation.tracer != nil { statementSpanEnds(statement) }
            if !traceOptions.contains(.profile) { return }
        }
        let sql: String
        if configuration.publicStatementArguments, let expanded = sqlite3_expanded_sql(statement) {
            sql = String(cString: expanded)
            sqlite3_free(expanded)
        } else if let text = sqlite3_sql(statement) {
            sql = String(cString: text)
        } else {
            return
        }
        if mask == UInt32(SQLITE_TRACE_STMT) {
            // A trigger's statements are reported as "-- TRIGGER name": part of the statement's span.
            if instrumentation?.tracer != nil, !sql.hasPrefix("--") {
                statementSpanStarts(statement, sql: sql)
            }
            if configuration.logger == nil && !traceOptions.contains(.statements) { return }
            if let logger = configuration.logger {
                logger.log(level: configuration.sqlLogLevel, "\(sql)", metadata: configuration.label.map { ["db": "\($0)"] })
            }
            if traceOptions.contains(.statements) { traceHandler?(.statement(sql: sql)) }
        } else if mask == UInt32(SQLITE_TRACE_PROFILE), traceOptions.contains(.profile) {
            let nanoseconds = detail?.load(as: Int64.self) ?? 0
            traceHandler?(.profile(sql: sql, duration: .nanoseconds(nanoseconds)))
        }
    }
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
