// WAL checkpoints: copying the write-ahead log back into the database file,
// on demand (Database.checkpoint) and by a DatabasePool's CheckpointPolicy.
//
// See https://www.sqlite.org/wal.html#checkpointing and
// https://www.sqlite.org/c3ref/wal_checkpoint_v2.html.

import CSQLite
import Foundation

/// How a checkpoint waits for other connections
/// (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>).
public enum CheckpointMode: Sendable, CaseIterable {
    /// Copies as many frames as possible without waiting for readers or writers.
    case passive
    /// Waits (busy handler) for the writer, then for readers of older
    /// snapshots, and copies every frame.
    case full
    /// As `.full`, then waits until no reader uses the WAL, so that the next
    /// writer starts it over from the beginning.
    case restart
    /// As `.restart`, then truncates the WAL file to zero bytes.
    case truncate

    var sqliteMode: Int32 {
        switch self {
        case .passive: return SQLITE_CHECKPOINT_PASSIVE
        case .full: return SQLITE_CHECKPOINT_FULL
        case .restart: return SQLITE_CHECKPOINT_RESTART
        case .truncate: return SQLITE_CHECKPOINT_TRUNCATE
        }
    }
}

/// How a ``DatabasePool`` keeps its WAL file from growing without bound
/// (``Configuration/checkpointPolicy``).
///
/// SQLite checkpoints by itself in `.passive` mode when a commit leaves the
/// WAL over 1,000 pages (<https://www.sqlite.org/wal.html#automatic_checkpoint>).
/// A passive checkpoint never waits, so it cannot copy frames that a reader
/// still needs, and the WAL starts over from its beginning only after a
/// checkpoint that copied everything while no reader used it. Under a steady
/// load of overlapping reads, that moment may never come and the file grows
/// ("checkpoint starvation", <https://www.sqlite.org/wal.html#avoiding_excessively_large_wal_files>).
/// ``truncate(every:maximumReaderWait:)`` makes that moment: see the
/// "Operating a database in production" article for measurements.
public struct CheckpointPolicy: Sendable, Equatable {
    enum Kind: Equatable {
        case sqliteDefault
        case truncate(interval: Duration, readerWait: Duration)
    }

    let kind: Kind

    /// SQLite's automatic passive checkpoint, and nothing more (the default).
    public static let sqliteDefault = CheckpointPolicy(kind: .sqliteDefault)

    /// SQLite's automatic checkpoint, plus a `.truncate` checkpoint after a
    /// write once `interval` has passed since the last one.
    ///
    /// The checkpoint runs on the writer connection right after the write's
    /// commit, and waits at most `maximumReaderWait` for the reads that hold
    /// an older snapshot to end (reads that start meanwhile do not delay it).
    /// If they do not end in time, it gives up silently and the next write
    /// after `interval` tries again. The writer, and so the next write, waits
    /// during the checkpoint: keep `maximumReaderWait` short.
    public static func truncate(every interval: Duration, maximumReaderWait: Duration = .milliseconds(100)) -> CheckpointPolicy {
        CheckpointPolicy(kind: .truncate(interval: interval, readerWait: maximumReaderWait))
    }
}

extension Database {
    /// Runs a checkpoint of the WAL (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>)
    /// and returns the number of frames in the WAL and how many of them are
    /// now copied into the database file.
    ///
    /// ```swift
    /// try dbPool.writeWithoutTransaction { db in
    ///     let result = try db.checkpoint(.truncate)   // PRAGMA wal_checkpoint(TRUNCATE)
    ///     print(result.walFrameCount, result.checkpointedFrameCount)
    /// }
    /// ```
    ///
    /// Modes other than `.passive` wait up to ``Configuration/busyTimeout`` for
    /// other connections, then throw `SQLITE_BUSY`. After `.truncate`, both
    /// counts are 0. Outside WAL mode, both are -1. Throws inside a transaction
    /// (SQLite cannot checkpoint there, <https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>).
    ///
    /// - parameters:
    ///   - mode: how long to wait for other connections (default `.passive`).
    ///   - dbName: the schema (`"main"`, an attached database), or nil for all.
    @discardableResult
    public func checkpoint(_ mode: CheckpointMode = .passive, on dbName: String? = "main") throws -> (
        walFrameCount: Int, checkpointedFrameCount: Int
    ) {
        try require(.walCheckpoints, "WAL checkpoints (checkpoint(_:on:))")
        if isInsideTransaction {
            throw DatabaseError.misuse("a checkpoint cannot run inside a transaction: use writeWithoutTransaction")
        }
        var walFrameCount: Int32 = -1
        var checkpointedFrameCount: Int32 = -1
        let code = sqlite3_wal_checkpoint_v2(sqliteConnection, dbName, mode.sqliteMode, &walFrameCount, &checkpointedFrameCount)
        guard code == SQLITE_OK else {
            if code & 0xFF == SQLITE_BUSY { instrumentation?.checkpointBusy?.increment() }
            throw makeError(code: code, sql: nil)
        }
        if let instrumentation, walFrameCount >= 0 {
            instrumentation.checkpointWALFrames?.record(Int(walFrameCount))
            instrumentation.checkpointCopiedFrames?.record(Int(checkpointedFrameCount))
        }
        return (Int(walFrameCount), Int(checkpointedFrameCount))
    }

    /// Applies a `.truncate(every:)` policy after a write of a pool's writer.
    /// Never throws: a checkpoint that cannot finish is retried after a later write.
    func checkpointIfDue(_ policy: CheckpointPolicy) {
        guard case .truncate(let interval, let readerWait) = policy.kind, !isInsideTransaction else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now &- lastPolicyCheckpoint >= Database.nanoseconds(interval) else { return }
        lastPolicyCheckpoint = now
        // Wait for readers only briefly, then restore the configured timeout.
        installBusyHandler(milliseconds: Int32(clamping: Database.nanoseconds(readerWait) / 1_000_000))
        defer { installBusyHandler(milliseconds: configuredBusyMilliseconds) }
        _ = try? checkpoint(.truncate)
    }
}
