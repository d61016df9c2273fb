// PostgresSession+PreparedStatements: runs a query as a named prepared
// statement, which the server parses and plans once per connection instead of
// at each run (PostgresStatementCache.swift decides which and when).
//
// PostgresNIO 1.33 prepares statements through `PostgresPreparedStatement`,
// whose name, SQL and parameter types are static properties of a Swift type,
// where Quarry's SQL is only known at run time. `NamedStatement` reads them
// from a task-local value, bound around the one call that reads them:
// `PostgresConnection.execute(_:logger:)` reads the three synchronously when
// it sends the statement, and again in its error path, both inside the
// binding (tests pin it: a statement that ran the wrong SQL would answer the
// wrong rows). PostgresNIO prepares the statement the first time a name is
// used on a connection (Parse, Describe, Sync: one round trip), then binds
// and executes it (one round trip); later runs send only the second.
//
// That call is `async`; Quarry's accesses are synchronous and block their
// thread. The call runs in a task whose executor is the connection's event
// loop, never on Swift's cooperative pool (blocked callers may hold every
// thread of it), and the calling thread waits for it as for any statement,
// with the statement deadline.

import Logging
import NIOCore
import PostgresNIO
import Quarry

extension PostgresSession {
    /// Runs a query as the named prepared statement `name`, preparing it on
    /// the connection the first time the name is used, and blocks the
    /// calling thread until its rows arrive.
    ///
    /// The result has no command tag (PostgresNIO 1.33 does not report one
    /// for prepared statements), and its `rowsAffected` is its number of
    /// rows; callers send only statements whose count is their rows.
    ///
    /// - Parameters:
    ///   - name: The statement's name, never used on this connection before
    ///     for other SQL or other parameter types.
    ///   - sql: One statement, with `$1`… placeholders.
    ///   - arguments: Its arguments, sent as ``execute(sql:arguments:)`` sends them.
    func executePreparedBlocking(name: String, sql: String, arguments: [DatabaseValue]) throws -> PostgresResultSet {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "a prepared statement was run on an event loop thread, where waiting would deadlock", sql: sql)
        }
        guard !connection.isClosed else { throw closedError(sql: sql) }
        guard arguments.count <= Int(UInt16.max) else {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "too many arguments: \(arguments.count), PostgreSQL accepts at most \(UInt16.max)", sql: sql)
        }
        let statement = NamedStatement.Text(name: name, sql: sql, types: NamedStatement.parameterTypes(arguments))
        let bindings = PostgresArgument.bindings(arguments)
        let connection = self.connection
        let logger = self.logger
        let promise = connection.eventLoop.makePromise(of: [PostgresRow].self)
        Task(executorPreference: EventLoopTaskExecutor(connection.eventLoop)) {
            do {
                let rows = try await NamedStatement.$current.withValue(statement) {
                    try await connection.execute(NamedStatement(bindings: bindings), logger: logger)
                }
                // The rows are only gathered on the event loop, which may
                // serve other connections (an HTTP server's, say); they are
                // decoded on the calling thread.
                var collected: [PostgresRow] = []
                for try await row in rows { collected.append(row) }
                promise.succeed(collected)
            } catch {
                promise.fail(error)
            }
        }
        let rows = try waitBlocking(for: promise.futureResult, sql: sql)
        let (columnNames, values) = try self.values(of: rows, sql: sql)
        return PostgresResultSet(columnNames: columnNames, rows: values, rowsAffected: values.count, commandTag: "")
    }
}

/// The prepared statement that `PostgresSession.executePreparedBlocking`
/// runs: its name, SQL and parameter types come from ``current``, bound
/// around each run.
struct NamedStatement: PostgresPreparedStatement {
    /// A statement's name, SQL and parameter types.
    struct Text: Sendable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }

    /// The statement being sent: empty outside a run.
    @TaskLocal static var current = Text(name: "", sql: "", types: [])

    static var name: String { current.name }
    static var sql: String { current.sql }
    static var bindingDataTypes: [PostgresDataType] { current.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings {
        // Called first, inside the binding: an empty name means it is missing.
        guard !Self.current.name.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a prepared statement was sent without its name and SQL")
        }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }

    /// The parameter types a statement is prepared with: none (the server
    /// infers each from its context, as for the unnamed statements of
    /// `PostgresSession.execute`) unless a blob is bound, which is typed
    /// `bytea`, as `PostgresArgument` types it.
    static func parameterTypes(_ arguments: [DatabaseValue]) -> [PostgresDataType] {
        guard arguments.contains(where: { if case .blob = $0 { true } else { false } }) else { return [] }
        return arguments.map { if case .blob = $0 { .bytea } else { PostgresDataType(0) } }
    }
}

/// Runs the jobs of a task on one event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
