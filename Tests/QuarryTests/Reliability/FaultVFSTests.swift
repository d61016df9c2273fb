// Tests of the quarry-fault VFS itself (Tests/FaultVFS): that it counts the
// calls of a transaction, fails the chosen call with the chosen code, keeps
// synced writes through a power cut and may drop unsynced ones, and refuses
// to write an image while files are open.

import CSQLite
import Foundation
import Quarry
import Testing

@Suite struct FaultVFSTests {
    private static func configuration(_ synchronous: SynchronousMode) -> Configuration {
        var configuration = Configuration()
        configuration.acceptsURIFilenames = true
        configuration.journalMode = .delete
        configuration.synchronous = synchronous
        return configuration
    }

    /// A rollback-journal database with a table, created durably without the VFS.
    private static func makeDatabase(_ path: String, directory: TemporaryDirectory) throws {
        var configuration = Configuration()
        configuration.journalMode = .delete
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)") }
        queue.close()
        syncDirectory(directory.url.path)
    }

    @Test func countsTheCallsOfATransaction() async throws {
        let directory = try TemporaryDirectory()
        let counts = try await FaultVFS.exclusively { () -> [FaultVFS.Kind: Int] in
            let path = directory.path()
            try Self.makeDatabase(path, directory: directory)
            let queue = try DatabaseQueue(path: FaultVFS.uri(path), configuration: Self.configuration(.full))
            defer { queue.close() }
            FaultVFS.resetCounters()
            try queue.write { db in try db.execute(sql: "INSERT INTO t (payload) VALUES ('a')") }
            let counts = FaultVFS.counts()
            queue.close()
            try FaultVFS.forgetFiles()
            return counts
        }
        // DELETE mode: the journal is opened, written, synced; the database
        // written and synced; the journal deleted.
        #expect(counts[.open] == 1)
        #expect((counts[.write] ?? 0) >= 2)
        #expect((counts[.sync] ?? 0) >= 2)
        #expect(counts[.delete] == 1)
        #expect((counts[.lock] ?? 0) >= 1)
    }

    @Test func failsTheChosenCallWithTheChosenCode() async throws {
        let directory = try TemporaryDirectory()
        let (code, hits, rows) = try await FaultVFS.exclusively { () -> (ResultCode?, Int, Int) in
            let path = directory.path()
            try Self.makeDatabase(path, directory: directory)
            let queue = try DatabaseQueue(path: FaultVFS.uri(path), configuration: Self.configuration(.full))
            defer { queue.close() }
            FaultVFS.fail(.write, nth: 2, code: SQLITE_FULL, persistent: false)
            var code: ResultCode?
            do {
                try queue.write { db in try db.execute(sql: "INSERT INTO t (payload) VALUES ('a')") }
            } catch let error as DatabaseError {
                code = error.resultCode
            }
            let hits = FaultVFS.faultHits
            FaultVFS.clearFault()
            try queue.write { db in try db.execute(sql: "INSERT INTO t (payload) VALUES ('b')") }
            let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } ?? -1
            queue.close()
            try FaultVFS.forgetFiles()
            return (code, hits, rows)
        }
        #expect(code == .SQLITE_FULL)
        #expect(hits == 1)
        #expect(rows == 1)
    }

    /// With `synchronous = OFF` nothing is synced, and some seeds lose the
    /// write; with `EXTRA`, every seed keeps it.
    @Test func powerCutKeepsSyncedWritesAndMayDropOthers() async throws {
        let directory = try TemporaryDirectory()
        let kept = try await FaultVFS.exclusively { () -> [SynchronousMode: [Bool]] in
            FaultVFS.setRealSyncs(false)
            defer { FaultVFS.setRealSyncs(true) }
            var kept: [SynchronousMode: [Bool]] = [:]
            for mode in [SynchronousMode.off, .extra] {
                for seed in 1...16 {
                    let path = directory.path("cut-\(mode.rawValue)-\(seed).sqlite")
                    try Self.makeDatabase(path, directory: directory)
                    let queue = try DatabaseQueue(path: FaultVFS.uri(path), configuration: Self.configuration(mode))
                    let payload = String(repeating: "x", count: 6000)
                    try queue.write { db in try db.execute(sql: "INSERT INTO t (payload) VALUES (?)", arguments: [payload]) }
                    FaultVFS.seed(UInt64(seed))
                    FaultVFS.cutPower()
                    queue.close()
                    try FaultVFS.writePowerLossImage()
                    // Without syncs the file may be corrupt: opening it may throw.
                    let rows = try? { () throws -> [String] in
                        let reopened = try DatabaseQueue(path: path, configuration: Self.configuration(.full))
                        defer { reopened.close() }
                        return try reopened.read { db in try String.fetchAll(db, sql: "SELECT payload FROM t") }
                    }()
                    kept[mode, default: []].append(rows == [payload])
                }
            }
            return kept
        }
        #expect(kept[.extra] == Array(repeating: true, count: 16))
        #expect(kept[.off]?.contains(false) == true, "no seed lost an unsynced write: the model drops nothing")
    }

    /// A pool's writer and readers on several threads at once, all through
    /// the VFS (its one mutex guards the model): every write is read back,
    /// the counters add up, and the file is intact. Run under ASan too.
    @Test func concurrentConnectionsThroughTheVFS() async throws {
        let directory = try TemporaryDirectory()
        let (rows, integrity, reads, writes, readerErrors) = try await FaultVFS.exclusively {
            () -> (Int, [String], Int, Int, Int) in
            var configuration = Configuration()
            configuration.acceptsURIFilenames = true
            configuration.maximumReaderCount = 4
            let pool = try DatabasePool(path: FaultVFS.uri(directory.path()), configuration: configuration)
            defer { pool.close() }
            try pool.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)") }
            FaultVFS.resetCounters()
            let readerErrors = UncheckedBox(0)
            let lock = NSLock()
            let group = DispatchGroup()
            for _ in 0..<4 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    for _ in 0..<150 {
                        do {
                            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
                        } catch {
                            lock.withLock { readerErrors.value += 1 }
                        }
                    }
                }
            }
            for index in 0..<150 {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO t (payload) VALUES (?)", arguments: [String(repeating: "w", count: 100 + index)])
                }
            }
            group.wait()
            let rows = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } ?? -1
            let integrity = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            let counts = FaultVFS.counts()
            pool.close()
            try FaultVFS.forgetFiles()
            return (rows, integrity, counts[.shmLock] ?? 0, counts[.write] ?? 0, readerErrors.value)
        }
        #expect(rows == 150)
        #expect(integrity == ["ok"])
        #expect(readerErrors == 0)
        // Each read transaction takes a wal-index read lock; each commit writes WAL frames.
        #expect(reads >= 600)
        #expect(writes >= 150)
    }

    @Test func refusesTheImageWhileFilesAreOpen() async throws {
        let directory = try TemporaryDirectory()
        let (refused, written) = try await FaultVFS.exclusively { () -> (Bool, Bool) in
            let path = directory.path()
            try Self.makeDatabase(path, directory: directory)
            let queue = try DatabaseQueue(path: FaultVFS.uri(path), configuration: Self.configuration(.full))
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
            FaultVFS.cutPower()
            let refused = (try? FaultVFS.writePowerLossImage()) == nil
            queue.close()
            let written = (try? FaultVFS.writePowerLossImage()) != nil
            return (refused, written)
        }
        #expect(refused)
        #expect(written)
    }
}
