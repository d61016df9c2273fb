// DatabaseRegionObservation: calls back after each commit that changed a
// region of the database, with a connection of the writer — for work that
// must follow a commit (a cache to clear, a message to send) rather than a
// value to fetch. Commits of the writer are seen through its hooks; foreign
// ones (other processes on SQLite, every commit on a server) through the
// reader's ForeignCommitFeed, like ValueObservation.

import Foundation

/// Tells, after each commit that changed a region of the database, that it
/// changed.
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Player.self)
/// let cancellable = observation.start(in: dbQueue) { error in
///     logger.error("\(error)")
/// } onChange: { db in
///     // A commit changed the player table.
///     try? db.execute(sql: "UPDATE stats SET stale = 1")
/// }
/// ```
///
/// On SQLite, `onChange` runs on the writer, right after each commit of the
/// queue or pool that changed the region, before any other access of the
/// writer. When the writer watches for other processes' commits
/// (``Configuration/foreignCommitPollingInterval``), their region is
/// unknown: `onChange` runs after each of them, in a write access without a
/// transaction. On PostgreSQL, commits are known from notifications
/// (`createChangeNotificationTrigger(on:)`), which name their tables:
/// `onChange` runs in a write access after each commit to a table of the
/// region, whichever process or connection made it. The commits of other
/// processes, and all commits on a server, are seen from a moment shortly
/// after `start` returns, once the watching began (on PostgreSQL, once the
/// listening connection listens).
///
/// Differences from GRDB: it tracks regions or record types, not requests
/// (use the region ``Database/recordingRegion(_:)`` records for a request);
/// there is no Combine publisher.
public struct DatabaseRegionObservation: Sendable {
    let region: DatabaseRegion

    /// Observes the union of `regions`.
    public init(tracking regions: DatabaseRegion...) {
        self.init(tracking: regions)
    }

    /// Observes the union of `regions`.
    public init(tracking regions: [DatabaseRegion]) {
        region = regions.reduce(into: DatabaseRegion()) { $0.formUnion($1) }
    }

    /// Observes the tables of record types: `DatabaseRegionObservation(tracking: Player.self, Team.self)`.
    public init(tracking records: any TableRecord.Type...) {
        self.init(tracking: records.map { DatabaseRegion(table: $0.databaseTableName) })
    }

    /// Starts the observation; it runs until the returned value is cancelled
    /// or deallocated: keep it.
    ///
    /// Blocks until the writer is free, to attach to its commits (as GRDB
    /// does): do not call it from inside an access of `writer`, where it
    /// calls `onError` instead.
    ///
    /// - parameters:
    ///   - writer: the database to observe.
    ///   - onError: called when the observation cannot start, or when the
    ///     write access for a foreign commit fails (the observation goes on).
    ///   - onChange: called with a connection of the writer after each commit
    ///     that changed the region. The connection is valid only in the call.
    public func start(
        in writer: any DatabaseWriter,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void
    ) -> AnyDatabaseCancellable {
        startObserver(in: writer, onError: onError, onChange: onChange).0
    }

    /// `start`, returning the observer too (for tests that wait until it
    /// watches foreign commits).
    func startObserver(
        in writer: any DatabaseWriter,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void
    ) -> (AnyDatabaseCancellable, DatabaseRegionObserver) {
        let observer = DatabaseRegionObserver(region: region, writer: writer, onError: onError, onChange: onChange)
        observer.start()
        return (AnyDatabaseCancellable { observer.cancel() }, observer)
    }
}

/// The transaction observer and feed subscriber of one DatabaseRegionObservation.
final class DatabaseRegionObserver: TransactionObserver, @unchecked Sendable {
    private let region: DatabaseRegion
    private let writer: any DatabaseWriter
    private let onError: @Sendable (any Error) -> Void
    private let onChange: @Sendable (Database) -> Void

    private let lock = NSLock()
    private var isCancelled = false
    private var subscription: ForeignCommitSubscription?
    /// Whether the foreign commits are watched (for tests).
    var isWatchingForeignCommits: Bool { lock.withLock { subscription != nil } }
    /// A write access for foreign commits is scheduled and has not yet
    /// begun: a foreign commit that arrives meanwhile needs no access of its own.
    private var foreignChangePending = false

    /// Whether the current transaction changed the region (writer's thread only).
    private var transactionChangedRegion = false

    init(
        region: DatabaseRegion, writer: any DatabaseWriter,
        onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Database) -> Void
    ) {
        self.region = region
        self.writer = writer
        self.onError = onError
        self.onChange = onChange
    }

    func start() {
        let feed = (writer as? any ForeignCommitSource)?.foreignCommitFeed
        do {
            try writer.writeWithoutTransaction { db in
                try db.attachCommitObserver(self, hasFeed: feed != nil, feature: "DatabaseRegionObservation")
            }
        } catch {
            onError(error)
            return
        }
        guard let feed else { return }
        Task.detached { [self] in
            do {
                let subscription = try await feed.subscribe { [weak self] commit in self?.foreignCommitDidHappen(commit) }
                let keep = lock.withLock { () -> Bool in
                    if isCancelled { return false }
                    self.subscription = subscription
                    return true
                }
                if !keep { subscription.cancel() }
            } catch {
                onError(error)
            }
        }
    }

    func cancel() {
        let subscription = lock.withLock { () -> ForeignCommitSubscription? in
            isCancelled = true
            defer { self.subscription = nil }
            return self.subscription
        }
        subscription?.cancel()
        // The observer is weakly held by the writer (`.observerLifetime`):
        // releasing the cancellable releases it; until then it is silent.
    }

    private var cancelled: Bool { lock.withLock { isCancelled } }

    // MARK: - Foreign commits

    private func foreignCommitDidHappen(_ commit: ForeignCommit) {
        guard ChangedTables(commit).touches(region) else { return }
        let schedule = lock.withLock { () -> Bool in
            if isCancelled || foreignChangePending { return false }
            foreignChangePending = true
            return true
        }
        guard schedule else { return }
        Task.detached { [self] in
            do {
                try await writer.writeWithoutTransaction { [self] db in
                    // Commits that arrive from now on need a call of their own.
                    let call = lock.withLock { () -> Bool in
                        foreignChangePending = false
                        return !isCancelled
                    }
                    if call { onChange(db) }
                }
            } catch {
                lock.withLock { foreignChangePending = false }
                if !cancelled { onError(error) }
            }
        }
    }

    // MARK: - TransactionObserver

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool {
        !cancelled && region.isModified(byEventsOfKind: kind)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if region.isModified(by: event) { transactionChangedRegion = true }
    }

    func databaseDidChange() {
        transactionChangedRegion = true
    }

    func databaseDidCommit(_ db: Database) {
        let changed = transactionChangedRegion
        transactionChangedRegion = false
        if changed, !cancelled { onChange(db) }
    }

    func databaseDidRollback(_ db: Database) {
        transactionChangedRegion = false
    }
}
