// An SQLite commit in WAL mode that fails with an I/O error: what the error
// says must match what the file holds. Through the quarry-fault VFS, a commit
// fails after its frame reached the -wal (its sync fails) or before (the
// write of its frame fails); the database and its -wal are then copied
// without the -shm and reopened with a plain connection, as the first open
// after a crash would: SQLite rebuilds the wal-index from the -wal and
// replays every transaction whose commit frame it finds.

import CSQLite
import Foundation
import Quarry
import Testing

/// What one failed commit left behind.
private struct FailedCommit: Sendable {
    /// The error of the commit, if it was a DatabaseError.
    var error: DatabaseError?
    /// Anything else it threw, or "nothing".
    var otherOutcome: String
    /// How many calls the fault failed.
    var faultHits: Int
    /// Whether the -wal file grew during the failed commit.
    var walGrew: Bool
    /// Whether the pool, after the error, sees the row.
    var poolSeesRow: Bool
    /// Whether a plain connection to a copy of the database and its -wal
    /// (no -shm) sees the row.
    var copySeesRow: Bool
    /// The path of the database.
    var path: String
}

/// How the failed write commits.
private enum CommitPath: Sendable {
    /// `DatabasePool.write`: `COMMIT TRANSACTION` commits.
    case transaction
    /// `writeWithoutTransaction` and one `INSERT`, which commits by itself.
    case autocommit
}

@Suite struct CommitOutcomeTests {
    static let insertSQL = "INSERT INTO item (id, note) VALUES (2, 'unsure')"

    /// Opens a WAL database through the fault VFS, commits a first row, fails
    /// call `kind` number 1 of the next write, and reopens a copy.
    private func failCommit(_ kind: FaultVFS.Kind, through commitPath: CommitPath) async throws -> FailedCommit {
        let directory = try TemporaryDirectory()
        return try await FaultVFS.exclusively {
            var configuration = Configuration()
            configuration.acceptsURIFilenames = true
            // A sync at each commit: the -wal sync is the commit's first one.
            configuration.synchronous = .full
            let path = directory.path("db.sqlite")
            let pool = try DatabasePool(path: FaultVFS.uri(path), configuration: configuration)
            try pool.write { db in
                try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO item (id, note) VALUES (1, 'sure')")
            }
            // Another connection to the file, as another process would have:
            // when the pool's writer is closed after the error, it is not the
            // last one, so the -wal stays as the failed commit left it.
            let witness = try DatabaseQueue(path: FaultVFS.uri(path), configuration: configuration)
            _ = try witness.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }

            let walPath = path + "-wal"
            func walSize() throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: walPath)[.size] as? Int) ?? -1
            }
            let walSizeBefore = try walSize()
            FaultVFS.resetCounters()
            FaultVFS.fail(kind, nth: 1, code: kind.ioErrorCode, persistent: false)
            var error: DatabaseError?
            var otherOutcome = "nothing"
            do {
                switch commitPath {
                case .transaction:
                    try pool.write { db in try db.execute(sql: Self.insertSQL) }
                case .autocommit:
                    try pool.writeWithoutTransaction { db in try db.execute(sql: Self.insertSQL) }
                }
            } catch let caught as DatabaseError {
                error = caught
            } catch {
                otherOutcome = "\(error)"
            }
            let faultHits = FaultVFS.faultHits
            FaultVFS.clearFault()
            let walGrew = try walSize() > walSizeBefore

            // The copy, without the -shm: what the first open after a crash finds.
            let copyPath = directory.path("copy.sqlite")
            try FileManager.default.copyItem(atPath: path, toPath: copyPath)
            try FileManager.default.copyItem(atPath: walPath, toPath: copyPath + "-wal")
            let poolSeesRow = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE id = 2") } == 1
            let copy = try DatabaseQueue(path: copyPath)
            let copySeesRow = try copy.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item WHERE id = 2") } == 1
            copy.close()
            witness.close()
            pool.close()
            try FaultVFS.forgetFiles()
            return FailedCommit(
                error: error, otherOutcome: otherOutcome, faultHits: faultHits, walGrew: walGrew,
                poolSeesRow: poolSeesRow, copySeesRow: copySeesRow, path: path)
        }
    }

    /// Checks what every failed commit must satisfy, and reports the outcome.
    private func expectHonestError(_ run: FailedCommit, _ kind: FaultVFS.Kind, sql: String, label: String) {
        print("commit-outcome: \(label): \(run.error.map { "\($0)" } ?? run.otherOutcome); "
            + "-wal grew: \(run.walGrew); the pool sees the row: \(run.poolSeesRow); "
            + "the reopened copy holds the row: \(run.copySeesRow)")
        #expect(run.faultHits == 1, "\(label)")
        guard let error = run.error else {
            Issue.record("\(label): the failed commit threw \(run.otherOutcome), not a DatabaseError")
            return
        }
        // SQLite's code stays, the outcome is unknown.
        #expect(error.extendedResultCode.rawValue == kind.ioErrorCode, "\(label): \(error)")
        #expect(error.isIOError, "\(label): \(error)")
        #expect(error.isCommitOutcomeUnknown, "\(label): \(error)")
        #expect(error.sqlState == nil)
        #expect(error.sql == sql)
        #expect(error.message.contains(run.path), "\(label): \(error.message)")
        #expect(error.message.contains("may or may not have been committed"), "\(label): \(error.message)")
        // An error that says "rolled back" must be right about the file.
        if !error.isCommitOutcomeUnknown {
            #expect(!run.copySeesRow, "\(label): the error says rolled back, the reopened file holds the row")
        }
        // The live connections never see it: SQLite rolled back in memory.
        #expect(!run.poolSeesRow, "\(label)")
    }

    /// The sync of the -wal fails after the commit frame was written: the
    /// reopened copy replays the transaction (on Linux, the frame is in the
    /// file), so the error must not say "rolled back".
    @Test func aFailedWALSyncOnCommitIsAnUnknownOutcome() async throws {
        let run = try await failCommit(.sync, through: .transaction)
        expectHonestError(run, .sync, sql: "COMMIT TRANSACTION", label: "WAL sync fails on COMMIT")
        #expect(run.walGrew, "the commit frame did not reach the -wal: the fault hit another sync")
    }

    /// The same, for a write outside a transaction, which commits by itself.
    @Test func aFailedWALSyncOnAnAutocommitWriteIsAnUnknownOutcome() async throws {
        let run = try await failCommit(.sync, through: .autocommit)
        expectHonestError(run, .sync, sql: Self.insertSQL, label: "WAL sync fails on an autocommit INSERT")
        #expect(run.walGrew, "the commit frame did not reach the -wal: the fault hit another sync")
    }

    /// The write of the commit frame itself fails: nothing reached the -wal,
    /// and the copy does not hold the row. The error still says "unknown":
    /// SQLite's code cannot tell this write from those that follow the
    /// commit frame (padding frames on a disk without powersafe overwrite)
    /// or from a write that failed after part of it landed.
    @Test func aFailedWALFrameWriteOnCommitIsAnUnknownOutcome() async throws {
        let run = try await failCommit(.write, through: .transaction)
        expectHonestError(run, .write, sql: "COMMIT TRANSACTION", label: "WAL frame write fails on COMMIT")
        #expect(!run.walGrew)
        #expect(!run.copySeesRow, "nothing reached the -wal, yet the copy holds the row")
    }
}
