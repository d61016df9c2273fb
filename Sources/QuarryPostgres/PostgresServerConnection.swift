// PostgresServerConnection: a PostgresSession as the server connection of a
// Quarry `Database` (Quarry's Core/DatabaseServerConnection.swift). Quarry
// calls it synchronously, from its own threads.
//
// Stopping a running statement (`interrupt()`, a cancelled async access):
// PostgreSQL stops a backend's statement when another connection asks with
// `pg_cancel_backend(pid)`
// (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADMIN-SIGNAL).
// The request goes on a short-lived connection of its own, and is sent only
// while the statement it targets still runs: the connection holds its lock
// meanwhile, so that the next statement cannot start under it. A backend
// that receives the request while it waits for a command ignores it.

import Dispatch
import Logging
import Quarry
import Synchronization

/// The connection of one `Database` of a ``PostgresDatabasePool``.
final class PostgresServerConnection: DatabaseServerConnection {
    let session: PostgresSession
    /// The process of the server that serves this connection.
    let backendPID: Int64
    private let running = RunningStatement()
    var dialect: any SQLDialect { PostgreSQLDialect() }
    var serverDescription: String { session.configuration.description }
    var databaseName: String { session.configuration.database }
    var isUsable: Bool { !session.isClosed }

    init(session: PostgresSession, backendPID: Int64) {
        self.session = session
        self.backendPID = backendPID
    }

    /// Connects, blocking the calling thread (on PostgresNIO's event loop,
    /// not on Swift's cooperative pool: see `PostgresSession.connectBlocking`).
    ///
    /// - parameters:
    ///   - logger: where PostgresNIO logs.
    ///   - keepsErrorDetail: whether errors keep the server's detail line.
    static func connect(
        to configuration: PostgresConfiguration, logger: Logger = PostgresSession.silentLogger, keepsErrorDetail: Bool = false
    ) throws -> PostgresServerConnection {
        let session = try PostgresSession.connectBlocking(to: configuration, logger: logger, keepsErrorDetail: keepsErrorDetail)
        do {
            let result = try session.executeBlocking(sql: "SELECT pg_backend_pid()")
            guard case .integer(let pid)? = result.rows.first?.first else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(configuration) did not tell its backend process id")
            }
            return PostgresServerConnection(session: session, backendPID: pid)
        } catch {
            Task.detached { try? await session.close() }
            throw error
        }
    }

    func execute(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult {
        running.start()
        defer { running.end() }
        let result = try session.executeBlocking(sql: sql, arguments: arguments)
        return DatabaseServerResult(columnNames: result.columnNames, rows: result.rows, rowsAffected: result.rowsAffected)
    }

    /// The tables of the plan of `sql`: the `Relation Name` of every node of
    /// `EXPLAIN (VERBOSE, FORMAT JSON)` (views and subqueries are planned
    /// down to their tables), and the partitioned tables of those that are
    /// partitions. Tables read inside functions are not in a plan.
    func tablesRead(sql: String, arguments: [DatabaseValue]) throws -> Set<String>? {
        running.start()
        defer { running.end() }
        let result = try session.executeBlocking(sql: "EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments: arguments)
        guard case .text(let plan)? = result.rows.first?.first,
            let relations = PostgreSQLDialect.relations(inPlan: plan)
        else { return nil }
        var tables = Set(relations.map { $0.name.lowercased() })
        if !relations.isEmpty {
            let ancestors = try session.executeBlocking(
                sql: PostgreSQLDialect.partitionAncestorsSQL(count: relations.count),
                arguments: relations.flatMap { [DatabaseValue.text($0.schema), .text($0.name)] })
            for row in ancestors.rows {
                if case .text(let name)? = row.first { tables.insert(name.lowercased()) }
            }
        }
        return tables
    }

    /// Sends `pg_cancel_backend` for the statement running now, from a
    /// Dispatch thread, and returns at once. Best effort: when no connection
    /// can be opened for the request, the statement runs on.
    func cancelRunningStatement() {
        guard let target = running.current else { return }
        let configuration = session.configuration
        let pid = backendPID
        let running = self.running
        DispatchQueue.global().async {
            guard let canceller = try? PostgresSession.connectBlocking(to: configuration) else { return }
            running.whileRunning(target) {
                _ = try? canceller.executeBlocking(sql: "SELECT pg_cancel_backend($1)", arguments: [.integer(pid)])
            }
            Task.detached { try? await canceller.close() }
        }
    }

    /// Closes the connection without waiting for the server's answer:
    /// `Database.close()` may run anywhere, a deinit on Swift's cooperative
    /// pool included, where waiting for another task could deadlock.
    func close() {
        let session = self.session
        Task.detached { try? await session.close() }
    }
}

/// Which statement of a connection runs now, shared with the threads that
/// send cancel requests for it.
private final class RunningStatement: Sendable {
    private struct State {
        var isRunning = false
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The statement running now, or nil.
    var current: UInt64? { state.withLock { $0.isRunning ? $0.generation : nil } }

    /// A statement starts: it waits while a cancel request for the previous one is sent.
    func start() {
        state.withLock { state in
            state.generation &+= 1
            state.isRunning = true
        }
    }

    func end() { state.withLock { $0.isRunning = false } }

    /// Runs `body` if statement `generation` still runs, and keeps the next
    /// statement from starting until `body` returns.
    func whileRunning(_ generation: UInt64, _ body: () -> Void) {
        state.withLock { state in
            guard state.isRunning, state.generation == generation else { return }
            body()
        }
    }
}
