// DataVersionWatcher: notices the commits that other processes (or other
// queues and pools of this process) make to an SQLite file, by reading
// `PRAGMA data_version` on the writer connection at an interval
// (Configuration.foreignCommitPollingInterval).
//
// Why this pragma, and why on the writer: `PRAGMA data_version` changes when
// a connection other than the one that asks commits to the file
// (https://www.sqlite.org/pragma.html#pragma_data_version). Asked on the
// writer, whose own commits the transaction observers already report, it
// changes for foreign commits only, and a rolled-back transaction changes
// nothing. A file-change notification (inotify) was not chosen: it fires for
// this process's own writes and for checkpoints too, says nothing on network
// file systems and in some container set-ups, and needs a thread of its own;
// the pragma costs one read of the WAL index (or of the file's header) per
// interval, and is exact.
//
// When the writer connection is replaced (after a fault, ConnectionPool.swift)
// the new connection's counter is not comparable: that counts as a foreign
// commit, so observations fetch again.

import Foundation
import Logging

final class DataVersionWatcher: ForeignCommitWatcher, @unchecked Sendable {
    /// The writer's identity and its data version.
    typealias Version = (connection: ObjectIdentifier, version: Int64)

    private let feed: ForeignCommitFeed
    private let interval: Duration
    private let readVersion: @Sendable () async throws -> Version
    private let logger: Logger?
    private let path: String

    private let lock = NSLock()
    private var polling: Task<Void, Never>?
    private var isStopped = false

    /// - parameters:
    ///   - readVersion: reads `PRAGMA data_version` on the writer.
    init(
        feed: ForeignCommitFeed, interval: Duration, path: String, logger: Logger?,
        readVersion: @escaping @Sendable () async throws -> Version
    ) {
        self.feed = feed
        self.interval = interval
        self.path = path
        self.logger = logger
        self.readVersion = readVersion
    }

    func start() async throws {
        let baseline = try await readVersion()
        lock.withLock {
            if isStopped { return }
            polling = Task.detached { [self] in await poll(from: baseline) }
        }
    }

    func stop() {
        lock.withLock {
            isStopped = true
            polling?.cancel()
            polling = nil
        }
    }

    /// Reads the version every interval until stopped, and publishes a
    /// foreign commit each time it changed. A failed read is logged, and the
    /// next interval tries again.
    private func poll(from baseline: Version) async {
        var last = baseline
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            let current: Version
            do {
                current = try await readVersion()
            } catch {
                if Task.isCancelled { return }
                logger?.error(
                    "could not check \(path) for other processes' commits: \(error)",
                    metadata: ["db.path": "\(path)"])
                continue
            }
            if current.connection != last.connection || current.version != last.version {
                last = current
                feed.publish(ForeignCommit(tables: nil))
            }
        }
    }
}

extension Database {
    /// `PRAGMA data_version` of this connection, with the connection's identity.
    func dataVersion() throws -> DataVersionWatcher.Version {
        guard let version = try Int64.fetchOne(self, sql: "PRAGMA data_version") else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "PRAGMA data_version returned no value")
        }
        return (ObjectIdentifier(self), version)
    }
}

extension ForeignCommitFeed {
    /// The feed of an SQLite queue or pool: nil when
    /// `configuration.foreignCommitPollingInterval` is nil, or the database
    /// is in memory (no other process can open it).
    static func sqlite(
        path: String, configuration: Configuration, writer: @escaping @Sendable () -> (any DatabaseWriter)?
    ) -> ForeignCommitFeed? {
        guard let interval = configuration.foreignCommitPollingInterval, !Database.isInMemory(path) else { return nil }
        let logger = configuration.logger
        return ForeignCommitFeed { feed in
            DataVersionWatcher(feed: feed, interval: interval, path: path, logger: logger) {
                guard let writer = writer() else {
                    throw DatabaseError.misuse("the database at \(path) was released")
                }
                return try await writer.writeWithoutTransaction { db in try db.dataVersion() }
            }
        }
    }
}

/// The queue or pool a feed watches, held weakly: the feed belongs to it.
final class WeakWriter: @unchecked Sendable {
    private let lock = NSLock()
    private weak var _writer: (any DatabaseWriter)?

    var writer: (any DatabaseWriter)? {
        get { lock.withLock { _writer } }
        set { lock.withLock { _writer = newValue } }
    }
}
