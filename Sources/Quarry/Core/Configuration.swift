// Configuration: how DatabaseQueue and DatabasePool open and set up their connections.

import Logging

/// Options for opening a ``DatabaseQueue`` or a ``DatabasePool``.
///
/// ```swift
/// var config = Configuration()
/// config.busyTimeout = .seconds(10)
/// config.logger = Logger(label: "sql")        // logs every statement at .debug
/// config.prepareDatabase = { db in
///     try db.execute(sql: "PRAGMA synchronous = NORMAL")
/// }
/// let dbPool = try DatabasePool(path: "/var/lib/app/db.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// Opens the database read-only: every write throws `SQLITE_READONLY`.
    public var readonly = false

    /// Enforces foreign keys (`PRAGMA foreign_keys = ON`, <https://www.sqlite.org/foreignkeys.html>).
    /// On by default.
    public var foreignKeysEnabled = true

    /// How long a connection waits for a lock held by another connection or
    /// process before it throws `SQLITE_BUSY` (<https://www.sqlite.org/c3ref/busy_handler.html>).
    /// `nil` fails at once. Default: 5 seconds.
    ///
    /// While it waits, the connection tries again every millisecond, so that
    /// it gets its turn even against a process that commits one short
    /// transaction after the other.
    ///
    /// Connections of one ``DatabasePool`` or ``DatabaseQueue`` never wait on
    /// each other for ordinary reads and writes; this timeout covers other
    /// processes, and other pools, on the same file.
    public var busyTimeout: Duration? = .seconds(5)

    /// The journal mode to set when a ``DatabaseQueue`` opens its file
    /// (<https://www.sqlite.org/pragma.html#pragma_journal_mode>); nil keeps the
    /// file's mode. A ``DatabasePool`` always uses WAL.
    public var journalMode: JournalMode?

    /// The most reader connections a ``DatabasePool`` opens (default 5):
    /// the number of reads that run in parallel.
    public var maximumReaderCount = 5

    /// Runs on every new connection, after Quarry's own set-up: pragmas,
    /// custom functions, collations.
    public var prepareDatabase: (@Sendable (Database) throws -> Void)?

    /// Logs every executed statement through swift-log, at ``sqlLogLevel``.
    /// Statement arguments are logged only with ``publicStatementArguments``.
    public var logger: Logger?

    /// The level of SQL statements logged by ``logger``. Default: `.debug`.
    public var sqlLogLevel: Logger.Level = .debug

    /// Whether errors and logs may include statement arguments. Off by default,
    /// since arguments can hold user data (emails, tokens) that must stay out of logs.
    public var publicStatementArguments = false

    /// A label for the connections, used in log metadata.
    public var label: String?

    /// The default configuration.
    public init() {}
}

/// An SQLite journal mode (<https://www.sqlite.org/pragma.html#pragma_journal_mode>).
public enum JournalMode: String, Sendable {
    /// The rollback journal is deleted at the end of each transaction (SQLite's default).
    case delete = "DELETE"
    /// The rollback journal is truncated instead of deleted.
    case truncate = "TRUNCATE"
    /// The rollback journal header is zeroed instead of deleted.
    case persist = "PERSIST"
    /// The rollback journal is kept in memory.
    case memory = "MEMORY"
    /// Write-ahead logging: readers do not block the writer (<https://www.sqlite.org/wal.html>).
    case wal = "WAL"
    /// No rollback journal: a crash can corrupt the database.
    case off = "OFF"
}
