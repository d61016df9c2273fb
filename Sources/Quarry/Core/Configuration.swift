// Configuration: how DatabaseQueue and DatabasePool open and set up their connections.

import CoreMetrics
import Logging
import Tracing

/// Options for opening a ``DatabaseQueue`` or a ``DatabasePool``.
///
/// ```swift
/// var config = Configuration()
/// config.busyTimeout = .seconds(10)
/// config.logger = Logger(label: "sql")        // logs every statement at .debug
/// config.synchronous = .extra              // the default: see ``synchronous``
/// config.prepareDatabase = { db in
///     try db.execute(sql: "PRAGMA cache_size = -8000")
/// }
/// let dbPool = try DatabasePool(path: "/var/lib/app/db.sqlite", configuration: config)
/// ```
public struct Configuration: Sendable {
    /// Opens the database read-only: every write throws `SQLITE_READONLY`.
    ///
    /// On PostgreSQL, each connection's transactions are read-only
    /// (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`), and a write
    /// fails with SQLSTATE 25006, reported as `SQLITE_READONLY` too.
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

    /// When SQLite waits for the disk (`PRAGMA synchronous`,
    /// <https://www.sqlite.org/pragma.html#pragma_synchronous>), set on every
    /// connection. Default: ``SynchronousMode/extra``, whatever the SQLite
    /// build's own default: every acknowledged commit survives a power cut,
    /// on a ``DatabaseQueue`` and a ``DatabasePool`` alike, in every journal
    /// mode that has a journal on disk (`DELETE`, `TRUNCATE`, `PERSIST`,
    /// `WAL`). Quarry never changes a file's journal mode to get there.
    ///
    /// It decides what a power cut or an operating-system crash may undo;
    /// the end of a process (a crash, `SIGKILL`) loses nothing in any mode.
    /// <doc:OperatingInProduction#Durability> has what each mode keeps,
    /// measured with simulated power cuts, and what `EXTRA` costs.
    ///
    /// | Mode | `WAL` | `DELETE` | `TRUNCATE`, `PERSIST` |
    /// | --- | --- | --- | --- |
    /// | ``SynchronousMode/extra`` (default) | every acknowledged commit | every acknowledged commit | every acknowledged commit |
    /// | ``SynchronousMode/full`` | every acknowledged commit | all but possibly the last commit | every acknowledged commit |
    /// | ``SynchronousMode/normal`` | commits since the last WAL sync (a checkpoint) may be lost; never corrupt | may lose the last commit, and may corrupt | may lose the last commit, and may corrupt |
    /// | ``SynchronousMode/off`` | may corrupt | may corrupt | may corrupt |
    ///
    /// `EXTRA` differs from `FULL` in `DELETE` mode only, where the deletion
    /// of the journal commits a transaction: SQLite then syncs the directory
    /// after it, one more sync per commit. In the other modes the two are the
    /// same. The journal modes `MEMORY` and `OFF` (``JournalMode/memory``,
    /// ``JournalMode/off``) are not durable whatever this setting: a power
    /// cut in the middle of a commit can corrupt the file.
    public var synchronous: SynchronousMode = .extra

    /// Whether the file may come from someone else: a user's upload, a
    /// download, a file received by mail (default: false, a file that this
    /// application wrote).
    ///
    /// With true, each connection is hardened as SQLite recommends for
    /// untrusted files (<https://www.sqlite.org/security.html>):
    /// - defensive mode (`SQLITE_DBCONFIG_DEFENSIVE`): SQL cannot corrupt
    ///   the file on purpose (`PRAGMA writable_schema`, `journal_mode = OFF`);
    /// - the schema is not trusted (`PRAGMA trusted_schema = OFF`): the
    ///   file's views and triggers may call only SQLite's harmless built-in
    ///   functions;
    /// - the functions added with ``Database/add(function:)`` are
    ///   `SQLITE_DIRECTONLY`: a view or trigger that calls one fails.
    ///   (SQLite 3.40.1 still evaluates a `CHECK` constraint that calls one,
    ///   measured by the tests: do not register functions that must not run
    ///   on a file's behalf.)
    /// - caps on what one value or statement may hold, set with
    ///   `sqlite3_limit` (<https://www.sqlite.org/c3ref/limit.html>) before
    ///   the file's schema is read, so that a small file cannot make the
    ///   process allocate or compile without bound (the table below).
    ///
    /// | Limit | Cap | SQLite's default |
    /// | --- | --- | --- |
    /// | `SQLITE_LIMIT_LENGTH` (a string or blob, stored or computed) | 1,000,000 bytes | 1,000,000,000 |
    /// | `SQLITE_LIMIT_SQL_LENGTH` (a statement; the file's `CREATE` statements too) | 100,000 bytes | 1,000,000,000 |
    /// | `SQLITE_LIMIT_COLUMN` | 200 | 2,000 |
    /// | `SQLITE_LIMIT_EXPR_DEPTH` | 100 | 1,000 |
    /// | `SQLITE_LIMIT_COMPOUND_SELECT` | 10 | 500 |
    /// | `SQLITE_LIMIT_VDBE_OP` (the size of a compiled statement) | 25,000 | 250,000,000 |
    /// | `SQLITE_LIMIT_FUNCTION_ARG` | 32 | 127 |
    /// | `SQLITE_LIMIT_ATTACHED` | 0 | 10 |
    /// | `SQLITE_LIMIT_LIKE_PATTERN_LENGTH` | 50 | 50,000 |
    /// | `SQLITE_LIMIT_VARIABLE_NUMBER` | 999 | 32,766 |
    /// | `SQLITE_LIMIT_TRIGGER_DEPTH` | 10 | 1,000 |
    ///
    /// The caps follow <https://www.sqlite.org/security.html>, loosened where
    /// SQLite's suggestion would refuse the application's own ordinary SQL
    /// (expression depth, function arguments, bound values: Quarry splits its
    /// batch statements by the connection's limit). A value or statement over
    /// a cap throws a ``DatabaseError``: `SQLITE_TOOBIG`, whose message names
    /// the two length caps, or `SQLITE_ERROR` with SQLite's message naming the
    /// limit ("Expression tree is too large (maximum depth 100)"). A file
    /// whose schema is over a cap (a view of enormous SQL or depth) throws as
    /// it opens, with ``DatabaseError/isCorrupt`` true and SQLite's message
    /// naming the object and the limit ("malformed database schema (name) -
    /// Expression tree is too large…"). A ``prepareDatabase(_:)`` step may
    /// raise a cap with `sqlite3_limit` on ``Database/sqliteConnection``.
    /// SQLite's heap limits (`sqlite3_soft_heap_limit64`,
    /// `sqlite3_hard_heap_limit64`) are process-wide, so this option does not
    /// set them: a process that opens untrusted files may set them itself.
    ///
    /// Together with ``maximumStatementDuration``, which bounds a query
    /// that a hostile schema makes slow, it lets a tool open and query a
    /// file it did not write. A file that is damaged or not a database still
    /// throws (``DatabaseError/isCorrupt``), as it does without this option.
    public var acceptsUntrustedFiles = false

    /// Whether a path that begins with `file:` is read as a URI filename
    /// (<https://www.sqlite.org/uri.html>), whose parameters choose the VFS
    /// (`vfs=`), open the file immutable (`immutable=1`), or share a cache
    /// (default: false).
    ///
    /// With false, opening such a path throws `SQLITE_CANTOPEN` rather than
    /// let a path built from user input carry options. GRDB always accepts
    /// URI filenames; Quarry asks for them, deliberately. A named in-memory
    /// ``DatabaseQueue`` (``DatabaseQueue/init(named:configuration:)``) needs
    /// nothing: Quarry builds its URI itself.
    public var acceptsURIFilenames = false

    /// Whether SQL accepts double-quoted string literals (default: false, as
    /// in GRDB).
    ///
    /// SQLite reads `"name"` as a string when no column has that name
    /// (<https://www.sqlite.org/quirks.html#dblquote>), so that a misspelled
    /// column, `Column("nmae") == "x"`, silently compares two strings and
    /// matches nothing. With false, it is an error: `no such column: nmae`.
    /// Write string literals with single quotes, or bind them.
    public var acceptsDoubleQuotedStringLiterals = false

    /// The longest a statement may run before it is interrupted with a
    /// ``DatabaseError`` `SQLITE_INTERRUPT` that names its SQL; nil (the
    /// default) for no limit. Each connection starts with this limit and can
    /// change it with ``Database/maximumStatementDuration``.
    ///
    /// The limit is checked by a progress handler every thousand SQLite
    /// instructions (<https://www.sqlite.org/c3ref/progress_handler.html>):
    /// a statement stops within microseconds of its deadline while SQLite
    /// computes, but a statement blocked waiting for a lock (see
    /// ``busyTimeout``) or for the disk stops only when that wait ends.
    public var maximumStatementDuration: Duration?

    /// How often a ``DatabaseQueue`` or ``DatabasePool`` that runs
    /// observations checks its file for commits made by other processes (or
    /// by other queues and pools on the same file), or nil (the default) to
    /// see only its own commits, as in GRDB.
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.foreignCommitPollingInterval = .milliseconds(250)
    /// let dbPool = try DatabasePool(path: path, configuration: configuration)
    /// // A ValueObservation started on dbPool now also sees the commits of
    /// // another process that writes to the same file, within about 250 ms.
    /// ```
    ///
    /// While at least one ``ValueObservation`` or
    /// ``DatabaseRegionObservation`` runs, the writer connection reads
    /// `PRAGMA data_version` once per interval (see the article "Observing
    /// changes" for its measured cost). The region a foreign commit changed
    /// is unknown: each observation fetches again, and delivers the value
    /// only if it differs from the last one (see
    /// ``ValueObservation/tracking(_:)``). Each check is an access of the
    /// writer, like any other: it waits for a running write, and appears in
    /// the SQL log (at ``sqlLogLevel``) and in traces. Ignored for in-memory
    /// databases and on database servers, whose observations use the
    /// server's notifications.
    public var foreignCommitPollingInterval: Duration?

    /// How a ``DatabasePool`` keeps its WAL file from growing
    /// (default: ``CheckpointPolicy/sqliteDefault``).
    public var checkpointPolicy: CheckpointPolicy = .sqliteDefault

    /// The most reader connections a ``DatabasePool`` opens (default 5):
    /// the number of reads that run in parallel.
    public var maximumReaderCount = 5

    /// Runs on every new connection, after Quarry's own set-up and after the
    /// steps added with ``prepareDatabase(_:)``: pragmas, custom functions,
    /// collations. Assigning it replaces only this closure, never the added steps.
    public var prepareDatabase: (@Sendable (Database) throws -> Void)?

    /// The steps added with ``prepareDatabase(_:)``, in order.
    var preparationSteps: [@Sendable (Database) throws -> Void] = []

    /// Adds a step that runs on every new connection, after the steps added
    /// before it, as GRDB's method does:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -8000") }
    /// config.prepareDatabase { db in try db.add(function: slugify) }
    /// ```
    ///
    /// A step that throws makes opening the connection fail with its error.
    public mutating func prepareDatabase(_ step: @escaping @Sendable (Database) throws -> Void) {
        preparationSteps.append(step)
    }

    /// Logs every executed statement through swift-log, at ``sqlLogLevel``.
    /// Statement arguments are logged only with ``publicStatementArguments``.
    public var logger: Logger?

    /// The level of SQL statements logged by ``logger``. Default: `.debug`.
    public var sqlLogLevel: Logger.Level = .debug

    /// Whether errors and logs may include statement arguments. Off by default,
    /// since arguments can hold user data (emails, tokens) that must stay out of logs.
    public var publicStatementArguments = false

    /// A label for the connections, used in log metadata and as the `db`
    /// dimension of metrics.
    public var label: String?

    /// Where Quarry sends spans (swift-distributed-tracing), or nil for none
    /// (the default).
    ///
    /// ```swift
    /// config.tracer = InstrumentationSystem.tracer
    /// ```
    ///
    /// Each access is a span (`quarry.read`, `quarry.write`,
    /// `quarry.writeWithoutTransaction`), child of the caller's
    /// `ServiceContext` (an HTTP request's span, say), and each statement a
    /// span under it, named after its first keyword (`SELECT`, `INSERT`…),
    /// with OpenTelemetry's database attributes: `db.system.name` (`sqlite`),
    /// `db.namespace` (the file name), `db.query.text` (the SQL with its
    /// parameters, or with its values only with ``publicStatementArguments``),
    /// `db.operation.name`, `db.response.returned_rows`, and the error of a
    /// statement or access that fails. See the "Operating a database in
    /// production" article.
    ///
    /// `NoOpTracer`, which `InstrumentationSystem.tracer` is until a backend
    /// is bootstrapped, is treated as nil: it costs nothing.
    public var tracer: (any Tracer)?

    /// Where Quarry records metrics (swift-metrics), or nil for none (the
    /// default). Use `MetricsSystem.factory` for the bootstrapped backend.
    ///
    /// Quarry records: `quarry.connection.wait` (timer: waiting for a
    /// connection), `quarry.statement.duration` (timer), `quarry.busy.sleeps`
    /// (counter: milliseconds slept waiting for another process's lock),
    /// `quarry.checkpoint.wal_frames` and `quarry.checkpoint.checkpointed_frames`
    /// (recorders, after each checkpoint), `quarry.checkpoint.busy` (counter:
    /// checkpoints refused by `SQLITE_BUSY`). Dimensions: `role` (`queue`,
    /// `writer` or `reader`), and `db` (``label``) when set.
    ///
    /// swift-metrics' no-op handler, which `MetricsSystem.factory` is until a
    /// backend is bootstrapped, is treated as nil: it costs nothing.
    public var metricsFactory: (any MetricsFactory)?

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
    /// The rollback journal is kept in memory: a power cut or a crash in the
    /// middle of a commit can corrupt the file, whatever
    /// ``Configuration/synchronous``.
    case memory = "MEMORY"
    /// Write-ahead logging: readers do not block the writer (<https://www.sqlite.org/wal.html>).
    case wal = "WAL"
    /// No rollback journal: a crash or a power cut can corrupt the database,
    /// whatever ``Configuration/synchronous``.
    case off = "OFF"
}

/// When SQLite waits for the disk to confirm a write
/// (<https://www.sqlite.org/pragma.html#pragma_synchronous>); see
/// ``Configuration/synchronous`` for what each keeps after a power cut.
public enum SynchronousMode: String, Sendable, CaseIterable {
    /// Never waits: fastest, and a power cut may corrupt the file.
    case off = "OFF"
    /// Waits at checkpoints in WAL mode, not at each commit: a power cut
    /// may undo the commits since the last checkpoint, never corrupt.
    case normal = "NORMAL"
    /// Waits at each commit. In rollback-journal `DELETE` mode, a power cut
    /// may still undo the last commit: the journal's deletion, which commits
    /// a transaction there, is not synced.
    case full = "FULL"
    /// As ``full``, and in rollback-journal `DELETE` mode also waits for the
    /// journal's deletion, which is what commits a transaction there
    /// (Quarry's default). The same as ``full`` in the other journal modes.
    case extra = "EXTRA"
}
