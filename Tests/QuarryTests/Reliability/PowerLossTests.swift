// Power-loss tests: the crash model's workload runs through the quarry-fault
// VFS, which cuts the power at a random I/O call and rewrites the files to
// what a disk could hold afterwards (synced content plus a random, possibly
// torn, subset of the later writes; unsynced deletions possibly undone).
// Every reopening must find an intact database, no partial transaction, and
// — where the settings promise durability — every acknowledged write.

import Foundation
import Quarry
import Testing

/// How many cuts, with which seed.
struct PowerLossPlan: Sendable {
    var seed: UInt64
    var cuts: Int
    var roundsPerFile: Int
    var writesPerRound: Int
    var timeCap: TimeInterval
    var isLong: Bool

    static func current() -> PowerLossPlan {
        let environment = ProcessInfo.processInfo.environment
        let isLong = environment["QUARRY_LONG_TESTS"] == "1"
        let seed = environment["QUARRY_POWER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        return isLong
            ? PowerLossPlan(seed: seed, cuts: 10_000, roundsPerFile: 6, writesPerRound: 30, timeCap: 7200, isLong: true)
            : PowerLossPlan(seed: seed, cuts: 720, roundsPerFile: 5, writesPerRound: 20, timeCap: 90, isLong: false)
    }
}

/// The figures of one setting.
struct PowerLossFigures: Sendable {
    var cuts = 0
    var cutsInsideMigrations = 0
    /// Rounds that ended their writes before the chosen call: cut at rest.
    var cutsAtRest = 0
    /// Cuts before a later round's first step: while it reopened the file
    /// (the rollback of a hot journal left by the previous cut, the journal
    /// mode, the migrator's own table) or at its first write.
    var cutsWhileOpening = 0
    var acknowledgedChecked = 0
    var lostWrites = 0
    var cutsLosingWrites = 0
    var mostLostByOneCut = 0
    var inFlightCommitted = 0
    /// Cuts after which the file failed a check, where SQLite does not promise it.
    /// Cuts after which migrations undone by an earlier cut came back (WAL
    /// with NORMAL only; see `verifyPowerLoss`).
    var migrationsCameBack = 0
    var damagedFiles = 0
    var firstDamage: String?
}

/// The figures and failures of a run.
struct PowerLossOutcome: Sendable {
    var figures: [PowerLossSetting: PowerLossFigures] = [:]
    var files = 0
    var duration: TimeInterval = 0
    var vfs: [FaultVFS.Statistic: Int] = [:]
    var failures: [String] = []

    var cuts: Int { figures.values.reduce(0) { $0 + $1.cuts } }

    func summary(plan: PowerLossPlan) -> String {
        let seconds = (duration * 10).rounded() / 10
        var lines = ["power-loss: seed \(plan.seed), \(cuts) power cuts on \(files) files in \(seconds) s; "
            + "writes pending at the cuts \(vfs[.pendingWrites] ?? 0): \(vfs[.writesLanded] ?? 0) landed whole, "
            + "\(vfs[.writesTorn] ?? 0) torn at 512-byte sectors, \(vfs[.writesDropped] ?? 0) dropped; truncations "
            + "\(vfs[.truncatesApplied] ?? 0) applied, \(vfs[.truncatesDropped] ?? 0) dropped; unsynced directory changes "
            + "\(vfs[.directoryChangesUndone] ?? 0) undone, \(vfs[.directoryChangesKept] ?? 0) kept; \(failures.count) failures"]
        for setting in PowerLossSetting.all {
            let f = figures[setting] ?? PowerLossFigures()
            var damage = ""
            if !setting.promisesIntegrity {
                let first = f.firstDamage.map { ", first: \($0)" } ?? ""
                damage = "; damaged files (integrity or a partial state) \(f.damagedFiles)" + first
            }
            lines.append("power-loss: \(setting): \(f.cuts) cuts (\(f.cutsInsideMigrations) inside migrations, "
                + "\(f.cutsAtRest) at rest, \(f.cutsWhileOpening) before the round's first step: reopening, recovery), \(f.acknowledgedChecked) acknowledged writes checked, \(f.lostWrites) lost "
                + "in \(f.cutsLosingWrites) cuts (at most \(f.mostLostByOneCut) by one cut), "
                + "write in flight found committed \(f.inFlightCommitted) times"
                + (setting == .walNormal ? ", migrations undone by an earlier cut came back \(f.migrationsCameBack) times" : "") + damage)
        }
        lines.append("power-loss: replay with QUARRY_POWER_SEED=\(plan.seed)\(plan.isLong ? " QUARRY_LONG_TESTS=1" : "") "
            + "swift test --filter PowerLossTests")
        return lines.joined(separator: "\n")
    }
}

/// The rounds of a run, one file after another, the settings in turn.
struct PowerLossRunner {
    let plan: PowerLossPlan
    let directory: TemporaryDirectory
    private(set) var outcome = PowerLossOutcome()
    private var random: CrashRandom
    /// Per setting, how many mutating calls a round makes (the range of the cut point).
    private var callEstimates: [PowerLossSetting: Int] = [:]

    init(plan: PowerLossPlan, directory: TemporaryDirectory) {
        self.plan = plan
        self.directory = directory
        random = CrashRandom(seed: plan.seed)
    }

    mutating func run() {
        let start = Date()
        let deadline = start.addingTimeInterval(plan.timeCap)
        FaultVFS.setRealSyncs(false)
        FaultVFS.resetStatistics()
        defer { FaultVFS.setRealSyncs(true) }
        var fileIndex = 0
        while outcome.cuts < plan.cuts, Date() < deadline, outcome.failures.count < 5 {
            let setting = PowerLossSetting.all[fileIndex % PowerLossSetting.all.count]
            let path = directory.path("power-\(fileIndex).sqlite")
            fileIndex += 1
            outcome.files += 1
            do {
                try runFile(path: path, setting: setting, deadline: deadline, fileIndex: fileIndex - 1)
            } catch {
                outcome.failures.append("\(error)")
            }
            try? FaultVFS.forgetFiles()
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        for statistic in FaultVFS.Statistic.allCases { outcome.vfs[statistic] = FaultVFS.statistic(statistic) }
        outcome.duration = Date().timeIntervalSince(start)
    }

    private mutating func runFile(path: String, setting: PowerLossSetting, deadline: Date, fileIndex: Int) throws {
        // The file exists, durably, before the run: SQLite never syncs the
        // directory after creating a database file, so its very creation is
        // outside what it promises.
        if setting.usesWAL {
            try DatabasePool(path: path).close()
        } else {
            var configuration = Configuration()
            configuration.journalMode = setting.journalMode
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 0") }
            queue.close()
        }
        syncDirectory(directory.url.path)

        var model = CrashState()
        var recorded: [String] = []
        var earlierMigrations: Set<String> = []
        for roundIndex in 0..<plan.roundsPerFile where outcome.cuts < plan.cuts && Date() < deadline {
            let estimate = callEstimates[setting] ?? 600
            // One round in four after the first cuts within its first calls:
            // while the file recovers from the previous cut (a hot journal
            // rolled back) or at its first write.
            let cutsEarly = roundIndex > 0 && random.int(in: 0...3) == 0
            let cutAt = cutsEarly ? random.int(in: 1...6) : random.int(in: 1...max(1, estimate))
            let label = "seed \(plan.seed), file \(fileIndex) (\(setting)), round \(roundIndex), cut at mutating call \(cutAt)"
            FaultVFS.resetCounters()
            FaultVFS.seed(random.next())
            FaultVFS.cutPower(atCall: cutAt, of: [.write, .sync, .truncate, .delete])
            var round = PowerLossRound(
                path: path, setting: setting, random: CrashRandom(seed: random.next()), writes: plan.writesPerRound,
                nextEntryID: (model.entries.keys.max() ?? 0) + 1,
                nextBatchID: (model.batches.keys.max() ?? 0) + 1,
                nextTransferID: (model.transfers.keys.max() ?? 0) + 1,
                nextBulkID: (model.bulks.keys.max() ?? 0) + 1,
                state: model)
            let log = try round.run()
            let mutatingCalls = [FaultVFS.Kind.write, .sync, .truncate, .delete].reduce(0) { $0 + FaultVFS.count($1) }
            var figures = outcome.figures[setting] ?? PowerLossFigures()
            if !FaultVFS.powerIsCut {
                // The round ended first: cut now, and aim earlier next time.
                FaultVFS.cutPower()
                figures.cutsAtRest += 1
                callEstimates[setting] = max(20, mutatingCalls)
            }
            guard FaultVFS.openFileCount == 0 else {
                throw CrashSupportError(description: "\(label): \(FaultVFS.openFileCount) files of the VFS are still open after close()")
            }
            try FaultVFS.writePowerLossImage()
            // The check reads a copy: the file itself keeps its hot journal or
            // its WAL, so that the next round recovers it through the VFS,
            // where its cut may land inside the recovery.
            let checkPath = directory.path("check-\(fileIndex).sqlite")
            let suffixes = ["", "-wal", "-journal"]
            for suffix in suffixes where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: checkPath + suffix)
            }
            defer {
                for suffix in suffixes + ["-shm"] { try? FileManager.default.removeItem(atPath: checkPath + suffix) }
            }
            if log.acknowledged.isEmpty, log.inFlight == nil, roundIndex > 0 { figures.cutsWhileOpening += 1 }
            let verdict: PowerLossVerdict
            do {
                verdict = try verifyPowerLoss(
                    path: checkPath, setting: setting, model: model, recorded: recorded, log: log, label: label,
                    earlierMigrations: earlierMigrations)
            } catch let error where !setting.promisesIntegrity {
                figures.cuts += 1
                figures.damagedFiles += 1
                if figures.firstDamage == nil { figures.firstDamage = "\(error)" }
                outcome.figures[setting] = figures
                return  // the file cannot go on; the next one starts
            }
            figures.cuts += 1
            if case .migration = log.inFlight { figures.cutsInsideMigrations += 1 }
            figures.acknowledgedChecked += verdict.checkedWrites
            figures.lostWrites += verdict.lostWrites
            if verdict.lostWrites > 0 { figures.cutsLosingWrites += 1 }
            figures.mostLostByOneCut = max(figures.mostLostByOneCut, verdict.lostWrites)
            if verdict.inFlightCommitted { figures.inFlightCommitted += 1 }
            outcome.figures[setting] = figures
            if verdict.lostWrites > 0, setting.promisesDurability {
                let lost = log.acknowledged.suffix(verdict.lostWrites).map(String.init(describing:))
                throw CrashSupportError(description: "\(label): \(verdict.lostWrites) acknowledged writes lost: \(lost.prefix(5))")
            }
            // WAL, any setting: a checkpoint syncs the WAL and the database, so
            // nothing acknowledged before the last acknowledged checkpoint is lost.
            if setting.usesWAL, let last = log.acknowledged.lastIndex(where: {
                if case .write(.checkpoint) = $0 { return true }
                return false
            }), verdict.keptSteps <= last {
                throw CrashSupportError(description: "\(label): the file lost writes acknowledged before the checkpoint at step \(last) (it holds \(verdict.keptSteps) steps)")
            }
            // A rollback journal with FULL: the journal's deletion is not
            // synced, so a cut may bring it back and undo the last commit; never more.
            if setting == .rollbackFull, verdict.lostWrites > 1 {
                throw CrashSupportError(description: "\(label): \(verdict.lostWrites) acknowledged writes lost, more than the last commit")
            }
            if verdict.migrationsCameBack { figures.migrationsCameBack += 1 }
            outcome.figures[setting] = figures
            model = verdict.snapshot.state
            recorded = verdict.snapshot.recordedMigrations
            for event in log.acknowledged + (log.inFlight.map { [$0] } ?? []) {
                if case .migration(let name) = event { earlierMigrations.insert(name) }
            }
        }
    }
}

/// Cuts the power at random I/O calls of the crash model's workload — WAL
/// with a `DatabasePool` and rollback journal with a `DatabaseQueue`,
/// migrations (one of them a backfill), entry inserts and updates, multi-row
/// batches and their deletion, transfers, bulk inserts that spill pages
/// before their commit, and WAL checkpoints — and checks each file the cut
/// leaves, reopened with the ordinary VFS:
///
/// - `PRAGMA integrity_check` is `ok`, foreign keys hold, each migration is
///   all there or absent, every batch has all of its ledger rows, the
///   balances sum to their constant total;
/// - the data is the state after some prefix of the acknowledged steps (plus,
///   after all of them, possibly the step in flight): nothing partial, nothing
///   reordered;
/// - with WAL and `synchronous = FULL`, and with a rollback journal and
///   `synchronous = EXTRA`, that prefix is all of them: no acknowledged write
///   is lost. With WAL and `NORMAL`, and with a rollback journal and `FULL`
///   (SQLite deletes the journal without syncing the directory: the deletion
///   may be undone, and the journal, hot again, rolls the last commit back),
///   the losses are counted and printed; with WAL, nothing acknowledged
///   before the last acknowledged checkpoint is lost, and with a rollback
///   journal and FULL, at most the last commit is.
///
/// A fifth setting, a rollback journal with `synchronous = NORMAL`, is
/// measured only: SQLite does not promise an intact file there, and the
/// damaged files are counted and printed (a long run found some).
///
/// Four more run the default configuration, nothing but the journal mode
/// asked: `DELETE`, `TRUNCATE` and `PERSIST` through a `DatabaseQueue`, WAL
/// through a `DatabasePool`. Each must keep every acknowledged write.
///
/// Each file gets several rounds: the check reads a copy of what the cut
/// left, and the next round reopens the file itself through the VFS, so that
/// a hot journal is rolled back there (one round in four cuts within its
/// first calls, inside that recovery). The in-process workload is
/// deterministic: the seed replays the same cuts.
///
/// - CI mode: 720 cuts (80 per setting), a fresh seed each run; 4–9 s.
/// - Long mode, `QUARRY_LONG_TESTS=1`: 10,000 cuts; 1 to 3 minutes.
/// - `QUARRY_POWER_SEED=N` replays a run (the seed is printed, and is in
///   every failure message).
@Suite struct PowerLossTests {
    @Test func powerCutsLeaveAnIntactDatabaseWithTheAcknowledgedWrites() async throws {
        let plan = PowerLossPlan.current()
        print("power-loss: seed \(plan.seed) (QUARRY_POWER_SEED=\(plan.seed) replays it)")
        let directory = try TemporaryDirectory()
        let outcome = try await FaultVFS.exclusively {
            var runner = PowerLossRunner(plan: plan, directory: directory)
            runner.run()
            return runner.outcome
        }
        print(outcome.summary(plan: plan))
        #expect(outcome.failures.isEmpty, "\(outcome.failures.joined(separator: "\n"))")
        // The run did what it claims: cuts in every setting, some inside
        // migrations, torn writes applied, unsynced directory changes undone.
        let minimum = plan.cuts / (2 * PowerLossSetting.all.count)
        for setting in PowerLossSetting.all {
            // A damaged file ends early: the measured setting gets fewer cuts.
            #expect((outcome.figures[setting]?.cuts ?? 0) >= (setting.promisesIntegrity ? minimum : 1), "too few cuts with \(setting)")
        }
        #expect(outcome.figures.values.reduce(0) { $0 + $1.cutsInsideMigrations } > 0)
        #expect(outcome.figures.values.reduce(0) { $0 + $1.acknowledgedChecked } > 0)
        #expect((outcome.vfs[.writesTorn] ?? 0) > 0)
        #expect(outcome.figures.values.reduce(0) { $0 + $1.cutsWhileOpening } > 0)
        #expect((outcome.vfs[.directoryChangesUndone] ?? 0) > 0)
        // The settings that promise durability kept every acknowledged write
        // (each loss is also a failure above, with its details).
        #expect(outcome.figures[.walFull]?.lostWrites == 0)
        #expect(outcome.figures[.rollbackExtra]?.lostWrites == 0)
        // The default configuration, in every journal mode with a journal on
        // disk: no acknowledged write lost.
        for setting in PowerLossSetting.defaults {
            #expect(outcome.figures[setting]?.lostWrites == 0, "\(setting) lost acknowledged writes")
            #expect((outcome.figures[setting]?.acknowledgedChecked ?? 0) > 0, "\(setting) checked no write")
        }
    }
}
