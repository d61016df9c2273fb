// PostgresSession: one PostgresNIO connection that runs SQL with Quarry's
// DatabaseValue arguments and results, and reports Quarry's DatabaseError.
//
// It is the lowest layer of the PostgreSQL backend: the pool, the
// transactions and the `Database` seam are built on it separately.

import Foundation
import Logging
import PostgresNIO  // re-exports NIO (NIOCore, NIOPosix) and NIOSSL
import Quarry
import Synchronization

/// The rows and the command tag of one statement run by ``PostgresSession``.
public struct PostgresResultSet: Sendable, Hashable {
    /// The names of the result columns, in order.
    ///
    /// Empty when the statement returned no row: PostgresNIO 1.33 does not
    /// expose the description of the columns of an empty result.
    public var columnNames: [String]

    /// The rows, each with one value per column.
    public var rows: [[DatabaseValue]]

    /// The number of rows the statement inserted, updated, deleted, selected,
    /// merged, moved, fetched or copied, from the command tag the server
    /// sent (`INSERT 0 3` gives 3); 0 for commands without a count, such as
    /// `CREATE TABLE`.
    public var rowsAffected: Int

    /// The command tag of the server's answer without its counts: `INSERT`,
    /// `SELECT`, `COMMIT`… The server answers `ROLLBACK` to the `COMMIT` of
    /// a transaction that a failed statement aborted: that transaction was
    /// rolled back, though no error came.
    public var commandTag: String

    /// Creates a result set.
    public init(columnNames: [String], rows: [[DatabaseValue]], rowsAffected: Int, commandTag: String = "") {
        self.columnNames = columnNames
        self.rows = rows
        self.rowsAffected = rowsAffected
        self.commandTag = commandTag
    }
}

/// One connection to a PostgreSQL server, that runs SQL with Quarry's
/// `DatabaseValue` arguments and results.
///
/// ```swift
/// let session = try await PostgresSession.connect(to: PostgresConfiguration(url: url))
/// try await session.execute(sql: "CREATE TABLE player (id BIGINT PRIMARY KEY, name TEXT)")
/// try await session.execute(sql: "INSERT INTO player VALUES ($1, $2)", arguments: [1, "Arthur"])
/// let result = try await session.execute(sql: "SELECT id, name FROM player")
/// // result.rows == [[.integer(1), .text("Arthur")]]
/// try await session.close()
/// ```
///
/// Placeholders are PostgreSQL's `$1`, `$2`, …; arguments are always sent
/// separately from the SQL text, never spliced into it.
///
/// ## Arguments
///
/// `NULL`, integers, reals and texts are sent in text format with no type
/// (OID 0, "unspecified", as libpq sends parameters it is given no type for):
/// the server infers each parameter's type from where it stands, so one
/// value fits columns of several types:
///
/// | Argument | Fits columns of type |
/// | --- | --- |
/// | `.null` | any |
/// | `.integer` (its decimal digits) | `int2`, `int4`, `int8`, `numeric`, `float4`, `float8`, `bool` (0 and 1), `text`, `jsonb` |
/// | `.real` (shortest round-trip digits; `NaN`, `Infinity`, `-Infinity`) | `float4`, `float8`, `numeric` |
/// | `.text` | `text`, `varchar`, `bpchar`, and any type that reads text: `uuid`, `date`, `timestamptz` (see below), `jsonb`, `numeric`, `bool` (`t`, `true`, …) |
/// | `.blob` (sent as `bytea`, binary) | `bytea` |
///
/// Where the context gives no type, as in `SELECT $1` or `$1 = $2`, the
/// server takes the parameter as `text`: cast it (`SELECT $1::bigint`).
/// PostgreSQL's text cannot hold the NUL character (the server refuses it,
/// SQLSTATE `22021`). A blob does not fill a `uuid` column (Quarry stores a
/// `UUID` as a 16-byte blob): send its text, or convert in SQL.
///
/// The session runs in the `UTC` time zone (a startup parameter), so a date
/// text in Quarry's format (`DatabaseDateFormat`,
/// `YYYY-MM-DD HH:MM:SS.SSS`, UTC) means the same instant in a `timestamptz`
/// column as in SQLite.
///
/// ## Results
///
/// Result columns become `DatabaseValue` values as follows (SQL
/// `NULL` is always `.null`):
///
/// | PostgreSQL type | DatabaseValue |
/// | --- | --- |
/// | `int2`, `int4`, `int8`, `oid` | `.integer` |
/// | `float4`, `float8` | `.real` (a `float4` widened to `Double`) |
/// | `numeric` | `.integer` for a whole number that fits 64 bits (`SUM` of integers); otherwise `.text`, exact, as PostgreSQL prints it (`12.50`, `NaN`) |
/// | `bool` | `.integer(1)` or `.integer(0)` |
/// | `text`, `varchar`, `bpchar`, `name`, `"char"` | `.text` |
/// | `bytea` | `.blob` |
/// | `uuid` | `.text`, lowercase with hyphens |
/// | `date` | `.text`, `YYYY-MM-DD` |
/// | `timestamp`, `timestamptz` | `.text` in Quarry's date format, `YYYY-MM-DD HH:MM:SS.SSS` in UTC, rounded to the millisecond |
/// | `time` | `.text`, `HH:MM:SS[.ffffff]` |
/// | `json`, `jsonb` | `.text` (the JSON text) |
///
/// `date` and timestamp infinities read as `infinity` and `-infinity`. Other
/// types (arrays, `interval`, `inet`, enums, …) are not read yet: a statement
/// that returns one throws a `DatabaseError` that names the column;
/// cast it to text in the SQL (`SELECT tags::text`).
///
/// ## Errors
///
/// Errors are `DatabaseError` values. Those of the server keep its
/// SQLSTATE in `DatabaseError.sqlState` and its message in
/// `DatabaseError.message`, with the SQL; the helpers such as
/// `DatabaseError.isUniqueConstraintViolation` work as on SQLite, and
/// `DatabaseError.constraintName`, `tableName` and `columnName` carry the
/// server's fields. The error's detail (which can repeat the values of a
/// row) and the arguments are left out, so that errors can be logged
/// (a `PostgresDatabasePool` keeps the detail when
/// `Configuration.publicStatementArguments` is set). Failures to connect
/// name the host, port and database.
///
/// A lost connection throws SQLSTATE `08006` (connection failure), a
/// statement sent on a closed one `08003` (connection does not exist), and
/// a failed connection attempt `08001`: `DatabaseError.isConnectionError` is
/// true for each. A statement that gets no answer within
/// ``PostgresConfiguration/statementDeadline`` closes the connection and
/// throws `08006`.
///
/// ## Threads
///
/// A session is `Sendable`; its statements run one after the other on the
/// connection, in the order they were sent. All sessions share PostgresNIO's
/// default event loop group. ``executeBlocking(sql:arguments:)`` blocks the
/// calling thread, for Quarry's synchronous closures: never call it on an
/// event loop thread (it throws instead of deadlocking).
public final class PostgresSession: Sendable {
    /// The configuration the session connected with.
    public let configuration: PostgresConfiguration

    /// The PostgresNIO connection of the session, for what this type does not
    /// offer (notifications, `COPY`, prepared statements).
    public let connection: PostgresConnection

    let logger: Logger

    /// Whether errors keep the server's detail line, which can repeat the
    /// values of a row (`DatabaseError.detail`).
    let keepsErrorDetail: Bool

    private init(configuration: PostgresConfiguration, connection: PostgresConnection, logger: Logger, keepsErrorDetail: Bool = false) {
        self.configuration = configuration
        self.connection = connection
        self.logger = logger
        self.keepsErrorDetail = keepsErrorDetail
    }

    /// A logger that drops everything: the default of ``connect(to:logger:)``.
    public static let silentLogger = Logger(label: "quarry.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Connects to the server of `configuration`.
    ///
    /// Connecting, TLS and login included, fails after
    /// ``PostgresConfiguration/connectTimeout``.
    ///
    /// - Parameters:
    ///   - configuration: Where the server is and how to log in.
    ///   - logger: Where PostgresNIO logs (nothing by default).
    /// - Throws: `DatabaseError`, whose message names the host, the
    ///   port and the database: with the server's SQLSTATE when the server
    ///   refused the login (`3D000` for a database that does not exist,
    ///   `28P01` for a wrong password, both with the result code
    ///   `SQLITE_CANTOPEN`), and SQLSTATE `08001` (also `SQLITE_CANTOPEN`,
    ///   and `isConnectionError`) when the server could not be reached in time.
    public static func connect(to configuration: PostgresConfiguration, logger: Logger = silentLogger) async throws -> PostgresSession {
        let target = Self.target(of: configuration)
        let nioConfiguration: PostgresConnection.Configuration
        do {
            nioConfiguration = try configuration.postgresNIOConfiguration()
        } catch {
            throw PostgresSession.databaseError(configuring: error, target: target)
        }
        let timeout = configuration.connectTimeout
        let connection: PostgresConnection
        do {
            // PostgresNIO's connectTimeout bounds the TCP connection only; this
            // bounds the TLS handshake and the login too.
            connection = try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask {
                    try await PostgresConnection.connect(
                        on: PostgresConnection.defaultEventLoopGroup.any(),
                        configuration: nioConfiguration, id: PostgresSession.nextID(), logger: logger)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let connection = first else {
                    throw connectTimeoutError(target: target, timeout: timeout)
                }
                return connection
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw PostgresSession.databaseError(connecting: error, target: target, configuration: configuration)
        }
        return PostgresSession(configuration: configuration, connection: connection, logger: logger)
    }

    /// Connects like ``connect(to:logger:)``, blocking the calling thread:
    /// for Quarry's connection pools, which open connections from
    /// synchronous code.
    ///
    /// It waits on PostgresNIO's event loop, never on Swift's cooperative
    /// thread pool, so it cannot deadlock when every thread of that pool is
    /// blocked in such a call. On an event loop thread it throws instead of
    /// waiting.
    ///
    /// - parameter keepsErrorDetail: whether errors keep the server's detail
    ///   line (`Configuration.publicStatementArguments`).
    static func connectBlocking(
        to configuration: PostgresConfiguration, logger: Logger = silentLogger, keepsErrorDetail: Bool = false
    ) throws -> PostgresSession {
        let target = Self.target(of: configuration)
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "cannot connect to \(target) from an event loop thread, where waiting would deadlock")
        }
        let nioConfiguration: PostgresConnection.Configuration
        do {
            nioConfiguration = try configuration.postgresNIOConfiguration()
        } catch {
            throw PostgresSession.databaseError(configuring: error, target: target)
        }
        let eventLoop = PostgresConnection.defaultEventLoopGroup.any()
        let promise = eventLoop.makePromise(of: PostgresConnection.self)
        let timeout = configuration.connectTimeout
        // Both callbacks below run on `eventLoop`, one after the other: the
        // first completes the promise. PostgresNIO's connectTimeout bounds
        // the TCP connection only; the timer bounds the TLS handshake and the
        // login too, and a connection that arrives after it is closed.
        let state = CompletionFlag()
        let timer = eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            guard !state.isComplete else { return }
            state.isComplete = true
            promise.fail(connectTimeoutError(target: target, timeout: timeout))
        }
        PostgresConnection.connect(on: eventLoop, configuration: nioConfiguration, id: nextID(), logger: logger)
            .whenComplete { result in
                timer.cancel()
                guard !state.isComplete else {
                    if case .success(let late) = result { late.close().whenComplete { _ in } }
                    return
                }
                state.isComplete = true
                promise.completeWith(result)
            }
        let connection: PostgresConnection
        do {
            connection = try promise.futureResult.wait()
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw databaseError(connecting: error, target: target, configuration: configuration)
        }
        return PostgresSession(configuration: configuration, connection: connection, logger: logger, keepsErrorDetail: keepsErrorDetail)
    }

    /// Connects to the server of a `postgres://` URL: see
    /// ``PostgresConfiguration/init(url:)`` and ``connect(to:logger:)``.
    ///
    /// - Throws: ``PostgresURLError`` for a malformed URL,
    ///   `DatabaseError` when the connection fails.
    public static func connect(url: String, logger: Logger = silentLogger) async throws -> PostgresSession {
        try await connect(to: PostgresConfiguration(url: url), logger: logger)
    }

    /// Runs one SQL statement with `$1`… arguments and returns its rows.
    ///
    /// - Parameters:
    ///   - sql: One SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: The values of the placeholders, in order (see
    ///     ``PostgresSession`` for how each is sent).
    /// - Returns: The column names, the rows and the number of rows affected.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func execute(sql: String, arguments: [DatabaseValue] = []) async throws -> PostgresResultSet {
        let future = try answer(start(sql: sql, arguments: arguments), sql: sql)
        let result: PostgresQueryResult
        do {
            result = try await future.get()
        } catch {
            throw databaseError(error, sql: sql)
        }
        return try resultSet(result, sql: sql)
    }

    /// Runs one SQL statement like ``execute(sql:arguments:)``, blocking the
    /// calling thread until it is done: for synchronous code, such as
    /// Quarry's `read` and `write` closures.
    ///
    /// Blocking an event loop thread would deadlock the connection, so on
    /// one (inside a PostgresNIO or SwiftNIO callback) it throws a
    /// `DatabaseError` with the result code `SQLITE_MISUSE`, without
    /// running the statement. Avoid it in `async` code, where it holds a
    /// thread of the cooperative pool: use ``execute(sql:arguments:)``.
    ///
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func executeBlocking(sql: String, arguments: [DatabaseValue] = []) throws -> PostgresResultSet {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "PostgresSession.executeBlocking was called on an event loop thread, where waiting would deadlock: use execute(sql:arguments:) with await",
                sql: sql)
        }
        let result = try waitBlocking(for: try start(sql: sql, arguments: arguments), sql: sql)
        return try resultSet(result, sql: sql)
    }

    private func deadlineError(_ deadline: Duration, sql: String) -> DatabaseError {
        DatabaseError(
            sqlState: "08006",
            message: "no answer from \(target) within \(deadline) (PostgresConfiguration.statementDeadline): the connection was closed",
            sql: sql)
    }

    /// Waits for `future`, the answer of a statement sent on the connection,
    /// blocking the calling thread up to ``PostgresConfiguration/statementDeadline``
    /// (then the connection is closed and the wait throws `08006`).
    func waitBlocking<Answer: Sendable>(for future: EventLoopFuture<Answer>, sql: String) throws -> Answer {
        // The deadline is the waiting thread's: a timed wait on a semaphore
        // costs the event loop nothing, where a timer per statement would.
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = BlockingOutcome<Answer>()
        future.whenComplete { result in
            outcome.result = result
            semaphore.signal()
        }
        if let deadline = configuration.statementDeadline {
            if semaphore.wait(timeout: .now() + .nanoseconds(Int(TimeAmount(deadline).nanoseconds))) == .timedOut {
                connection.close().whenComplete { _ in }
                // The answer, if it comes, is dropped with the connection.
                throw deadlineError(deadline, sql: sql)
            }
        } else {
            semaphore.wait()
        }
        do {
            // Set before the signal that ended the wait.
            guard let completed = outcome.result else {
                throw DatabaseError(sqlState: "08006", message: "no answer was recorded from \(target)", sql: sql)
            }
            return try completed.get()
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw databaseError(error, sql: sql)
        }
    }

    /// Closes the connection. Statements sent afterwards throw.
    public func close() async throws {
        do {
            try await connection.close()
        } catch let error as PSQLError where error.code == .clientClosedConnection {
            // Already closed.
        } catch let error as ChannelError where error == .alreadyClosed {
            // Already closed.
        }
    }

    /// Whether the connection is closed (by ``close()``, the server, or the network).
    public var isClosed: Bool { connection.isClosed }

    // MARK: - Implementation

    private static let idCounter = Atomic<Int>(0)

    /// Connection ids for PostgresNIO's log metadata.
    private static func nextID() -> Int { idCounter.wrappingAdd(1, ordering: .relaxed).newValue }

    func start(sql: String, arguments: [DatabaseValue]) throws -> EventLoopFuture<PostgresQueryResult> {
        // PostgresNIO 1.33 never completes a query sent on a closed
        // connection (the channel drops it), so check first. A connection
        // that the server or the network closes between this check and the
        // write is the remaining, narrow window.
        guard !connection.isClosed else {
            throw closedError(sql: sql)
        }
        guard arguments.count <= Int(UInt16.max) else {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "too many arguments: \(arguments.count), PostgreSQL accepts at most \(UInt16.max)", sql: sql)
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: PostgresArgument.bindings(arguments))
        return connection.query(query, logger: logger)
    }

    /// The answer of a statement sent on the connection by the async
    /// ``execute(sql:arguments:)``, which fails after
    /// ``PostgresConfiguration/statementDeadline`` (then the connection is
    /// closed: the statement's fate and the connection's state are unknown).
    private func answer(_ future: EventLoopFuture<PostgresQueryResult>, sql: String) -> EventLoopFuture<PostgresQueryResult> {
        guard let deadline = configuration.statementDeadline else { return future }
        let eventLoop = future.eventLoop
        let promise = eventLoop.makePromise(of: PostgresQueryResult.self)
        let connection = self.connection
        let deadlineError = self.deadlineError(deadline, sql: sql)
        // Both callbacks run on `eventLoop`, one after the other: the first
        // completes the promise.
        let state = CompletionFlag()
        let timer = eventLoop.scheduleTask(in: TimeAmount(deadline)) {
            guard !state.isComplete else { return }
            state.isComplete = true
            connection.close().whenComplete { _ in }
            promise.fail(deadlineError)
        }
        future.whenComplete { result in
            timer.cancel()
            guard !state.isComplete else { return }
            state.isComplete = true
            promise.completeWith(result)
        }
        return promise.futureResult
    }

    /// The server, for error messages.
    var target: String { Self.target(of: configuration) }

    /// The server of `configuration`, for error messages.
    private static func target(of configuration: PostgresConfiguration) -> String {
        "PostgreSQL at \(configuration.endpointDescription), database \"\(configuration.database)\""
    }

    private static func connectTimeoutError(target: String, timeout: Duration) -> DatabaseError {
        DatabaseError(
            sqlState: "08001", message: "cannot connect to \(target): no answer within \(timeout.components.seconds) s (connect timeout)")
    }

    /// The error of a statement sent on a connection known closed: it was
    /// never sent.
    func closedError(sql: String) -> DatabaseError {
        DatabaseError(sqlState: "08003", message: "the session to \(target) is closed", sql: sql)
    }

    private func resultSet(_ result: PostgresQueryResult, sql: String) throws -> PostgresResultSet {
        let (columnNames, rows) = try values(of: result.rows, sql: sql)
        // The tag is the command's name, then its counts (`INSERT 0 3`).
        let commandTag = result.metadata.command.prefix(while: { $0 != " " })
        return PostgresResultSet(
            columnNames: columnNames, rows: rows, rowsAffected: result.metadata.rows ?? 0, commandTag: String(commandTag))
    }

    /// The column names and the values of `rows`.
    func values(of rows: some Collection<PostgresRow>, sql: String) throws -> (columnNames: [String], rows: [[DatabaseValue]]) {
        var columnNames: [String] = []
        var values: [[DatabaseValue]] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            if columnNames.isEmpty {
                columnNames = row.map(\.columnName)
            }
            values.append(try Self.values(of: row, sql: sql))
        }
        return (columnNames, values)
    }

    /// The values of one row.
    static func values(of row: PostgresRow, sql: String) throws -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(row.count)
        for cell in row {
            do {
                values.append(try PostgresCellDecoder.value(of: cell))
            } catch {
                throw DatabaseError(
                    resultCode: .SQLITE_MISMATCH,
                    message: "column \"\(error.column)\" has a type (OID \(error.typeOID)) that QuarryPostgres does not read yet: cast it to text in the SQL (\(error.column)::text)",
                    sql: sql)
            }
        }
        return values
    }

    func databaseError(_ error: any Error, sql: String) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let sqlState = info[.sqlState] {
                return DatabaseError(
                    sqlState: sqlState, message: info[.message] ?? "(no message)", sql: sql,
                    constraintName: info[.constraintName], tableName: info[.tableName], columnName: info[.columnName],
                    detail: keepsErrorDetail ? info[.detail] : nil)
            }
            switch error.code {
            case .clientClosedConnection:
                return closedError(sql: sql)
            case .serverClosedConnection, .connectionError, .uncleanShutdown:
                return DatabaseError(
                    sqlState: "08006",
                    message: "the connection to \(target) was lost (\(error.code))\(PostgresSession.underlyingText(error))", sql: sql)
            case .queryCancelled:
                return DatabaseError(resultCode: .SQLITE_INTERRUPT, message: "the statement was cancelled", sql: sql)
            default:
                return DatabaseError(
                    resultCode: .SQLITE_ERROR, message: "PostgresNIO error \(error.code)\(PostgresSession.underlyingText(error))", sql: sql)
            }
        }
        if let error = error as? ChannelError, error == .alreadyClosed || error == .ioOnClosedChannel {
            return closedError(sql: sql)
        }
        return DatabaseError(resultCode: .SQLITE_ERROR, message: "\(error)", sql: sql)
    }

    private static func databaseError(
        connecting error: any Error, target: String, configuration: PostgresConfiguration
    ) -> DatabaseError {
        if let error = error as? PSQLError {
            if let info = error.serverInfo, let sqlState = info[.sqlState] {
                return DatabaseError(sqlState: sqlState, message: "cannot connect to \(target): \(info[.message] ?? "(no message)")")
            }
            if let underlying = error.underlying, let reason = tlsFailure(underlying, configuration: configuration) {
                return DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot connect to \(target): \(reason)")
            }
            return DatabaseError(sqlState: "08001", message: "cannot connect to \(target): \(error.code)\(underlyingText(error))")
        }
        if error is CancellationError {
            return DatabaseError(resultCode: .SQLITE_INTERRUPT, message: "connecting to \(target) was cancelled")
        }
        return DatabaseError(sqlState: "08001", message: "cannot connect to \(target): \(error)")
    }

    /// What went wrong in a TLS handshake, in words, or nil for an error
    /// that is not NIOSSL's.
    private static func tlsFailure(_ error: any Error, configuration: PostgresConfiguration) -> String? {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's TLS certificate does not name the host \"\(configuration.host)\" (sslmode \(configuration.sslMode.rawValue) checks the host name; verify-ca does not)"
        }
        guard error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError else { return nil }
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            let authorities = configuration.sslRootCert.map { "those of sslrootcert \"\($0)\"" } ?? "the system's"
            return "the TLS handshake failed: the server's certificate could not be verified with the trusted certificate authorities (\(authorities)): \(text)"
        }
        return "the TLS handshake failed: \(text)"
    }

    /// The error of a configuration that PostgresNIO cannot use (a TLS file
    /// that is missing, say), naming the server.
    private static func databaseError(configuring error: any Error, target: String) -> DatabaseError {
        let reason = (error as? DatabaseError)?.message ?? "TLS setup failed: \(error)"
        return DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "cannot connect to \(target): \(reason)")
    }

    private static func underlyingText(_ error: PSQLError) -> String {
        error.underlying.map { ": \($0)" } ?? ""
    }
}

/// The answer of a statement waited for by `PostgresSession.executeBlocking`:
/// written by the event loop before it signals the waiting thread, read by
/// that thread after the signal.
final class BlockingOutcome<Answer: Sendable>: @unchecked Sendable {
    var result: Result<Answer, any Error>?
}

/// Whether a promise raced by a timer (`PostgresSession.connectBlocking`, the
/// async `execute`'s deadline) is complete; read and written only on the
/// promise's event loop.
private final class CompletionFlag: @unchecked Sendable {
    var isComplete = false
}
