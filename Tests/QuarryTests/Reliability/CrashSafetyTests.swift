// Crash-safety tests: a writer process is killed with SIGKILL at random
// moments, and every reopening of its file must find an intact database with
// every acknowledged commit, no partial transaction, and migrations that resume.

import Foundation
import Quarry
import Testing

/// Kills the `crash-writer` mode of the QuarryProcessHelper executable (see
/// `Tests/ProcessHelper/CrashWriter.swift`) at random moments and checks the
/// file after each kill.
///
/// The helper migrates the file with a `DatabaseMigrator` (six migrations,
/// one of them a 40,000-row backfill), then loops over record writes: entry
/// inserts, entry updates, multi-row batches, batch deletions, transfers
/// between accounts, bulk inserts larger than SQLite's page cache (pages reach
/// the file or the WAL before the commit), and WAL checkpoints. It prints `begin …` before each write
/// and `ack …` once the write returned. Each round starts it on the same file,
/// kills it — a few milliseconds after it started, inside a chosen migration,
/// or up to 200 ms into the write loop — then reopens the file, alternately
/// with a `DatabaseQueue` and a `DatabasePool`, and checks:
///
/// - `PRAGMA integrity_check` is `ok` and `PRAGMA foreign_key_check` is empty;
/// - the data is exactly what the acknowledged writes made, plus at most the
///   one write in flight at the kill, entirely or not at all: every entry,
///   batch (all of its ledger rows or none), bulk insert and transfer; the account balances
///   match the transfers and their sum is constant;
/// - the recorded migrations are a prefix of the registered ones, each
///   migration's schema changes are all there or all absent, the migrations a
///   run starts are exactly the next pending ones, and a run that reports
///   `migrated` leaves them all recorded.
///
/// Every few rounds a new file starts (so that kills keep landing inside
/// migrations), alternately written through a `DatabasePool` (WAL) and a
/// `DatabaseQueue` in rollback-journal mode (the helper reports the journal
/// mode it writes in, and the test checks it). Each file ends with a run that
/// must complete on its own: migrations finish and writes go on after the crashes.
///
/// - CI mode (default): 100 kills on 20 files, 12–20 s on two shared cores.
/// - Long mode, `QUARRY_LONG_TESTS=1`: 500 kills on 100 files; about 70 s.
/// - Each run draws a fresh seed and prints it first
///   (`QUARRY_CRASH_SEED=N replays …`); `QUARRY_CRASH_SEED=N` replays the
///   choices of a run (kill timings still depend on the machine). The seed is
///   also in every failure message.
///
/// The test prints one summary line (`crash-safety: …`) with the figures.
@Suite struct CrashSafetyTests {
    @Test func killedWriterLeavesAConsistentDatabase() async throws {
        let plan = CrashPlan.current()
        print("QUARRY_CRASH_SEED=\(plan.seed) replays this run's crash-safety choices")
        let executable = try crashHelperExecutable()
        let directory = try TemporaryDirectory()
        // The kills run on a thread of their own: they block for tens of
        // seconds and must not hold a thread of Swift's cooperative pool.
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<CrashOutcome, Never>) in
            Thread.detachNewThread {
                var torture = CrashTorture(plan: plan, executable: executable, directory: directory)
                torture.run()
                continuation.resume(returning: torture.outcome)
            }
        }
        print(outcome.summary(plan: plan))
        for failure in outcome.failures {
            Issue.record("\(failure) [seed \(plan.seed); replay with QUARRY_CRASH_SEED=\(plan.seed)]")
        }
        #expect(outcome.kills >= plan.kills, "only \(outcome.kills) of \(plan.kills) kills ran [seed \(plan.seed)]")
        #expect(outcome.acknowledgedWrites > 0, "no write was acknowledged [seed \(plan.seed)]")
        #expect(outcome.killsInsideMigrations > 0, "no kill landed inside a migration [seed \(plan.seed)]")
        #expect(outcome.killsInWriteLoop > 0, "no kill landed in the write loop [seed \(plan.seed)]")
    }

    /// The helper refuses bad arguments with a usage message instead of writing.
    @Test func helperRejectsBadArguments() throws {
        let executable = try crashHelperExecutable()
        for (arguments, message) in [
            (["crash-writer"], "missing database path"),
            (["crash-writer", "/nonexistent/db.sqlite", "--seed", "x"], "bad seed x"),
            (["crash-writer", "/nonexistent/db.sqlite", "--frobnicate"], "unknown option --frobnicate"),
        ] {
            let run = try CrashHelperRun(executable: executable, arguments: arguments)
            let (ending, endedOnItsOwn) = run.waitForExit(timeout: 60)
            #expect(endedOnItsOwn)
            #expect(ending == .exited(64), "\(arguments)")
            #expect(run.errorText.contains(message), "\(arguments): \(run.errorText)")
            #expect(run.receivedLines.isEmpty)
        }
        // A path in a missing directory fails when the database opens: status 1, the path named.
        let run = try CrashHelperRun(executable: executable, arguments: ["crash-writer", "/nonexistent-quarry-dir/db.sqlite"])
        let (ending, _) = run.waitForExit(timeout: 60)
        #expect(ending == .exited(1))
        #expect(run.errorText.contains("/nonexistent-quarry-dir/db.sqlite"), "\(run.errorText)")
    }

    /// The checks themselves can fail: a database that lost an acknowledged
    /// write, or holds half a batch, is reported.
    @Test func snapshotChecksDetectLostAndPartialWrites() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try DatabaseQueue(path: directory.path())
        let parameters = try CrashWriterParameters(
            line: "registered createAccounts,createEntries,createLedger,backfillHistory,indexLedger,createBulk accounts=2 balance=10 history=3")
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE quarry_migrations (name TEXT NOT NULL PRIMARY KEY);
                INSERT INTO quarry_migrations (name) VALUES ('createAccounts'), ('createEntries'), ('createLedger');
                CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT NOT NULL, balance INTEGER NOT NULL);
                INSERT INTO account VALUES (1, 'a', 5), (2, 'b', 15);
                CREATE TABLE entry (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, revision INTEGER NOT NULL);
                INSERT INTO entry VALUES (1, 'abc', 0);
                CREATE TABLE batch (id INTEGER PRIMARY KEY, rowCount INTEGER NOT NULL, memo TEXT NOT NULL);
                CREATE TABLE ledger (id INTEGER PRIMARY KEY, batchID INTEGER NOT NULL REFERENCES batch, seq INTEGER, amount INTEGER);
                INSERT INTO batch VALUES (1, 3, 'partial');
                INSERT INTO ledger (batchID, seq, amount) VALUES (1, 0, 7), (1, 1, 8);
                CREATE TABLE transfer (id INTEGER PRIMARY KEY, fromID INTEGER, toID INTEGER, amount INTEGER);
                INSERT INTO transfer VALUES (1, 1, 2, 5);
                CREATE TABLE history (id INTEGER PRIMARY KEY);
                INSERT INTO quarry_migrations (name) VALUES ('indexLedger');
                CREATE TABLE bulk (id INTEGER PRIMARY KEY, bulkID INTEGER NOT NULL, payload TEXT NOT NULL);
                INSERT INTO bulk (bulkID, payload) VALUES (4, 'xx'), (4, 'yyy');
                """)
        }
        let snapshot = try dbQueue.read { db in try CrashFileSnapshot.read(db, parameters: parameters) }
        #expect(snapshot.integrityCheck == ["ok"])
        #expect(snapshot.recordedMigrations == ["createAccounts", "createEntries", "createLedger", "indexLedger"])
        #expect(snapshot.problems.contains { $0.contains("batch 1 declares 3 ledger rows but has 2") })
        #expect(snapshot.problems.contains { $0.contains("table history is present but migration backfillHistory is not recorded") })
        // A migration recorded with its effects missing, one not recorded with its effects there.
        #expect(snapshot.problems.contains { $0.contains("index ledger_on_batch is absent but migration indexLedger is recorded") })
        #expect(snapshot.problems.contains { $0.contains("table bulk is present but migration createBulk is not recorded") })
        // A gap in the recorded migrations, as the migrator itself sees it.
        #expect(snapshot.problems.contains { $0.contains("the migrator sees") })
        #expect(snapshot.problems.contains { $0.contains("bulk 4 has payloads of 2 to 3 bytes") })
        #expect(snapshot.state.entries[1] == CrashEntryState(revision: 0, length: 3, hash: crashHash("abc")))
        #expect(snapshot.balances == snapshot.state.balances(accountCount: 2, initialBalance: 10))

        // A model with one more acknowledged entry is not what the file holds.
        var expected = CrashState()
        try expected.apply(.entry(id: 1, length: 3, hash: crashHash("abc")))
        try expected.apply(.entry(id: 2, length: 1, hash: crashHash("x")))
        try expected.apply(.batch(id: 1, amounts: [7, 8, 9]))
        try expected.apply(.transfer(id: 1, from: 1, to: 2, amount: 5))
        #expect(expected != snapshot.state)
        let differences = expected.differences(from: snapshot.state)
        #expect(differences.contains("entry 2: expected revision 0, 1 bytes, hash \(crashHash("x")), found absent"))
        #expect(differences.contains("batch 1: expected [7, 8, 9], found [7, 8]"))
    }

    @Test func runLogRejectsBrokenProtocolAndKeepsTheWriteInFlight() throws {
        let log = try CrashRunLog(lines: [
            "registered a,b accounts=8 balance=1000 history=5",
            "journal wal",
            "migration-start a", "migration-start b", "migrated",
            "begin entry 1 3 abc", "ack entry 1 3 abc",
            "begin transfer 1 2 3 40",
        ])
        #expect(log.registered?.migrations == ["a", "b"])
        #expect(log.journalMode == "wal")
        #expect(log.startedMigrations == ["a", "b"])
        #expect(log.sawMigrated)
        #expect(log.acknowledged == [.entry(id: 1, length: 3, hash: "abc")])
        #expect(log.inFlight == .transfer(id: 1, from: 2, to: 3, amount: 40))

        #expect(throws: CrashSupportError.self) { try CrashRunLog(lines: ["ack entry 1 3 abc"]) }
        #expect(throws: CrashSupportError.self) { try CrashRunLog(lines: ["begin unbatch 1", "begin unbatch 2"]) }
        #expect(throws: CrashSupportError.self) { try CrashRunLog(lines: ["begin batch 1 4,x"]) }
        #expect(throws: CrashSupportError.self) { try CrashRunLog(lines: ["something else"]) }

        var state = CrashState()
        #expect(throws: CrashSupportError.self) { try state.apply(.revise(id: 9, revision: 1, length: 1, hash: "0")) }
        #expect(throws: CrashSupportError.self) { try state.apply(.unbatch(id: 3)) }
    }
}
