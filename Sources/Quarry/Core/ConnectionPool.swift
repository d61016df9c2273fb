// ConnectionPool: hands out up to N connections, to blocking callers and to async tasks.
//
// DatabaseQueue is a pool of one connection; DatabasePool is a pool of one
// writer plus a pool of readers. Sync callers block their thread on a
// semaphore; async callers suspend on a continuation and are resumed when a
// connection is free, so waiting never blocks Swift's cooperative thread pool.
// Work given by async callers then runs on the connection's own serial
// Dispatch queue, off the cooperative pool, because SQLite calls block (I/O,
// busy waits). A serial queue per connection, not the global concurrent
// queue: the global queue runs about as many items at once as there are
// cores and adds threads slowly, so on a small machine a write waited in line
// behind reads blocked in SQLite (measured on 2 cores with 4 blocked reads:
// the write ran after about 3 s, now at once; see
// ConcurrencyIsolationTests.asyncWriteRunsWhileAsyncReadsBlockEveryReader).
//
// A connection that is no longer reusable (a server connection that was lost:
// `DatabaseConnection.isReusable`) is closed when it is released or found
// dead in the idle set, and its slot opens a new connection for the next
// caller. A pool may bound the wait for a connection (`acquisitionTimeout`).

import Dispatch
import Foundation
import Tracing

final class ConnectionPool: @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var idle: [Database] = []
    /// Every open connection, idle or in use, for `interrupt()`. A connection
    /// leaves it, under the lock, before it is closed.
    private var connections: [ObjectIdentifier: Database] = [:]
    private var openedCount = 0
    private var waiters: [(id: UInt64, resume: (Result<Database, any Error>) -> Void)] = []
    private var cancelledWaiters: Set<UInt64> = []
    private var nextWaiterID: UInt64 = 0
    private var holderThreads: [UInt: Int] = [:]
    private var isClosed = false
    private var _afterAsyncAccessForTesting: (@Sendable () async -> Void)?

    /// What discarded connections left for the next connection this pool
    /// opens: their transaction observers (`StatementExecutionObserver.handOver()`).
    /// Each closure runs once, on the thread that opened the new connection.
    private var pendingHandOvers: [UncheckedSendable<(Database) -> Void>] = []

    private let capacity: Int
    private let openConnection: @Sendable () throws -> Database
    private let description: String
    /// The longest a caller waits for a busy pool, or nil for no limit.
    private let acquisitionTimeout: Duration?

    /// The spans and metrics of the pool, if its configuration asks for them.
    let instrumentation: Instrumentation?

    /// - parameters:
    ///   - capacity: the most connections open at once.
    ///   - description: names the pool in errors ("the writer of DatabasePool at …").
    ///   - instrumentation: spans and metrics, if any.
    ///   - acquisitionTimeout: the longest a caller waits for a connection
    ///     when all are in use, or nil for no limit.
    ///   - openConnection: opens and sets up one connection.
    init(
        capacity: Int, description: String, instrumentation: Instrumentation? = nil, acquisitionTimeout: Duration? = nil,
        openConnection: @escaping @Sendable () throws -> Database
    ) {
        self.capacity = max(1, capacity)
        self.description = description
        self.instrumentation = instrumentation
        self.acquisitionTimeout = acquisitionTimeout
        self.openConnection = openConnection
    }

    /// Adds an already opened connection (used to open eagerly and report errors at init).
    func add(_ database: Database) {
        lock.withLock {
            openedCount += 1
            connections[ObjectIdentifier(database)] = database
            idle.append(database)
        }
    }

    // MARK: - Running work

    /// Runs `body` with a connection, blocking the current thread until one is free.
    ///
    /// - parameters:
    ///   - operation: names the access's span (`read`, `write`…).
    ///   - fresh: whether the access needs a newly opened connection (a
    ///     retry after a lost one): an idle connection is closed to make room.
    func withConnection<T>(operation: String = "access", fresh: Bool = false, _ body: (Database) throws -> T) throws -> T {
        let thread = currentThreadID()
        if lock.withLock({ holderThreads[thread] != nil }) {
            throw DatabaseError.misuse(
                "reentrant database access: this thread already uses \(description); "
                    + "use the Database value you already have instead of nesting read or write calls")
        }
        let waitStart = instrumentation == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        let parent = instrumentation?.tracer == nil ? nil : (ServiceContext.current ?? .topLevel)
        let database = try acquireBlocking(fresh: fresh)
        instrumentation?.recordConnectionWait(since: waitStart)
        defer { release(database) }
        return try holding(thread) { try run(operation, on: database, parent: parent, body) }
    }

    /// Runs `body` with a connection, suspending until one is free, then running
    /// `body` on the connection's serial Dispatch queue.
    ///
    /// If the task is cancelled while `body` runs, its running statement stops
    /// and the access throws `CancellationError` (see `Database+Interrupt.swift`);
    /// if it is cancelled before `body` starts, `body` does not run.
    func withConnection<T: Sendable>(
        operation: String = "access", fresh: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let waitStart = instrumentation == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        let parent = instrumentation?.tracer == nil ? nil : (ServiceContext.current ?? .topLevel)
        let database = UncheckedSendable(try await acquireSuspending(fresh: fresh))
        instrumentation?.recordConnectionWait(since: waitStart)
        let cancellation = AccessCancellation()
        return try await withTaskCancellationHandler {
            let result = try await withCheckedThrowingContinuation { continuation in
                database.value.dispatchQueue.async {
                    let result = Result {
                        try self.holding(currentThreadID()) {
                            try database.value.observingCancellation(cancellation) {
                                try self.run(operation, on: database.value, parent: parent, body)
                            }
                        }
                    }
                    // From here on, a cancellation of this task no longer
                    // reaches the connection, which serves other accesses.
                    cancellation.end()
                    self.release(database.value)
                    continuation.resume(with: result)
                }
            }
            if let afterAsyncAccess = afterAsyncAccessForTesting { await afterAsyncAccess() }
            return result
        } onCancel: {
            // SQLite's progress handler sees the flag; a server needs a cancel
            // request for the statement it runs now, sent only while this
            // access holds the connection.
            cancellation.cancel { database.value.connection.accessWasCancelled() }
        }
    }

    /// Test seam: runs after an async access released its connection,
    /// before the access returns, while its task's cancellation handler can
    /// still run (tests widen that window with it).
    var afterAsyncAccessForTesting: (@Sendable () async -> Void)? {
        get { lock.withLock { _afterAsyncAccessForTesting } }
        set { lock.withLock { _afterAsyncAccessForTesting = newValue } }
    }

    /// Runs `body` with `database`, inside the access's span when there is a
    /// tracer (`parent` is the caller's span context then, nil otherwise).
    private func run<T>(
        _ operation: String, on database: Database, parent: ServiceContext?, _ body: (Database) throws -> T
    ) throws -> T {
        guard let parent, let instrumentation else { return try body(database) }
        return try instrumentation.withAccessSpan(operation, database: database, parent: parent) { try body(database) }
    }

    private func holding<T>(_ thread: UInt, _ body: () throws -> T) rethrows -> T {
        lock.withLock { holderThreads[thread, default: 0] += 1 }
        defer {
            lock.withLock {
                let count = (holderThreads[thread] ?? 1) - 1
                holderThreads[thread] = count > 0 ? count : nil
            }
        }
        return try body()
    }

    // MARK: - Acquiring and releasing

    private enum Acquisition {
        case ready(Database)
        case open
        case waiting
        case failed(any Error)
    }

    /// Takes an idle connection, reserves a slot to open one, or registers a
    /// waiter. Idle connections that died meanwhile (a server restarted) are
    /// closed on the way, and their slots reused. A `fresh` acquisition
    /// takes no idle connection, and closes the oldest one if the pool is full.
    private func acquire(
        waiterID: UInt64, fresh: Bool = false, resume: @escaping (Result<Database, any Error>) -> Void
    ) -> Acquisition {
        var dead: [Database] = []
        defer { for database in dead { database.close() } }
        return lock.withLock {
            if isClosed { return .failed(closedError()) }
            if cancelledWaiters.remove(waiterID) != nil { return .failed(CancellationError()) }
            if fresh {
                if openedCount >= capacity, !idle.isEmpty {
                    let oldest = idle.removeFirst()
                    forget(oldest)
                    dead.append(oldest)
                }
            } else {
                while let database = idle.popLast() {
                    if database.isReusable { return .ready(database) }
                    forget(database)
                    dead.append(database)
                }
            }
            if openedCount < capacity {
                openedCount += 1
                return .open
            }
            waiters.append((waiterID, resume))
            return .waiting
        }
    }

    /// Drops a connection that will be closed from the pool's books; its slot
    /// is free. Call with the lock held.
    private func forget(_ database: Database) {
        openedCount -= 1
        connections[ObjectIdentifier(database)] = nil
    }

    private func makeWaiterID() -> UInt64 {
        lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
    }

    private func openReserved() throws -> Database {
        do {
            let database = try openConnection()
            let handOvers = lock.withLock {
                connections[ObjectIdentifier(database)] = database
                defer { pendingHandOvers.removeAll() }
                return pendingHandOvers
            }
            for handOver in handOvers { handOver.value(database) }
            return database
        } catch {
            // The slot is free again: a waiter may open it in turn (it fails
            // too while the server is down, but as soon as it is back, the
            // waiter gets a connection instead of waiting for a release).
            let waiter: ((Result<Database, any Error>) -> Void)? = lock.withLock {
                openedCount -= 1
                return reserveSlotForWaiter()
            }
            if let waiter { openForWaiter(waiter) }
            throw error
        }
    }

    /// Takes the first waiter and reserves a slot for it, when a slot is
    /// free. Call with the lock held.
    private func reserveSlotForWaiter() -> ((Result<Database, any Error>) -> Void)? {
        guard !isClosed, !waiters.isEmpty, openedCount < capacity else { return nil }
        openedCount += 1
        return waiters.removeFirst().resume
    }

    /// Opens a connection in a reserved slot for a waiter, off the caller's
    /// thread (opening blocks).
    private func openForWaiter(_ waiter: @escaping (Result<Database, any Error>) -> Void) {
        // The waiter is resumed exactly once, by this block.
        let waiter = UncheckedSendable(waiter)
        DispatchQueue.global().async {
            waiter.value(Result { try self.openReserved() })
        }
    }

    private func acquireBlocking(fresh: Bool) throws -> Database {
        let semaphore = DispatchSemaphore(value: 0)
        let box = UncheckedSendable<Result<Database, any Error>?>(nil)
        let waiterID = makeWaiterID()
        switch acquire(waiterID: waiterID, fresh: fresh, resume: { result in
            box.value = result
            semaphore.signal()
        }) {
        case .ready(let database): return database
        case .open: return try openReserved()
        case .failed(let error): throw error
        case .waiting:
            if let acquisitionTimeout {
                if semaphore.wait(timeout: .now() + Self.interval(acquisitionTimeout)) == .timedOut {
                    if lock.withLock({ takeWaiter(waiterID) }) != nil { throw acquisitionTimeoutError(acquisitionTimeout) }
                    // Resumed while timing out: the result is on its way.
                    semaphore.wait()
                }
            } else {
                semaphore.wait()
            }
            guard let result = box.value else { throw closedError() }
            return try result.get()
        }
    }

    /// Removes a waiter that gives up (timed out, cancelled) and returns its
    /// resume function; nil when it was resumed already. Call with the lock held.
    private func takeWaiter(_ waiterID: UInt64) -> ((Result<Database, any Error>) -> Void)? {
        guard let index = waiters.firstIndex(where: { $0.id == waiterID }) else { return nil }
        return waiters.remove(at: index).resume
    }

    /// Fails a waiting task whose wait outlived `acquisitionTimeout`.
    private func timeOutWaiter(_ waiterID: UInt64, after timeout: Duration) {
        let waiter = lock.withLock { takeWaiter(waiterID) }
        waiter?(.failure(acquisitionTimeoutError(timeout)))
    }

    private func acquisitionTimeoutError(_ timeout: Duration) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_BUSY,
            message: "no connection of \(description) became free within \(timeout) (its \(capacity) connections were all in use)")
    }

    /// `duration` for Dispatch's clocks.
    private static func interval(_ duration: Duration) -> DispatchTimeInterval {
        .nanoseconds(Int(clamping: Database.nanoseconds(duration)))
    }

    private func acquireSuspending(fresh: Bool) async throws -> Database {
        let waiterID = makeWaiterID()
        // A cancellation that arrives after the connection was handed over
        // finds no waiter and is remembered by `cancelWaiter`; once the
        // handler can no longer run, nothing will ask for it again.
        defer { lock.withLock { _ = cancelledWaiters.remove(waiterID) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UncheckedSendable<Database>, any Error>) in
                switch acquire(waiterID: waiterID, fresh: fresh, resume: { result in
                    continuation.resume(with: result.map(UncheckedSendable.init))
                }) {
                case .ready(let database): continuation.resume(returning: UncheckedSendable(database))
                case .open:
                    // Opened off the cooperative thread pool: opening blocks
                    // (a file, or a server connection waiting for the network).
                    DispatchQueue.global().async {
                        continuation.resume(with: Result { UncheckedSendable(try self.openReserved()) })
                    }
                case .failed(let error): continuation.resume(throwing: error)
                case .waiting:
                    if let timeout = acquisitionTimeout {
                        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(timeout)) {
                            self.timeOutWaiter(waiterID, after: timeout)
                        }
                    }
                }
            }.value
        } onCancel: {
            cancelWaiter(waiterID)
        }
    }

    /// Resumes a waiting task with `CancellationError`, or marks it so that it
    /// does not start waiting.
    private func cancelWaiter(_ waiterID: UInt64) {
        let waiter: ((Result<Database, any Error>) -> Void)? = lock.withLock {
            if let waiter = takeWaiter(waiterID) { return waiter }
            cancelledWaiters.insert(waiterID)
            return nil
        }
        waiter?(.failure(CancellationError()))
    }

    /// Returns a connection to the pool, or hands it to the first waiter. A
    /// connection that is no longer reusable is closed, and the first
    /// waiter, if any, gets a new one in its slot.
    private func release(_ database: Database) {
        // Never hand out a connection with an open transaction.
        database.resetAfterAccess()
        let isReusable = database.isReusable
        // A discarded connection's observers move to the one that replaces it.
        let handOver = isReusable ? nil : database.executionObserver?.handOver()
        let (waiter, mustClose): (((Result<Database, any Error>) -> Void)?, Bool) = lock.withLock {
            if isClosed {
                forget(database)
                return (nil, true)
            }
            if !isReusable {
                forget(database)
                if let handOver { pendingHandOvers.append(UncheckedSendable(handOver)) }
                return (reserveSlotForWaiter(), true)
            }
            if !waiters.isEmpty { return (waiters.removeFirst().resume, false) }
            idle.append(database)
            return (nil, false)
        }
        if mustClose {
            database.close()
            if let waiter { openForWaiter(waiter) }
        } else if let waiter {
            waiter(.success(database))
        }
    }

    // MARK: - Interrupting

    /// Interrupts the statements that run now on every connection of the pool
    /// (sqlite3_interrupt), from any thread. The lock keeps connections from
    /// closing meanwhile.
    func interrupt() {
        lock.withLock {
            for database in connections.values { database.interruptRunningStatements() }
        }
    }

    // MARK: - Inspecting (for tests)

    /// The tasks waiting for a connection.
    var waiterCount: Int { lock.withLock { waiters.count } }

    /// The cancellations remembered for tasks that have not started waiting yet.
    var rememberedCancellationCount: Int { lock.withLock { cancelledWaiters.count } }

    // MARK: - Closing

    /// Closes idle connections now and busy ones when they are released; fails
    /// waiters and later requests.
    func close() {
        let (toClose, toFail) = lock.withLock {
            isClosed = true
            let closing = idle
            idle.removeAll()
            openedCount -= closing.count
            for database in closing { connections[ObjectIdentifier(database)] = nil }
            let pending = waiters
            waiters.removeAll()
            return (closing, pending)
        }
        for database in toClose { database.close() }
        for waiter in toFail { waiter.resume(.failure(closedError())) }
    }

    private func closedError() -> DatabaseError {
        DatabaseError.misuse("\(description) is closed")
    }
}

/// Wraps a value that is not Sendable but is handed over with exclusive access
/// (a connection taken out of the pool, a result slot guarded by a semaphore).
final class UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// An identifier of the current thread, to detect reentrant access.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
