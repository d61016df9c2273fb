// PostgresServerConnection: a PostgresSession as the server connection of a
// Quarry `Database` (Quarry's Core/DatabaseServerConnection.swift). Quarry
// calls it synchronously, from its own threads.
//
// Stopping a running statement (`interrupt()`, a cancelled async access):
// PostgreSQL stops a backend's statement when another connection asks with
// `pg_cancel_backend(pid)`
// (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADMIN-SIGNAL).
// The request goes on a short-lived connection of its own, and is sent only
// while the statement it targets still runs: the next statement of the
// connection waits while the request is in flight, so that the request
// cannot stop it instead (the server's cancel targets a process, not a
// statement). A backend that receives the request while it waits for a
// command ignores it. Every wait is bounded: the request by the connect
// timeout (to connect, then again to be answered), the next statement's
// wait by that bound and a second more; no lock is held across the round
// trip, so `interrupt()` and other cancellations never wait for it.

import Dispatch
import Foundation
import Logging
import Quarry
import Synchronization

/// The connection of one `Database` of a ``PostgresDatabasePool``.
final class PostgresServerConnection: DatabaseServerConnection {
    let session: PostgresSession
    /// The process of the server that serves this connection.
    let backendPID: Int64
    private let running = RunningStatement()
    /// The named prepared statements of the connection.
    private var statements: PostgresStatementCache
    /// Set when PostgresNIO's table of the connection's statement names
    /// outgrew its bound (`PostgresStatementCache.mustRetire`): the pool
    /// then replaces the connection. Read from any thread.
    private let mustRetire = Atomic<Bool>(false)
    /// The round trips this connection made to the server so far: one per
    /// statement sent unnamed or run prepared, one more for each
    /// preparation (for tests: what an access costs).
    let roundTrips = RoundTripCounter()
    /// Whether the open transaction changed the schema: its rollback then
    /// drops the statements prepared against the changed schema.
    private var changedSchemaInTransaction = false
    var dialect: any SQLDialect { PostgreSQLDialect() }
    var catalog: any DatabaseCatalog { PostgreSQLCatalog() }
    /// PostgreSQL's protocol counts the parameters of a statement in 16 bits.
    var boundValueLimit: Int { 65_535 }
    var serverDescription: String { session.configuration.description }

    func error(_ category: DatabaseError.Category, message: String, sql: String?) -> DatabaseError {
        DatabaseError.postgresError(category, message: message, sql: sql)
    }

    /// PostgreSQL has `RETURNING`; SQLite's own features it has not.
    func supports(_ capability: DatabaseCapability) -> Bool { capability == .returning }
    var databaseName: String { session.configuration.database }
    var isUsable: Bool { !session.isClosed && !mustRetire.load(ordering: .relaxed) }

    init(session: PostgresSession, backendPID: Int64) {
        self.session = session
        self.backendPID = backendPID
        statements = PostgresStatementCache(capacity: session.configuration.statementCacheCapacity)
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
        roundTrips.add(1)
        let result = try session.executeBlocking(sql: sql, arguments: arguments)
        followStatements(after: result.commandTag, of: sql)
        return DatabaseServerResult(
            columnNames: result.columnNames, rows: result.rows, rowsAffected: result.rowsAffected, commandTag: result.commandTag)
    }

    /// Runs a query as a named prepared statement of the connection's cache
    /// (PostgresStatementCache.swift), prepared on its first run; unnamed
    /// when the cache holds none (`statementCacheCapacity` 0).
    func query(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult {
        guard statements.capacity > 0 else { return try execute(sql: sql, arguments: arguments) }
        let key = PostgresStatementCache.Key(sql: sql, arguments: arguments)
        let (name, isNew, isBulk) = statements.name(for: key)
        if isBulk {
            // Many rows: unnamed is cheaper (PostgresStatementCache.bulkRowCount).
            let result = try execute(sql: sql, arguments: arguments)
            statements.noteRun(of: key, rowCount: result.rows.count)
            return result
        }
        running.start()
        defer { running.end() }
        // PostgresNIO prepares a new name in a round trip of its own (Parse,
        // Describe, Sync), then runs it (Bind, Execute, Sync).
        roundTrips.add(isNew ? 2 : 1)
        let result: PostgresResultSet
        do {
            result = try session.executePreparedBlocking(name: name, sql: sql, arguments: arguments)
        } catch let error as DatabaseError {
            throw heal(after: error, key: key, name: name, isNew: isNew)
        }
        statements.noteRun(of: key, rowCount: result.rows.count)
        return DatabaseServerResult(columnNames: result.columnNames, rows: result.rows, rowsAffected: result.rowsAffected)
    }

    /// Deallocates the prepared statements that left the cache and may
    /// still exist on the server. One that is already gone (26000) is what
    /// was wanted; any other error discards the connection.
    func accessDidEnd() throws {
        for name in statements.takeDeallocations() {
            roundTrips.add(1)
            do {
                _ = try session.executeBlocking(sql: "DEALLOCATE \"\(name)\"")
            } catch let error as DatabaseError where error.sqlState == "26000" {
                continue
            }
        }
    }

    /// Drops a statement that failed from the cache where it must not be
    /// run again, and returns the error to throw. A statement that failed
    /// on its first run is dropped (its preparation may be what failed);
    /// one that the server no longer has (26000: `DISCARD ALL`, a pooler)
    /// or whose plan no longer fits its tables (0A000: "cached plan must
    /// not change result type", after another connection altered a table)
    /// is dropped, and the error says so: the transaction was aborted, and
    /// running the access again prepares the statement anew.
    private func heal(after error: DatabaseError, key: PostgresStatementCache.Key, name: String, isNew: Bool) -> DatabaseError {
        defer { mustRetire.store(statements.mustRetire, ordering: .relaxed) }
        if isNew {
            statements.remove(key, deallocate: !error.isConnectionError)
            return error
        }
        switch error.sqlState {
        case "26000":
            statements.remove(key, deallocate: false)
        case "0A000":
            statements.remove(key, deallocate: true)
        default:
            return error
        }
        return DatabaseError(
            sqlState: error.sqlState ?? "26000",
            message: "\(error.message) (prepared statement \(name), which was dropped from the connection's statement cache: "
                + "the statement did nothing, and a transaction it ran in is aborted, so nothing of that transaction is "
                + "committed; running the access again prepares the statement anew)",
            sql: error.sql)
    }

    /// Follows what a statement sent unnamed did to the prepared ones, from
    /// the server's command tag: a schema change drops them (PostgreSQL
    /// would refuse a plan whose result type changed), and so does the
    /// rollback of a transaction that changed the schema; `DISCARD ALL` and
    /// `DEALLOCATE` remove them from the server.
    private func followStatements(after commandTag: String, of sql: String) {
        switch commandTag {
        case "CREATE", "ALTER", "DROP":
            statements.removeAll(deallocate: true)
            changedSchemaInTransaction = true
        case "ROLLBACK":
            if changedSchemaInTransaction { statements.removeAll(deallocate: true) }
            if !Self.rollsBackToSavepoint(sql) { changedSchemaInTransaction = false }
        case "COMMIT":
            changedSchemaInTransaction = false
        case "DISCARD", "DEALLOCATE":
            statements.removeAll(deallocate: false)
        default:
            return
        }
        mustRetire.store(statements.mustRetire, ordering: .relaxed)
    }

    /// Whether `sql`, answered `ROLLBACK`, is `ROLLBACK [WORK | TRANSACTION] TO …`,
    /// which leaves the transaction open.
    private static func rollsBackToSavepoint(_ sql: String) -> Bool {
        sql.split(whereSeparator: { $0.isWhitespace }).prefix(3).contains { $0.uppercased() == "TO" }
    }

    /// The tables of the plan of `sql`: the `Relation Name` of every node of
    /// `EXPLAIN (VERBOSE, FORMAT JSON)` (views and subqueries are planned
    /// down to their tables), and the partitioned tables of those that are
    /// partitions. Tables read inside functions are not in a plan.
    func tablesRead(sql: String, arguments: [DatabaseValue]) throws -> Set<String>? {
        running.start()
        defer { running.end() }
        roundTrips.add(1)
        let result = try session.executeBlocking(sql: "EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments: arguments)
        guard case .text(let plan)? = result.rows.first?.first,
            let relations = PostgreSQLDialect.relations(inPlan: plan)
        else { return nil }
        var tables = Set(relations.map { $0.name.lowercased() })
        if !relations.isEmpty {
            roundTrips.add(1)
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
    /// can be opened for the request within the connect timeout, the
    /// statement runs on.
    func cancelRunningStatement() {
        guard let target = running.current else { return }
        var bounded = session.configuration
        // The request's answer is bounded like its connection, whatever the
        // statement deadline (which may be nil: no bound).
        bounded.statementDeadline = bounded.connectTimeout
        let configuration = bounded
        let pid = backendPID
        let running = self.running
        let gateTimeout = configuration.connectTimeout + .seconds(1)
        DispatchQueue.global().async {
            guard let canceller = try? PostgresSession.connectBlocking(to: configuration) else { return }
            running.whileCancelling(target, gateTimeout: gateTimeout) {
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

/// The round trips of one connection to its server. Safe from any thread.
final class RoundTripCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// The round trips so far.
    var value: Int { count.load(ordering: .relaxed) }

    func add(_ roundTrips: Int) { count.add(roundTrips, ordering: .relaxed) }
}

/// Which statement of a connection runs now, shared with the threads that
/// send cancel requests for it.
final class RunningStatement: @unchecked Sendable {
    // All state is guarded by `condition`'s lock, which is never held across
    // a round trip to the server.
    private let condition = NSCondition()
    private var isRunning = false
    private var generation: UInt64 = 0
    /// When a cancel request is in flight: the uptime (nanoseconds) after
    /// which the next statement stops waiting for it.
    private var cancelGateDeadline: UInt64?

    /// The statement running now, or nil.
    var current: UInt64? {
        condition.lock()
        defer { condition.unlock() }
        return isRunning ? generation : nil
    }

    /// A statement starts: it waits while a cancel request for the previous
    /// one is in flight, up to the request's bound.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        while let deadline = cancelGateDeadline {
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline {
                // The request outlived its bound: it is dropped (its own
                // connection was closed by its deadline).
                cancelGateDeadline = nil
                break
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(deadline - now) / 1e9))
        }
        generation &+= 1
        isRunning = true
    }

    func end() {
        condition.lock()
        isRunning = false
        condition.unlock()
    }

    /// Runs `body`, the round trip of a cancel request, if statement
    /// `generation` still runs; the next statement waits meanwhile, for
    /// `gateTimeout` at most. Returns whether `body` ran.
    @discardableResult
    func whileCancelling(_ generation: UInt64, gateTimeout: Duration, _ body: () -> Void) -> Bool {
        condition.lock()
        guard isRunning, self.generation == generation, cancelGateDeadline == nil else {
            condition.unlock()
            return false
        }
        let timeout = UInt64(clamping: gateTimeout.components.seconds) &* 1_000_000_000
            &+ UInt64(clamping: gateTimeout.components.attoseconds / 1_000_000_000)
        cancelGateDeadline = DispatchTime.now().uptimeNanoseconds &+ timeout
        condition.unlock()
        body()
        condition.lock()
        cancelGateDeadline = nil
        condition.broadcast()
        condition.unlock()
        return true
    }
}
