// Support of the crash-safety tests: the rounds of start, kill, reopen and
// check, the choice of kill moments, and the figures of a run.

import Foundation
import Quarry
import QuarryTestSupport

/// How many kills, on how many files, with which seed.
struct CrashPlan {
    var seed: UInt64
    var kills: Int
    var roundsPerFile: Int
    /// A safety cap on the whole run; the kill count normally ends it long before.
    var timeCap: TimeInterval
    var isLong: Bool

    static func current() -> CrashPlan {
        let environment = ProcessInfo.processInfo.environment
        let isLong = environment["QUARRY_LONG_TESTS"] == "1"
        // QUARRY_CRASH_SEED replays a run; else a fresh seed each run.
        let seed: UInt64
        if let text = environment["QUARRY_CRASH_SEED"], !text.isEmpty {
            guard let parsed = UInt64(text) else { fatalError("QUARRY_CRASH_SEED=\(text) is not a number") }
            seed = parsed
        } else {
            seed = UInt64.random(in: 1...UInt64(UInt32.max))
        }
        return isLong
            ? CrashPlan(seed: seed, kills: 500, roundsPerFile: 5, timeCap: 3600, isLong: true)
            : CrashPlan(seed: seed, kills: 100, roundsPerFile: 5, timeCap: 600, isLong: false)
    }
}

/// The test's seeded random choices.
struct CrashRandom {
    private var generator: SeededGenerator
    init(seed: UInt64) { generator = SeededGenerator(state: seed) }

    mutating func next() -> UInt64 { generator.next() }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// A delay in seconds, uniform in `range` milliseconds (with fractions).
    mutating func delay(milliseconds range: ClosedRange<Double>) -> TimeInterval {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return (range.lowerBound + unit * (range.upperBound - range.lowerBound)) / 1000
    }
}

/// The figures and failures of a run.
struct CrashOutcome: Sendable {
    var kills = 0
    var killsAtStartup = 0
    var killsInsideMigrations = 0
    var killsInWriteLoop = 0
    /// Kills inside migrations, by the migration that had started last (a
    /// kill between the last commit and the `migrated` line counts there too).
    var killsByMigration: [String: Int] = [:]
    /// Kills after which the file lacked some migrations, later resumed.
    var killsLeavingMigrationsPending = 0
    var resumedMigrations = 0
    var files = 0
    var rollbackJournalFiles = 0
    var acknowledgedWrites = 0
    var inFlightCommitted = 0
    var inFlightRolledBack = 0
    /// Kills while a write was in flight, by kind of write (entry, batch, checkpoint…).
    var inFlightByKind: [String: Int] = [:]
    var reopenedWithQueue = 0
    var reopenedWithPool = 0
    var completedRuns = 0
    var duration: TimeInterval = 0
    var failures: [String] = []

    func summary(plan: CrashPlan) -> String {
        let seconds = (duration * 10).rounded() / 10
        return "crash-safety: seed \(plan.seed), \(kills) SIGKILLs on \(files) files "
            + "(\(rollbackJournalFiles) in rollback-journal mode) in \(seconds) s: "
            + "\(killsAtStartup) at startup, \(killsInsideMigrations) inside migrations "
            + "(\(killsByMigration.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
            + "\(killsInWriteLoop) in the write loop; "
            + "\(acknowledgedWrites) acknowledged writes verified; "
            + "write in flight at the kill: \(inFlightCommitted) found committed, \(inFlightRolledBack) found absent "
            + "(\(inFlightByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))); "
            + "\(killsLeavingMigrationsPending) kills left migrations pending, \(resumedMigrations) resumptions completed them; "
            + "reopened \(reopenedWithQueue) times with DatabaseQueue, \(reopenedWithPool) with DatabasePool; "
            + "\(completedRuns) runs completed after the crashes; \(failures.count) failures"
    }
}

/// How a round chooses its kill moment.
private enum CrashKillMoment: CustomStringConvertible {
    /// Right after the start: before or while the helper opens the file.
    case afterStart(TimeInterval)
    /// Once the named migration (any, when nil) started, or all migrations ended.
    case insideMigration(String?, TimeInterval)
    /// Once the migrations ended, in the write loop.
    case inWriteLoop(TimeInterval)

    var description: String {
        switch self {
        case .afterStart(let delay): return "\(milliseconds(delay)) ms after the start"
        case .insideMigration(let name, let delay): return "\(milliseconds(delay)) ms into migration \(name ?? "(the first to start)")"
        case .inWriteLoop(let delay): return "\(milliseconds(delay)) ms into the write loop"
        }
    }

    private func milliseconds(_ delay: TimeInterval) -> Double { (delay * 10_000).rounded() / 10 }
}

/// The rounds of one test run; failures are collected in `outcome`.
struct CrashTorture {
    let plan: CrashPlan
    let executable: URL
    let directory: TemporaryDirectory
    private(set) var outcome = CrashOutcome()
    private var random: CrashRandom
    private var reopenings = 0
    /// The migrations the helper registers, once a run has said them.
    private var knownMigrations: [String] = []
    /// How long to wait for a line of the helper before giving up: generous,
    /// since the machine is shared.
    private let lineTimeout: TimeInterval = 60

    init(plan: CrashPlan, executable: URL, directory: TemporaryDirectory) {
        self.plan = plan
        self.executable = executable
        self.directory = directory
        random = CrashRandom(seed: plan.seed)
    }

    /// The state of one database file across its rounds.
    private struct FileState {
        let path: String
        let usesQueue: Bool
        var model = CrashState()
        var registered: CrashWriterParameters?
        var recorded: [String] = []
        var pendingMigrationsLeftByKill = false

        /// The migrations not recorded yet; all of them before the first run.
        var pending: [String]? {
            registered.map { Array($0.migrations.dropFirst(recorded.count)) }
        }
    }

    mutating func run() {
        let start = Date()
        let deadline = start.addingTimeInterval(plan.timeCap)
        var fileIndex = 0
        while outcome.kills < plan.kills, Date() < deadline, outcome.failures.count < 5 {
            var file = FileState(path: directory.path("crash-\(fileIndex).sqlite"), usesQueue: fileIndex % 2 == 1)
            outcome.files += 1
            if file.usesQueue { outcome.rollbackJournalFiles += 1 }
            fileIndex += 1
            do {
                for _ in 0..<plan.roundsPerFile where outcome.kills < plan.kills && Date() < deadline {
                    try killRound(&file, label: "file \(fileIndex - 1) (\(file.usesQueue ? "DatabaseQueue, rollback journal" : "DatabasePool, WAL")), kill \(outcome.kills + 1)")
                }
                try completionRun(&file, label: "file \(fileIndex - 1), the completing run")
            } catch {
                outcome.failures.append("\(error)")
            }
            try? FileManager.default.removeItem(atPath: file.path)
            try? FileManager.default.removeItem(atPath: file.path + "-wal")
            try? FileManager.default.removeItem(atPath: file.path + "-shm")
            try? FileManager.default.removeItem(atPath: file.path + "-journal")
        }
        outcome.duration = Date().timeIntervalSince(start)
    }

    private mutating func helperArguments(_ file: FileState, extra: [String] = []) -> [String] {
        var arguments = ["crash-writer", file.path, "--seed", String(random.next() >> 1)]
        if file.usesQueue { arguments.append("--queue") }
        return arguments + extra
    }

    private mutating func chooseKillMoment(_ file: FileState) -> CrashKillMoment {
        let pending = file.pending ?? []
        let roll = random.int(in: 0...9)
        if file.pending == nil || !pending.isEmpty {
            if roll < 2 { return .afterStart(random.delay(milliseconds: 0...5)) }
            // A new file: any of the migrations the helper registers.
            let names = pending.isEmpty ? knownMigrations : pending
            let name = names.isEmpty ? nil : names[random.int(in: 0...(names.count - 1))]
            let ceilings: [Double] = [1, 10, 60]
            return .insideMigration(name, random.delay(milliseconds: 0...ceilings[random.int(in: 0...2)]))
        }
        switch roll {
        case 0: return .afterStart(random.delay(milliseconds: 0...5))
        case 1...3: return .inWriteLoop(random.delay(milliseconds: 0...20))
        default: return .inWriteLoop(random.delay(milliseconds: 20...200))
        }
    }

    /// Starts the helper, kills it at a chosen moment, checks the file.
    private mutating func killRound(_ file: inout FileState, label: String) throws {
        let moment = chooseKillMoment(file)
        let run = try CrashHelperRun(executable: executable, arguments: helperArguments(file))
        defer { run.killAndReap() }
        let label = "\(label), \(moment)"
        switch moment {
        case .afterStart(let delay):
            Thread.sleep(forTimeInterval: delay)
        case .insideMigration(let name, let delay):
            let awaited = name.map { "migration-start \($0)" }
            let seen = run.waitForLine(timeout: lineTimeout) { line in
                line == "migrated" || (awaited.map { line == $0 } ?? line.hasPrefix("migration-start "))
            }
            guard seen else {
                throw CrashSupportError(description: "\(label): the helper printed neither \(awaited ?? "migration-start") nor migrated; stderr: \(run.errorText)")
            }
            Thread.sleep(forTimeInterval: delay)
        case .inWriteLoop(let delay):
            guard run.waitForLine(timeout: lineTimeout, where: { $0 == "migrated" }) else {
                throw CrashSupportError(description: "\(label): the helper never printed migrated; stderr: \(run.errorText)")
            }
            Thread.sleep(forTimeInterval: delay)
        }
        let ending = run.killAndReap()
        guard ending == .killed else {
            throw CrashSupportError(description: "\(label): the helper \(ending) before the kill; stderr: \(run.errorText)")
        }
        outcome.kills += 1
        let log = try CrashRunLog(lines: run.receivedLines)
        if log.sawMigrated {
            outcome.killsInWriteLoop += 1
        } else if log.startedMigrations.isEmpty {
            outcome.killsAtStartup += 1
        } else {
            outcome.killsInsideMigrations += 1
            if let last = log.startedMigrations.last { outcome.killsByMigration[last, default: 0] += 1 }
        }
        try check(&file, log: log, label: label)
    }

    /// Runs the helper to completion (a few writes, then exit 0) and checks the file.
    private mutating func completionRun(_ file: inout FileState, label: String) throws {
        let run = try CrashHelperRun(executable: executable, arguments: helperArguments(file, extra: ["--writes", "12"]))
        defer { run.killAndReap() }
        let (ending, endedOnItsOwn) = run.waitForExit(timeout: 120)
        guard endedOnItsOwn, ending == .exited(0) else {
            throw CrashSupportError(description: "\(label): the helper \(endedOnItsOwn ? ending.description : "did not finish in 120 s"); stderr: \(run.errorText)")
        }
        let log = try CrashRunLog(lines: run.receivedLines)
        guard log.sawMigrated, log.inFlight == nil else {
            throw CrashSupportError(description: "\(label): the run exited 0 without printing migrated, or with a write unacknowledged")
        }
        outcome.completedRuns += 1
        try check(&file, log: log, label: label)
        if file.recorded != file.registered?.migrations {
            throw CrashSupportError(description: "\(label): migrations recorded after a complete run: \(file.recorded)")
        }
    }

    /// Reopens the file and checks it against the model plus this run's writes.
    private mutating func check(_ file: inout FileState, log: CrashRunLog, label: String) throws {
        if let journalMode = log.journalMode, journalMode != (file.usesQueue ? "delete" : "wal") {
            throw CrashSupportError(description: "\(label): the helper wrote in journal mode \(journalMode)")
        }
        if let registered = log.registered {
            if let known = file.registered, known != registered {
                throw CrashSupportError(description: "\(label): the helper changed its registered migrations")
            }
            file.registered = registered
            knownMigrations = registered.migrations
        }
        guard let parameters = file.registered else {
            // Killed before it printed anything: the file may not even exist.
            if !log.startedMigrations.isEmpty || log.sawMigrated || log.inFlight != nil || !log.acknowledged.isEmpty {
                throw CrashSupportError(description: "\(label): output without the registered line")
            }
            if FileManager.default.fileExists(atPath: file.path) {
                _ = try reopen(file, parameters: nil, label: label)
            }
            return
        }

        // The migrations started must be the next pending ones, in order.
        let pendingBefore = Array(parameters.migrations.dropFirst(file.recorded.count))
        if log.startedMigrations != Array(pendingBefore.prefix(log.startedMigrations.count)) {
            throw CrashSupportError(description: "\(label): started migrations \(log.startedMigrations) while \(pendingBefore) were pending")
        }

        guard let snapshot = try reopen(file, parameters: parameters, label: label) else { return }
        let recorded = snapshot.recordedMigrations
        if recorded != Array(parameters.migrations.prefix(recorded.count)) {
            throw CrashSupportError(description: "\(label): recorded migrations \(recorded) are not a prefix of \(parameters.migrations)")
        }
        if recorded.count < file.recorded.count {
            throw CrashSupportError(description: "\(label): recorded migrations went back from \(file.recorded) to \(recorded)")
        }
        if log.sawMigrated, recorded != parameters.migrations {
            throw CrashSupportError(description: "\(label): the helper printed migrated but only \(recorded) are recorded")
        }
        if file.pendingMigrationsLeftByKill, log.sawMigrated {
            outcome.resumedMigrations += 1
            file.pendingMigrationsLeftByKill = false
        }
        if !log.startedMigrations.isEmpty, recorded.count < parameters.migrations.count {
            outcome.killsLeavingMigrationsPending += 1
            file.pendingMigrationsLeftByKill = true
        }
        file.recorded = recorded

        // The data: the acknowledged writes, plus the write in flight entirely or not at all.
        var expected = file.model
        for operation in log.acknowledged {
            do { try expected.apply(operation) } catch {
                throw CrashSupportError(description: "\(label): the helper's writes do not apply to the model: \(error)")
            }
        }
        if snapshot.state == expected {
            if let inFlight = log.inFlight, inFlight != .checkpoint { outcome.inFlightRolledBack += 1 }
        } else if let inFlight = log.inFlight, snapshot.state == (try? applying(inFlight, to: expected)) {
            outcome.inFlightCommitted += 1
        } else {
            throw CrashSupportError(description: """
                \(label): the file is not the acknowledged writes\(log.inFlight.map { " (plus or minus \($0))" } ?? ""): \
                \(expected.differences(from: snapshot.state).joined(separator: "; "))
                """)
        }
        outcome.acknowledgedWrites += log.acknowledged.count
        if let inFlight = log.inFlight {
            let kind = inFlight.description.prefix { $0 != " " }
            outcome.inFlightByKind[String(kind), default: 0] += 1
        }
        file.model = snapshot.state

        if recorded.contains("createAccounts") {
            let expectedBalances = snapshot.state.balances(
                accountCount: parameters.accountCount, initialBalance: parameters.initialBalance)
            if snapshot.balances != expectedBalances {
                throw CrashSupportError(description: "\(label): balances \(snapshot.balances.sorted { $0.key < $1.key }) do not match the transfers (\(expectedBalances.sorted { $0.key < $1.key }))")
            }
            let total = snapshot.balances.values.reduce(0, +)
            if total != parameters.accountCount * parameters.initialBalance {
                throw CrashSupportError(description: "\(label): the balances sum to \(total)")
            }
        }
    }

    private func applying(_ operation: CrashOperation, to state: CrashState) throws -> CrashState {
        var state = state
        try state.apply(operation)
        return state
    }

    /// Opens the file with a DatabaseQueue or a DatabasePool, in turn, and
    /// reads a snapshot; checks integrity, foreign keys and the problems found.
    private mutating func reopen(_ file: FileState, parameters: CrashWriterParameters?, label: String) throws -> CrashFileSnapshot? {
        reopenings += 1
        let usesQueue = reopenings % 2 == 1
        let writer: any DatabaseWriter
        do {
            writer = usesQueue ? try DatabaseQueue(path: file.path) : try DatabasePool(path: file.path)
        } catch {
            throw CrashSupportError(description: "\(label): reopening with \(usesQueue ? "DatabaseQueue" : "DatabasePool") failed: \(error)")
        }
        defer {
            if let queue = writer as? DatabaseQueue { queue.close() }
            if let pool = writer as? DatabasePool { pool.close() }
        }
        if usesQueue { outcome.reopenedWithQueue += 1 } else { outcome.reopenedWithPool += 1 }
        let snapshot = try writer.read { db in
            try CrashFileSnapshot.read(db, parameters: parameters ?? .empty)
        }
        try snapshot.checkIntact(label)
        return parameters == nil ? nil : snapshot
    }
}

extension CrashWriterParameters {
    /// Parameters for reading a file whose helper died before saying them.
    static let empty = CrashWriterParameters(migrations: [], accountCount: 0, initialBalance: 0, historyRows: 0)

    init(migrations: [String], accountCount: Int64, initialBalance: Int64, historyRows: Int) {
        self.migrations = migrations
        self.accountCount = accountCount
        self.initialBalance = initialBalance
        self.historyRows = historyRows
    }
}
