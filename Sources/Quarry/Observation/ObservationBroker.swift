// ObservationBroker: the change observation of one connection. It attaches
// transaction observers, gathers row events from SQLite's hooks, and records
// the region that a fetch reads.
//
// How a change reaches an observer:
// 1. Before a statement runs (`statementWillStart`), the broker asks each
//    observer whether it observes the kinds of change the statement may make
//    (known from the statement's compile-time facts, StatementAuthorizer.swift).
// 2. While it runs, the update hook (https://www.sqlite.org/c3ref/update_hook.html)
//    reports each changed row; the broker keeps the events of the interested
//    observers with the running statement.
// 3. When the statement succeeds, its events are told to the observers, or
//    kept with the current savepoint until the outermost savepoint is
//    released (discarded if it is rolled back). When it fails, its events
//    are dropped: SQLite undid its changes.
// 4. The commit hook (https://www.sqlite.org/c3ref/commit_hook.html) tells
//    what is still kept, then asks `databaseWillCommit()`; a thrown error
//    turns the commit into a rollback. The rollback hook drops everything.
// 5. After the statement that committed or rolled back, outside of SQLite,
//    `databaseDidCommit` or `databaseDidRollback` follows.
//
// All of this runs on the connection's thread: no locks. The C side of the
// hooks is in SQLite/SQLiteConnection+ChangeHooks.swift.

final class ObservationBroker: StatementExecutionObserver {
    /// The connection, which holds the broker.
    private unowned let database: Database

    /// The region read since `Database.recordingRegion` began, if it runs.
    var recordedRegion: DatabaseRegion?

    private var entries: [ObserverEntry] = []
    /// SQLite's hooks, installed when the first observer is attached (`add`):
    /// the broker lives as long as the connection (Database.executionObserver).
    private lazy var hooks: Void = database.connection.observeChanges(update: rowDidChange, commit: willCommit, rollback: didRollbackInSQLite)

    /// The statements running now, innermost last, with the events of their rows.
    private var runs: [StatementRun] = []

    /// Open savepoints, innermost last, each with the count of
    /// `savepointEvents` when it began.
    private var savepoints: [(name: String, eventCount: Int)] = []

    /// Events of statements that succeeded inside a savepoint.
    private var savepointEvents: [PendingEvent] = []

    /// Whether the current transaction changed a row.
    private var transactionChangedRows = false

    /// Whether the current transaction is one that observers hear the end
    /// of: it held SQLite's write lock when a statement started (it wrote,
    /// even a schema change only, or began `IMMEDIATE`), an observer was
    /// attached while it wrote, or its commit reached `databaseWillCommit()`.
    /// A read transaction, and an autocommit statement that fails before
    /// it writes, are never told.
    private var transactionWrites = false

    private var didCommit = false
    private var didRollback = false
    private var commitVeto: (any Error)?

    init(database: Database) {
        self.database = database
    }

    var followsStatements: Bool { !entries.isEmpty || recordedRegion != nil }

    var isRecordingRegion: Bool { recordedRegion != nil }

    func serverStatementDidRead(tables: Set<String>?) {
        guard recordedRegion != nil else { return }
        guard let tables else {
            recordedRegion = .fullDatabase
            return
        }
        for table in tables { recordedRegion?.formUnion(DatabaseRegion(table: table)) }
    }

    // MARK: - Observers

    func add(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        if entries.contains(where: { $0.observer === observer }) { return }
        entries.append(ObserverEntry(observer, extent: extent))
        // Attached in the middle of a transaction that wrote: its end is told.
        if database.hasWriteTransaction { transactionWrites = true }
        _ = hooks
        if !database.preventsTruncateOptimization {
            // Statements compiled before may truncate without reporting rows.
            database.preventsTruncateOptimization = true
            database.expireStatements()
        }
        database.updateStatementHooks()
    }

    func handOver() -> ((Database) -> Void)? {
        // Weak observers stay weak: the closure must not keep them alive.
        let survivors = entries.filter { $0.observer != nil }
        if survivors.isEmpty { return nil }
        return { database in
            for entry in survivors {
                if let observer = entry.observer { database.observationBroker.add(observer, extent: entry.extent) }
            }
        }
    }

    func remove(_ observer: some TransactionObserver) {
        entries.removeAll { $0.observer === observer }
        observersChanged()
    }

    private func observersChanged() {
        entries.removeAll { $0.observer == nil }
        if entries.isEmpty { database.preventsTruncateOptimization = false }
        database.updateStatementHooks()
    }

    // MARK: - Statements

    func statementWillStart(_ statement: Statement) {
        let facts = ObservationFacts.of(statement)
        if recordedRegion != nil { recordedRegion?.formUnion(facts.readRegion) }
        deliverTransactionEnd()
        guard !entries.isEmpty else { return }
        // Before the statement runs: a ROLLBACK or COMMIT still sees the
        // transaction it ends.
        if !transactionWrites, database.hasWriteTransaction { transactionWrites = true }
        guard !facts.kinds.isEmpty else { return }
        var interests: [Interest] = []
        for kind in facts.kinds {
            var interested: [ObserverEntry] = []
            for entry in entries {
                if let observer = entry.observer, observer.observes(eventsOfKind: kind) { interested.append(entry) }
            }
            if !interested.isEmpty {
                interests.append(Interest(kind: kind, entries: interested, hasRowEvents: facts.hasRowEvents(kind, database)))
            }
        }
        if interests.isEmpty { return }
        // Statements released or reset without an end hook (finalized while stepping).
        runs.removeAll { $0.statement.map { !$0.isBusy } ?? true }
        runs.append(StatementRun(statement: statement, interests: interests))
    }

    func statementDidEnd(_ statement: Statement, succeeded: Bool) {
        if let index = runs.lastIndex(where: { $0.statement === statement }) {
            let run = runs.remove(at: index)
            if succeeded {
                var events = run.events
                if database.changesCount > 0 {
                    // Tables without row events (WITHOUT ROWID): "something changed".
                    events += Self.unspecifiedChanges(for: run.interests.filter { !$0.hasRowEvents }.flatMap(\.entries))
                }
                keep(events)
            } else if !run.events.isEmpty, database.isInsideTransaction {
                // SQLite undid the statement's rows, unless it ran with
                // OR FAIL, which keeps those changed before the failure:
                // tell "something may have changed" rather than nothing.
                keep(Self.unspecifiedChanges(for: run.events.map(\.entry)))
            }
        }
        if succeeded, let action = statement.facts.savepoint { apply(action) }
        deliverTransactionEnd()
    }

    /// One `databaseDidChange()` for each distinct observer of `entries`.
    private static func unspecifiedChanges(for entries: [ObserverEntry]) -> [PendingEvent] {
        var observers: [ObserverEntry] = []
        for entry in entries where !observers.contains(where: { $0 === entry }) { observers.append(entry) }
        return observers.map { PendingEvent(entry: $0, event: nil) }
    }

    func takeCommitVeto() -> (any Error)? {
        defer { commitVeto = nil }
        return commitVeto
    }

    /// Tells `events` now, or keeps them with the current savepoint.
    private func keep(_ events: [PendingEvent]) {
        if events.isEmpty { return }
        if savepoints.isEmpty { tell(events) } else { savepointEvents.append(contentsOf: events) }
    }

    private func tell(_ events: [PendingEvent]) {
        for pending in events {
            guard let observer = pending.entry.observer else { continue }
            if let event = pending.event { observer.databaseDidChange(with: event) } else { observer.databaseDidChange() }
        }
    }

    private func apply(_ action: SavepointAction) {
        switch action {
        case .begin(let name):
            if database.isInsideTransaction { savepoints.append((name, savepointEvents.count)) }
        case .release(let name):
            guard let index = savepoints.lastIndex(where: { $0.name.caseInsensitiveEquals(name) }) else { return }
            savepoints.removeSubrange(index...)
            if savepoints.isEmpty {
                let events = savepointEvents
                savepointEvents = []
                tell(events)
            }
        case .rollbackTo(let name):
            guard let index = savepoints.lastIndex(where: { $0.name.caseInsensitiveEquals(name) }) else { return }
            savepointEvents.removeSubrange(savepoints[index].eventCount...)
            savepoints.removeSubrange((index + 1)...)
        }
    }

    // MARK: - Hooks

    private func rowDidChange(
        _ operation: Int32, _ databaseName: UnsafePointer<CChar>, _ tableName: UnsafePointer<CChar>, _ rowID: Int64
    ) {
        transactionChangedRows = true
        guard !runs.isEmpty, let kind = DatabaseEvent.Kind(rawValue: operation) else { return }
        var event: DatabaseEvent?
        let top = runs.count - 1
        for interest in runs[top].interests where interest.matches(kind, tableName) {
            let made = event ?? DatabaseEvent(
                kind: kind, databaseName: String(cString: databaseName), tableName: interest.kind.tableName, rowID: rowID)
            event = made
            for entry in interest.entries { runs[top].events.append(PendingEvent(entry: entry, event: made)) }
        }
    }

    /// The commit hook: tells the events still kept, then asks every
    /// observer; false refuses the commit.
    private func willCommit() -> Bool {
        // Observers asked about this commit are told if it turns into a rollback.
        transactionWrites = true
        var events: [PendingEvent] = savepointEvents
        savepointEvents = []
        savepoints = []
        for index in runs.indices {
            events.append(contentsOf: runs[index].events)
            runs[index].events = []
        }
        tell(events)
        for entry in entries {
            do {
                try entry.observer?.databaseWillCommit()
            } catch {
                commitVeto = error
                return false
            }
        }
        didCommit = true
        return true
    }

    private func didRollbackInSQLite() {
        savepointEvents = []
        savepoints = []
        for index in runs.indices { runs[index].events = [] }
        // Every observer that may have heard of the transaction (its rows,
        // its commit) or whose statements wrote in it hears of its rollback.
        if transactionChangedRows || transactionWrites || didCommit { didRollback = true }
        didCommit = false
        transactionChangedRows = false
        transactionWrites = false
    }

    /// Tells observers that the transaction committed or rolled back, once
    /// the statement that ended it has returned from SQLite.
    private func deliverTransactionEnd() {
        if didCommit {
            didCommit = false
            // A commit that failed after the hook (SQLITE_BUSY) leaves the transaction open.
            guard !database.isInsideTransaction else { return }
            transactionChangedRows = false
            transactionWrites = false
            endTransaction { $0.databaseDidCommit(database) }
        }
        if didRollback {
            didRollback = false
            endTransaction { $0.databaseDidRollback(database) }
        }
    }

    /// Detaches the `.nextTransaction` observers and the deallocated ones,
    /// then tells every observer attached until now that the transaction
    /// ended.
    ///
    /// Detaching comes first: an observer told `databaseDidCommit` or
    /// `databaseDidRollback` may run another transaction, and a
    /// `.nextTransaction` observer must hear nothing of it (it would
    /// otherwise be told of that one too, and of the one it runs then, until
    /// the stack overflows).
    private func endTransaction(_ tell: (any TransactionObserver) -> Void) {
        let ending = entries  // observers may attach or detach others meanwhile
        if ending.contains(where: { $0.extent == .nextTransaction || $0.observer == nil }) {
            entries.removeAll { entry in entry.extent == .nextTransaction && ending.contains { $0 === entry } }
            observersChanged()
        }
        for entry in ending {
            if let observer = entry.observer { tell(observer) }
        }
    }
}

/// One attached observer.
final class ObserverEntry {
    private weak var weakObserver: (any TransactionObserver)?
    private let strongObserver: (any TransactionObserver)?
    let extent: Database.TransactionObservationExtent

    init(_ observer: any TransactionObserver, extent: Database.TransactionObservationExtent) {
        self.extent = extent
        if extent == .observerLifetime {
            weakObserver = observer
            strongObserver = nil
        } else {
            weakObserver = nil
            strongObserver = observer
        }
    }

    /// The observer, or nil once deallocated (`.observerLifetime`).
    var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }
}

/// An event for one observer; nil for `databaseDidChange()`.
struct PendingEvent {
    let entry: ObserverEntry
    let event: DatabaseEvent?
}

/// The observers interested in one kind of change of a running statement.
struct Interest {
    let kind: DatabaseEventKind
    let entries: [ObserverEntry]
    /// False for a WITHOUT ROWID table, whose rows the update hook does not report.
    let hasRowEvents: Bool

    func matches(_ eventKind: DatabaseEvent.Kind, _ tableName: UnsafePointer<CChar>) -> Bool {
        switch (kind, eventKind) {
        case (.insert, .insert), (.update, .update), (.delete, .delete):
            return kind.tableName.caseInsensitiveEquals(tableName)
        default:
            return false
        }
    }
}

/// A statement that runs now and the events of its rows so far.
struct StatementRun {
    weak var statement: Statement?
    let interests: [Interest]
    var events: [PendingEvent] = []
}

/// A statement's facts as change observation uses them, made once per statement.
final class ObservationFacts {
    /// The kinds of change the statement may make.
    let kinds: [DatabaseEventKind]
    /// What the statement reads.
    let readRegion: DatabaseRegion
    /// Tables known to have rowids (true) or not (false).
    private var rowidTables: [String: Bool] = [:]

    private init(_ facts: StatementFacts) {
        var kinds: [DatabaseEventKind] = []
        var updated: [(table: String, columns: Set<String>)] = []
        for write in facts.writes {
            switch DatabaseEvent.Kind(rawValue: write.action) {
            case .insert?:
                if !kinds.contains(.insert(tableName: write.table)) { kinds.append(.insert(tableName: write.table)) }
            case .delete?:
                if !kinds.contains(.delete(tableName: write.table)) { kinds.append(.delete(tableName: write.table)) }
            default:
                if let index = updated.firstIndex(where: { $0.table == write.table }) {
                    if let column = write.column { updated[index].columns.insert(column) }
                } else {
                    updated.append((write.table, write.column.map { [$0] } ?? []))
                }
            }
        }
        kinds += updated.map { .update(tableName: $0.table, columnNames: $0.columns) }
        self.kinds = kinds
        var region = DatabaseRegion()
        for read in facts.reads { region.insert(table: read.table, column: read.column) }
        readRegion = region
    }

    static func of(_ statement: Statement) -> ObservationFacts {
        if let facts = statement.observationFacts as? ObservationFacts { return facts }
        let facts = ObservationFacts(statement.facts)
        statement.observationFacts = facts
        return facts
    }

    /// Whether the update hook reports the rows of `kind`'s table: false for
    /// a WITHOUT ROWID table (SQLite/SQLiteConnection+ChangeHooks.swift).
    func hasRowEvents(_ kind: DatabaseEventKind, _ database: Database) -> Bool {
        let table = kind.tableName
        if let known = rowidTables[table] { return known }
        let hasRowid = database.tableHasRowID(table)
        rowidTables[table] = hasRowid
        return hasRowid
    }
}

extension Database {
    /// The change observation of this connection, made when first needed.
    var observationBroker: ObservationBroker {
        if let broker = executionObserver as? ObservationBroker { return broker }
        let broker = ObservationBroker(database: self)
        executionObserver = broker
        return broker
    }
}
