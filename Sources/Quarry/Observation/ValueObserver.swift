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

    /// The tables changed by the current transaction (writer's thread only).
    private var transactionChanges = ChangedTables()

    init(observation: ValueObservation<Value>, reader: any DatabaseReader, output: @escaping @Sendable (Output) -> Void) {
        self.observation = observation
        self.reader = reader
        self.output = output
    }

    /// Attaches to the writer, then fetches the first value.
    func start() {
        Task.detached { [self] in
            if let writer = reader as? any DatabaseWriter {
                do {
                    try await writer.writeWithoutTransaction { [self] db in
                        // A server tells nothing of its commits: the observation
                        // would never see a change.
                        try db.require(.observation, "ValueObservation")
                        db.add(transactionObserver: self, extent: .observerLifetime)
                    }
                } catch {
                    fail(error)
                    return
                }
            }
            await fetchUntilCurrent()
        }
    }

    func cancel() {
        if stop() { output(.finished) }
    }

    /// Marks the observation stopped; true only the first time, so that one
    /// end (finished or failed) is output.
    private func stop() -> Bool {
        lock.withLock {
            defer { isCancelled = true }
            return !isCancelled
        }
    }

    // MARK: - Fetching

    /// Fetches, and fetches again as long as commits made during a fetch
    /// touched what it read.
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
            let (deliver, again) = lock.withLock { () -> (Value?, Bool) in
                if isCancelled { return (nil, false) }
                region = fetched.region
                let again = changedWhileFetching.touches(fetched.region)
                changedWhileFetching = ChangedTables()
                if !again { isFetching = false }
                if let isDuplicate = observation.isDuplicate, let lastValue, isDuplicate(lastValue, fetched.value) {
                    return (nil, again)
                }
                lastValue = fetched.value
                return (fetched.value, again)
            }
            if let deliver { output(.value(deliver)) }
            if !again { return }
        }
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
        let changes = transactionChanges
        transactionChanges = ChangedTables()
        if changes.isEmpty { return }
        let schedule = lock.withLock { () -> Bool in
            if isCancelled { return false }
            if isFetching {
                changedWhileFetching.formUnion(changes)
                return false
            }
            guard let region, changes.touches(region) else { return false }
            isFetching = true
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
    /// Whether some change has no table (`databaseDidChange()`).
    var includesUnknown = false

    var isEmpty: Bool { tables.isEmpty && !includesUnknown }

    mutating func insert(_ table: String) { tables.insert(table) }

    mutating func formUnion(_ other: ChangedTables) {
        tables.formUnion(other.tables)
        includesUnknown = includesUnknown || other.includesUnknown
    }

    /// Whether these changes may change what `region` contains.
    func touches(_ region: DatabaseRegion) -> Bool {
        if includesUnknown { return !region.isEmpty }
        return tables.contains { region.contains(tableName: $0) }
    }
}
