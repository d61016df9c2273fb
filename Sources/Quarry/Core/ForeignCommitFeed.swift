// ForeignCommitFeed: the commits a database learns of from outside the
// connections it observes itself — another process's commits on an SQLite
// file (DataVersionWatcher.swift), or every commit on a database server
// (QuarryPostgres's LISTEN/NOTIFY listener).
//
// Observations subscribe to the feed of their reader; the first subscriber
// starts the backend's watcher and waits until it watches (so that no commit
// falls between the watcher's start and the observation's first fetch), the
// last one to leave stops it. Nothing is watched while nothing observes.

import Foundation
import Logging

/// What a watcher learned: a commit changed `tables` (lowercased), or
/// changed something unknown (`tables == nil`): a foreign commit on SQLite,
/// or commits that may have been missed while a server's listener was away.
package struct ForeignCommit: Sendable {
    package var tables: Set<String>?

    package init(tables: Set<String>?) {
        self.tables = tables
    }
}

/// Watches a database for foreign commits and publishes them to its feed.
package protocol ForeignCommitWatcher: AnyObject, Sendable {
    /// Returns once the watcher watches: a commit that ends later is published.
    /// Throws when it cannot start (the database is closed, the server is
    /// unreachable).
    func start() async throws

    /// Stops watching and releases what the watcher holds; returns at once.
    func stop()
}

/// A reader whose observations can learn of foreign commits.
package protocol ForeignCommitSource: DatabaseReader {
    /// The feed, or nil when this reader does not watch for foreign commits
    /// (``Configuration/foreignCommitPollingInterval`` is nil on SQLite).
    var foreignCommitFeed: ForeignCommitFeed? { get }
}

/// The subscribers of one reader's foreign commits, and the watcher that
/// runs while there are any.
package final class ForeignCommitFeed: @unchecked Sendable {
    package typealias Handler = @Sendable (ForeignCommit) -> Void

    private let makeWatcher: @Sendable (ForeignCommitFeed) -> any ForeignCommitWatcher
    private let lock = NSLock()
    private var handlers: [UInt64: Handler] = [:]
    private var nextID: UInt64 = 0
    private var watcher: (any ForeignCommitWatcher)?
    private var starting: Task<Void, any Error>?

    /// - parameter makeWatcher: makes the watcher that publishes to the feed,
    ///   when the first subscriber arrives.
    package init(makeWatcher: @escaping @Sendable (ForeignCommitFeed) -> any ForeignCommitWatcher) {
        self.makeWatcher = makeWatcher
    }

    /// Whether a watcher runs now (for tests).
    package var isWatching: Bool { lock.withLock { watcher != nil } }

    /// Adds `handler`, starting the watcher if it is the first, and returns
    /// once the watcher watches. Cancel the returned subscription to leave.
    package func subscribe(_ handler: @escaping Handler) async throws -> ForeignCommitSubscription {
        let (id, starting) = lock.withLock { () -> (UInt64, Task<Void, any Error>) in
            nextID &+= 1
            handlers[nextID] = handler
            if let running = self.starting { return (nextID, running) }
            let watcher = makeWatcher(self)
            self.watcher = watcher
            let task = Task { try await watcher.start() }
            self.starting = task
            return (nextID, task)
        }
        let subscription = ForeignCommitSubscription { [weak self] in self?.unsubscribe(id) }
        do {
            try await starting.value
        } catch {
            subscription.cancel()
            // A watcher that failed to start is not kept: the next subscriber tries anew.
            lock.withLock {
                if self.starting == starting {
                    self.watcher?.stop()
                    self.watcher = nil
                    self.starting = nil
                }
            }
            throw error
        }
        return subscription
    }

    private func unsubscribe(_ id: UInt64) {
        let stopped = lock.withLock { () -> (any ForeignCommitWatcher)? in
            guard handlers.removeValue(forKey: id) != nil, handlers.isEmpty else { return nil }
            defer {
                watcher = nil
                starting = nil
            }
            return watcher
        }
        stopped?.stop()
    }

    /// Tells every subscriber of `commit`. Called by the watcher, from any thread.
    package func publish(_ commit: ForeignCommit) {
        let handlers = lock.withLock { Array(self.handlers.values) }
        for handler in handlers { handler(commit) }
    }
}

/// A subscription to a ``ForeignCommitFeed``; cancel it to leave (once).
package final class ForeignCommitSubscription: @unchecked Sendable {
    private let lock = NSLock()
    private var onCancel: (@Sendable () -> Void)?

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    package func cancel() {
        let onCancel = lock.withLock { () -> (@Sendable () -> Void)? in
            defer { self.onCancel = nil }
            return self.onCancel
        }
        onCancel?()
    }

    deinit { cancel() }
}
