// SQLite's hooks behind the seam: the busy handler, the progress handler and
// the trace callback, which `Database` asks for through `DatabaseConnection`
// (Database+BusyHandler.swift, Database+Interrupt.swift, Database+Trace.swift).
//
// The busy handler: SQLite's own sqlite3_busy_timeout sleeps longer and
// longer between its attempts (up to 100 ms each). A writer of another
// process that commits in a tight loop frees the lock only for an instant
// between two transactions, and a few attempts spread over seconds seldom
// fall in that instant: the waiter then fails with SQLITE_BUSY at the end of
// its timeout although the lock was released thousands of times meanwhile.
// This handler tries again every millisecond instead, and gives up once its
// sleeps add up to the timeout, as SQLite's does
// (https://www.sqlite.org/c3ref/busy_handler.html).
//
// The progress handler (https://www.sqlite.org/c3ref/progress_handler.html)
// asks the connection's `ProgressMonitor` whether to stop the statement.
//
// The trace callback (https://www.sqlite.org/c3ref/trace_v2.html) feeds the
// trace handler, the logger, the statement spans and the duration metric.

import CSQLite
import Foundation

extension SQLiteConnection {
    func setBusyWait(_ db: Database, milliseconds: Int32) {
        busyWait = (milliseconds, db.instrumentation?.busySleeps)
        guard milliseconds > 0 else {
            sqlite3_busy_handler(handle, nil, nil)
            return
        }
        // Sleeps 1 ms per call, counted in `quarry.busy.sleeps` with metrics;
        // returns 0 (give up, SQLITE_BUSY) once `attempt` previous calls have
        // slept the whole timeout.
        sqlite3_busy_handler(handle, { context, attempt in
            guard let context else { return 0 }
            let wait = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().busyWait
            guard attempt < wait.milliseconds else { return 0 }
            wait.sleeps?.increment()
            usleep(1_000)
            return 1
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    func watchProgress(_ monitor: ProgressMonitor?) {
        guard let monitor else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            return
        }
        // The Database keeps its monitor for as long as the handle lives.
        let context = Unmanaged.passUnretained(monitor).toOpaque()
        sqlite3_progress_handler(handle, ProgressMonitor.instructionsPerCheck, { context in
            guard let context else { return 0 }
            return Unmanaged<ProgressMonitor>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
        }, context)
    }

    func updateTrace(_ db: Database) {
        var mask = db.traceOptions.rawValue
        if db.configuration.logger != nil { mask |= Int32(SQLITE_TRACE_STMT) }
        if let instrumentation = db.instrumentation, instrumentation.observesStatements {
            mask |= Int32(SQLITE_TRACE_PROFILE)
            if instrumentation.tracer != nil { mask |= Int32(SQLITE_TRACE_STMT | SQLITE_TRACE_ROW) }
        }
        guard mask != 0 else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        // The connection closes its handle before the Database goes away.
        let context = Unmanaged.passUnretained(db).toOpaque()
        sqlite3_trace_v2(handle, UInt32(mask), { mask, context, statement, detail in
            guard let context, let statement else { return 0 }
            let database = Unmanaged<Database>.fromOpaque(context).takeUnretainedValue()
            database.report(mask: mask, statement: OpaquePointer(statement), detail: detail)
            return 0
        }, context)
    }
}

extension Database {
    /// One event of the trace callback, to the trace handler, the logger,
    /// the statement spans and the duration metric.
    fileprivate func report(mask: UInt32, statement: OpaquePointer, detail: UnsafeMutableRawPointer?) {
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
