// ValueObserver: runs one ValueObservation. It is the transaction observer
// attached to the writer connection, and it runs the fetches, one at a time,
// in a task.
//
// Why no commit is missed, even when the region of the fetch changes from
// one fetch to the next:
// - From the moment a fetch is scheduled until it ends (`isFetching`), the
//   observer observes every table, and remembers which tables the commits
//   of that time changed. A fetch is scheduled inside `databaseDidCommit`,
//   on the writer's thread, so no later statement of the writer escapes it.
// - When the fetch ends, it knows the region it read. If a commit of that
//   time changed a table of that region, the fetch may have read a snapshot
//   from before that commit: it runs again.
// - Otherwise, only commits that touch the region schedule a fetch.
// - A fetch ends only after its value is delivered: a commit made while the
//   value is on its way out is noted like one made during the fetch, so that
//   no second fetch runs alongside and delivers out of order (issue 46: a
//   pool delivered 281, then 280).
//
// State shared between the writer's thread and the fetch task is guarded by
// `lock`; the changes of the current transaction belong to the writer's thread.

import Foundation

final class ValueObserver<Value: Sendable>: TransactionObserver, @unchecked Sendable {
    enum Output {
        case value(Value)
        case failure(any Error)
        case finished
    }

    private let observation: ValueObservation<Value>
    private let reader: any DatabaseReader
    private let output: @Sendable (Output) -> Void

    private let lock = NSLock()
    /// The region of the last fetch; nil before the first one (every table).
    private var region: DatabaseRegion?
    /// Whether a fetch is scheduled or running.
    private var isFetching = true
    /// The tables changed by commits while a fetch was scheduled or running.
    private var changedWhileFetching = ChangedTables()
    private var isCancelled = false
    private var lastValue: Value?
    /// Whether the next value is delivered even when equal to the last one:
    /// true for the first value, and for values fetched after a commit of
    /// the writer, as GRDB delivers them; false after foreign commits only,
    /// whose region is unknown or coarse.
    private var deliversUnchangedValue = true
    /// The subscription to the reader's foreign commits, if it has them.
    private var subscription: ForeignCommitSubscription?
    /// A test seam: awaited with each value just before it is delivered, so
    /// that a test can commit while a value is on its way out; nil outside tests.
    private let willDeliver: (@Sendable (Value) async -> Void)?

    /// The tables changed by the current transaction (writer's thread only).
    private var transactionChanges = ChangedTables()

    init(
        observation: ValueObservation<Value>, reader: any DatabaseReader,
        willDeliver: (@Sendable (Value) async -> Void)? = nil,
        output: @escaping @Sendable (Output) -> Void
    ) {
        self.observation = observation
        self.reader = reader
        self.willDeliver = willDeliver
        self.output = output
    }

    /// Attaches to the writer and to the reader's foreign commits, then
    /// fetches the first value.
    func start() {
        Task.detached { [self] in
            do {
                try await attach()
            } catch {
                fail(error)
                return
            }
            await fetchUntilCurrent()
        }
    }

    /// Attaches the observer to the writer's commits (SQLite's hooks), and
    /// subscribes to the reader's foreign commits if it watches them (other
    /// processes' on SQLite, every commit on a server).
    private func attach() async throws {
        let feed = (reader as? any ForeignCommitSource)?.foreignCommitFeed
        if let writer = reader as? any DatabaseWriter {
            try await writer.writeWithoutTransaction { [self] db in
                try db.attachCommitObserver(self, hasFeed: feed != nil, feature: "ValueObservation")
            }
        }
        guard let feed else { return }
        let subscription = try await feed.subscribe { [weak self] commit in self?.foreignCommitDidHappen(commit) }
        let keep = lock.withLock { () -> Bool in
            if isCancelled { return false }
            self.subscription = subscription
            return true
        }
        if !keep { subscription.cancel() }
    }

    func cancel() {
        if stop() { output(.finished) }
    }

    /// Marks the observation stopped; true only the first time, so that one
    /// end (finished or failed) is output.
    private func stop() -> Bool {
        let (first, subscription) = lock.withLock { () -> (Bool, ForeignCommitSubscription?) in
            defer {
                isCancelled = true
                self.subscription = nil
            }
            return (!isCancelled, self.subscription)
        }
        subscription?.cancel()
        return first
    }

    // MARK: - Fetching

    /// Fetches, and fetches again as long as commits made during a fetch
    /// touched what it read.
    ///
    /// A fetch ends (`isFetching` false) only once its value is out: a commit
    /// made meanwhile is noted for the fetch that follows it, here, instead
    /// of starting a fetch of its own that could deliver before this value
    /// and be followed by it. So values are delivered one at a time, in the
    /// order of the database's commits, never an older one after a newer one.
    private func fetchUntilCurrent() async {
        while true {
            if lock.withLock({ isCancelled }) { return }
            let fetched: (value: Value, region: DatabaseRegion)
            do {
                let fetch = observation.fetch
                fetched = try await reader.read { db in try db.recordingRegion { try fetch(db) } }
            } catch {
                fail(error)
                return
            }
            let (stopped, deliver) = lock.withLock { () -> (Bool, Value?) in
                if isCancelled { return (true, nil) }
                region = fetched.region
                if let lastValue {
                    if let isDuplicate = observation.isDuplicate {
                        if isDuplicate(lastValue, fetched.value) { return (false, nil) }
                    } else if !deliversUnchangedValue, Self.isEqual(lastValue, fetched.value) {
                        return (false, nil)
                    }
                }
                lastValue = fetched.value
                return (false, fetched.value)
            }
            if stopped { return }
            if let deliver {
                if let willDeliver { await willDeliver(deliver) }
                output(.value(deliver))
            }
            // The commits since the fetch began, up to now that its value is
            // out: if one touched what it read, it may have read a snapshot
            // from before that commit, and runs again.
            let again = lock.withLock { () -> Bool in
                if isCancelled { return false }
                let again = region.map { changedWhileFetching.touches($0) } ?? false
                deliversUnchangedValue = again && changedWhileFetching.includesOwnCommit
                changedWhileFetching = ChangedTables()
                if !again { isFetching = false }
                return again
            }
            if !again { return }
        }
    }

    /// Whether two values are equal, when `Value` is `Equatable` (checked at
    /// run time: `tracking` accepts any value); false when it is not.
    private static func isEqual(_ lhs: Value, _ rhs: Value) -> Bool {
        guard let lhs = lhs as? any Equatable else { return false }
        return lhs.isEqual(toValue: rhs)
    }

    private func fail(_ error: any Error) {
        if stop() { output(.failure(error)) }
    }

    // MARK: - TransactionObserver

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool {
        lock.withLock {
            if isCancelled { return false }
            guard let region, !isFetching else { return true }
            return region.isModified(byEventsOfKind: kind)
        }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        transactionChanges.insert(event.tableName)
    }

    func databaseDidChange() {
        transactionChanges.includesUnknown = true
    }

    func databaseDidCommit(_ db: Database) {
        var changes = transactionChanges
        transactionChanges = ChangedTables()
        if changes.isEmpty { return }
        changes.includesOwnCommit = true
        schedule(changes)
    }

    /// A commit this observer's hooks did not see: another process's, or
    /// any commit on a server.
    private func foreignCommitDidHappen(_ commit: ForeignCommit) {
        schedule(ChangedTables(commit))
    }

    /// Fetches again if `changes` touch the region, or notes them for the
    /// fetch that runs now.
    private func schedule(_ changes: ChangedTables) {
        let schedule = lock.withLock { () -> Bool in
            if isCancelled { return false }
            if isFetching {
                changedWhileFetching.formUnion(changes)
                return false
            }
            guard let region, changes.touches(region) else { return false }
            isFetching = true
            deliversUnchangedValue = changes.includesOwnCommit
            return true
        }
        if schedule {
            Task.detached { [self] in await fetchUntilCurrent() }
        }
    }

    func databaseDidRollback(_ db: Database) {
        transactionChanges = ChangedTables()
    }
}

/// Tables changed by commits, as the update hook spells them (the region
/// compares without regard to case).
struct ChangedTables {
    private var tables: Set<String> = []
    /// Whether some change has no table (`databaseDidChange()`, or a
    /// foreign commit on SQLite).
    var includesUnknown = false
    /// Whether a commit of the observed writer is among the changes (its
    /// value is delivered even if unchanged).
    var includesOwnCommit = false

    init() {}

    /// The changes of a foreign commit: its tables, or unknown ones.
    init(_ commit: ForeignCommit) {
        if let tables = commit.tables {
            self.tables = tables
        } else {
            includesUnknown = true
        }
    }

    var isEmpty: Bool { tables.isEmpty && !includesUnknown }

    mutating func insert(_ table: String) { tables.insert(table) }

    mutating func formUnion(_ other: ChangedTables) {
        tables.formUnion(other.tables)
        includesUnknown = includesUnknown || other.includesUnknown
        includesOwnCommit = includesOwnCommit || other.includesOwnCommit
    }

    /// Whether these changes may change what `region` contains.
    func touches(_ region: DatabaseRegion) -> Bool {
        if includesUnknown { return !region.isEmpty }
        return tables.contains { region.contains(tableName: $0) }
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    func isEqual(toValue other: Any) -> Bool {
        (other as? Self) == self
    }
}
