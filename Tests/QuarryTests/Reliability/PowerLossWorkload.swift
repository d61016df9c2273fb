// Support of the power-loss tests: the crash model's writes (the schema of
// Tests/ProcessHelper/CrashWriter.swift, smaller) run in-process through the
// quarry-fault VFS, the record of what was acknowledged, and the check of
// the file that a power cut leaves.

import Foundation
import Logging
import Quarry
@testable import QuarryProcessHelper
#if canImport(Glibc)
import Glibc
#endif

/// A journal mode and a `synchronous` setting under test.
struct PowerLossSetting: Hashable, CustomStringConvertible, Sendable {
    /// WAL through a DatabasePool; a rollback journal (DELETE, TRUNCATE or
    /// PERSIST) through a DatabaseQueue.
    var journalMode: JournalMode
    /// The setting, or nil for the default configuration's.
    var synchronous: SynchronousMode?

    var usesWAL: Bool { journalMode == .wal }

    var description: String {
        let writer = usesWAL ? "WAL pool" : "rollback-journal queue (\(journalMode.rawValue))"
        return "\(writer), " + (synchronous.map { "synchronous=\($0.rawValue)" } ?? "default configuration")
    }

    static let walFull = PowerLossSetting(journalMode: .wal, synchronous: .full)
    static let walNormal = PowerLossSetting(journalMode: .wal, synchronous: .normal)
    static let rollbackFull = PowerLossSetting(journalMode: .delete, synchronous: .full)
    static let rollbackExtra = PowerLossSetting(journalMode: .delete, synchronous: .extra)
    static let rollbackNormal = PowerLossSetting(journalMode: .delete, synchronous: .normal)
    /// The default configuration (nothing but the journal mode asked), in
    /// each journal mode Quarry uses by default or on request.
    static let defaultDelete = PowerLossSetting(journalMode: .delete, synchronous: nil)
    static let defaultTruncate = PowerLossSetting(journalMode: .truncate, synchronous: nil)
    static let defaultPersist = PowerLossSetting(journalMode: .persist, synchronous: nil)
    static let defaultWAL = PowerLossSetting(journalMode: .wal, synchronous: nil)
    static let defaults: [PowerLossSetting] = [.defaultDelete, .defaultTruncate, .defaultPersist, .defaultWAL]
    static let all: [PowerLossSetting] = [.walFull, .walNormal, .rollbackFull, .rollbackExtra, .rollbackNormal] + defaults

    /// Whether SQLite promises an intact file after a power cut: not with a
    /// rollback journal and NORMAL (the journal is synced once, not before
    /// its header is rewritten), whose damage is counted instead.
    var promisesIntegrity: Bool { usesWAL || synchronous != .normal }

    /// Whether no acknowledged write may be lost: WAL with FULL, a rollback
    /// journal with EXTRA, and the default configuration in every mode.
    var promisesDurability: Bool { self == .walFull || self == .rollbackExtra || synchronous == nil }

    /// The configuration of the workload's writer.
    func configuration() -> Configuration {
        var configuration = Configuration()
        if let synchronous { configuration.synchronous = synchronous }
        if !usesWAL { configuration.journalMode = journalMode }
        return configuration
    }
}

/// The parameters of the in-process workload: those of the crash writer, smaller.
let powerLossParameters = CrashWriterParameters(
    migrations: ["createAccounts", "createEntries", "createLedger", "backfillHistory", "indexLedger", "createBulk"],
    accountCount: 8, initialBalance: 1000, historyRows: 1500)
/// Rows of a bulk insert: with a 16-page cache, they spill to the file or WAL before the commit.
private let powerLossBulkRows = 400
private let powerLossBulkPayloadLength = 200

/// One acknowledged step of a round: a migration's commit, or a write.
enum PowerLossEvent: CustomStringConvertible {
    case migration(String)
    case write(CrashOperation)

    var description: String {
        switch self {
        case .migration(let name): return "migration \(name)"
        case .write(let operation): return "\(operation)"
        }
    }
}

/// What one round did before the power went out.
struct PowerLossRoundLog {
    var acknowledged: [PowerLossEvent] = []
    var inFlight: PowerLossEvent?
}

/// The migrations of the crash model (the crash writer's,
/// Tests/ProcessHelper/CrashWriter.swift), recording in `log` which committed.
private func powerLossMigrator(_ log: UncheckedBox<PowerLossRoundLog>) -> DatabaseMigrator {
    let parameters = powerLossParameters
    var migrator = crashMigrator(
        accountCount: parameters.accountCount, initialBalance: parameters.initialBalance, historyRows: parameters.historyRows
    ) { name in
        // A migration starts once the previous one committed.
        if let inFlight = log.value.inFlight { log.value.acknowledged.append(inFlight) }
        log.value.inFlight = .migration(name)
    }
    migrator.logger = Logger(label: "power-loss", factory: { _ in SwiftLogNoOpLogHandler() })
    return migrator
}

/// Makes the directory entries of `directory` durable (fsync of the directory).
func syncDirectory(_ directory: String) {
    let descriptor = open(directory, O_RDONLY)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
}

/// One round: opens the file through the VFS (the cut is armed by the
/// caller), migrates, writes until the power goes out or `writes` are done.
struct PowerLossRound {
    let path: String
    let setting: PowerLossSetting
    var random: CrashRandom
    let writes: Int
    /// The next identifiers, from the model of the file.
    var nextEntryID: Int64
    var nextBatchID: Int64
    var nextTransferID: Int64
    var nextBulkID: Int64
    /// The entries' revisions and the batches, from the model.
    var state: CrashState

    /// Runs the round; returns its log. Errors after the cut end the round;
    /// an error before it is rethrown (the workload itself failed).
    mutating func run() throws -> PowerLossRoundLog {
        let log = UncheckedBox(PowerLossRoundLog())
        var configuration = setting.configuration()
        configuration.acceptsURIFilenames = true
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = 16") }
        configuration.busyTimeout = .seconds(2)
        let uri = FaultVFS.uri(path)
        var writer: (any DatabaseWriter)?
        do {
            let opened: any DatabaseWriter = setting.usesWAL
                ? try DatabasePool(path: uri, configuration: configuration)
                : try DatabaseQueue(path: uri, configuration: configuration)
            writer = opened
            try powerLossMigrator(log).migrate(opened)
            if let inFlight = log.value.inFlight { log.value.acknowledged.append(inFlight) }
            log.value.inFlight = nil
            if let pool = opened as? DatabasePool {
                // As an application would after migrating: a checkpoint, which
                // makes the migrations durable under synchronous = NORMAL too.
                log.value.inFlight = .write(.checkpoint)
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                log.value.acknowledged.append(.write(.checkpoint))
                log.value.inFlight = nil
            }
            for _ in 0..<writes {
                try step(opened, log)
            }
        } catch {
            guard FaultVFS.powerIsCut else {
                close(writer)
                throw CrashSupportError(description: "\(setting): the workload failed before the power cut: \(error)")
            }
        }
        close(writer)
        return log.value
    }

    private func close(_ writer: (any DatabaseWriter)?) {
        if let pool = writer as? DatabasePool { pool.close() }
        if let queue = writer as? DatabaseQueue { queue.close() }
    }

    private mutating func payload() -> String {
        let length = random.int(in: 1...2500)
        let letters = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length { scalars.append(letters[Int(random.next() % 26)]) }
        return String(scalars)
    }

    /// Announces `operation`, runs `body` in a write transaction, acknowledges it.
    private mutating func write(
        _ writer: any DatabaseWriter, _ operation: CrashOperation, _ log: UncheckedBox<PowerLossRoundLog>,
        _ body: (Database) throws -> Void
    ) throws {
        log.value.inFlight = .write(operation)
        try writer.write(body)
        log.value.acknowledged.append(.write(operation))
        log.value.inFlight = nil
        try state.apply(operation)
    }

    private mutating func step(_ writer: any DatabaseWriter, _ log: UncheckedBox<PowerLossRoundLog>) throws {
        switch random.int(in: 0...99) {
        case 0..<30:
            let text = payload()
            let id = nextEntryID
            try write(writer, .entry(id: id, length: text.utf8.count, hash: crashHash(text)), log) { db in
                try db.execute(sql: "INSERT INTO entry (id, payload, revision) VALUES (?, ?, 0)", arguments: [id, text])
            }
            nextEntryID += 1
        case 30..<45 where !state.entries.isEmpty:
            let ids = state.entries.keys.sorted()
            let id = ids[random.int(in: 0...(ids.count - 1))]
            let revision = (state.entries[id]?.revision ?? 0) + 1
            let text = payload()
            try write(writer, .revise(id: id, revision: revision, length: text.utf8.count, hash: crashHash(text)), log) { db in
                try db.execute(sql: "UPDATE entry SET payload = ?, revision = ? WHERE id = ?", arguments: [text, revision, id])
                guard db.changesCount == 1 else { throw CrashSupportError(description: "entry \(id) is missing") }
            }
        case 45..<67:
            let id = nextBatchID
            let amounts = (0..<random.int(in: 2...12)).map { _ in Int64(random.int(in: 0...1000)) - 500 }
            try write(writer, .batch(id: id, amounts: amounts), log) { db in
                try db.execute(
                    sql: "INSERT INTO batch (id, rowCount, memo) VALUES (?, ?, ?)",
                    arguments: [id, amounts.count, "batch \(id) of \(amounts.count) rows"])
                for (seq, amount) in amounts.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO ledger (batchID, seq, amount) VALUES (?, ?, ?)", arguments: [id, seq, amount])
                }
            }
            nextBatchID += 1
        case 67..<73 where !state.batches.isEmpty:
            let ids = state.batches.keys.sorted()
            let id = ids[random.int(in: 0...(ids.count - 1))]
            try write(writer, .unbatch(id: id), log) { db in
                try db.execute(sql: "DELETE FROM ledger WHERE batchID = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM batch WHERE id = ?", arguments: [id])
            }
        case 73..<91:
            let id = nextTransferID
            let from = Int64(random.int(in: 1...8))
            var to = Int64(random.int(in: 1...7))
            if to >= from { to += 1 }
            let amount = Int64(random.int(in: 1...100))
            try write(writer, .transfer(id: id, from: from, to: to, amount: amount), log) { db in
                try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, from])
                try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, to])
                try db.execute(
                    sql: "INSERT INTO transfer (id, fromID, toID, amount) VALUES (?, ?, ?, ?)", arguments: [id, from, to, amount])
            }
            nextTransferID += 1
        case 91..<95:
            let id = nextBulkID
            let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(id % 26)))
            let text = String(repeating: letter, count: powerLossBulkPayloadLength)
            try write(writer, .bulk(id: id, count: powerLossBulkRows, length: text.utf8.count), log) { db in
                for _ in 0..<powerLossBulkRows {
                    try db.execute(sql: "INSERT INTO bulk (bulkID, payload) VALUES (?, ?)", arguments: [id, text])
                }
            }
            nextBulkID += 1
        default:
            if let pool = writer as? DatabasePool {
                log.value.inFlight = .write(.checkpoint)
                try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
                log.value.acknowledged.append(.write(.checkpoint))
                log.value.inFlight = nil
            } else {
                let id = nextEntryID
                try write(writer, .entry(id: id, length: 3, hash: crashHash("abc")), log) { db in
                    try db.execute(sql: "INSERT INTO entry (id, payload, revision) VALUES (?, 'abc', 0)", arguments: [id])
                }
                nextEntryID += 1
            }
        }
    }
}

/// What the check of one cut found: how many acknowledged steps the file kept.
struct PowerLossVerdict {
    /// Acknowledged data writes and migrations that the file lost (checkpoints not counted).
    var lostWrites: Int
    var checkedWrites: Int
    var inFlightCommitted: Bool
    /// How many of the acknowledged steps (checkpoints included) the file holds.
    var keptSteps: Int
    var snapshot: CrashFileSnapshot
    /// Whether migrations that an earlier cut undid came back (WAL, NORMAL;
    /// see `verifyPowerLoss`).
    var migrationsCameBack = false
}

/// Reopens the file with the plain VFS and finds the longest prefix of the
/// acknowledged steps that it holds; throws when it holds none (a partial
/// or reordered state) or fails a check.
///
/// - parameter earlierMigrations: the migrations that earlier rounds of the
///   file started. With WAL and `synchronous = NORMAL`, a migration whose
///   commit a cut undid can come back: its WAL frames survived behind one
///   that did not, and when the next round writes that frame again with the
///   same bytes (migrations are deterministic), the checksum chain is whole
///   again and recovery replays the frames that follow. The file then holds
///   migrations beyond the log, each one that an earlier round ran.
func verifyPowerLoss(
    path: String, setting: PowerLossSetting, model: CrashState, recorded: [String], log: PowerLossRoundLog, label: String,
    earlierMigrations: Set<String> = []
) throws -> PowerLossVerdict {
    var configuration = Configuration()
    if !setting.usesWAL { configuration.journalMode = setting.journalMode }
    let writer: any DatabaseWriter = setting.usesWAL
        ? try DatabasePool(path: path, configuration: configuration)
        : try DatabaseQueue(path: path, configuration: configuration)
    defer {
        if let pool = writer as? DatabasePool { pool.close() }
        if let queue = writer as? DatabaseQueue { queue.close() }
    }
    let snapshot = try writer.read { db in try CrashFileSnapshot.read(db, parameters: powerLossParameters) }
    try snapshot.checkIntact(label)
    let total = snapshot.balances.values.reduce(0, +)
    if !snapshot.balances.isEmpty, total != powerLossParameters.accountCount * powerLossParameters.initialBalance {
        throw CrashSupportError(description: "\(label): the balances sum to \(total)")
    }
    if !snapshot.balances.isEmpty {
        let expected = snapshot.state.balances(
            accountCount: powerLossParameters.accountCount, initialBalance: powerLossParameters.initialBalance)
        if snapshot.balances != expected {
            throw CrashSupportError(description: "\(label): the balances do not match the transfers")
        }
    }

    // The states after each prefix of the acknowledged steps, and after all
    // of them plus the step in flight.
    var candidates: [(state: CrashState, recorded: [String], kept: Int, inFlight: Bool)] = []
    var state = model
    var migrations = recorded
    candidates.append((state, migrations, 0, false))
    func applying(_ event: PowerLossEvent, _ state: inout CrashState, _ migrations: inout [String]) throws {
        switch event {
        case .migration(let name): migrations.append(name)
        case .write(let operation): try state.apply(operation)
        }
    }
    for (index, event) in log.acknowledged.enumerated() {
        try applying(event, &state, &migrations)
        candidates.append((state, migrations, index + 1, false))
    }
    if let inFlight = log.inFlight {
        try applying(inFlight, &state, &migrations)
        candidates.append((state, migrations, log.acknowledged.count, true))
    }
    var migrationsCameBack = false
    var found = candidates.last(where: { $0.state == snapshot.state && $0.recorded == snapshot.recordedMigrations })
    if found == nil, setting == .walNormal {
        found = candidates.last(where: { candidate in
            candidate.state == snapshot.state
                && snapshot.recordedMigrations.starts(with: candidate.recorded)
                && Set(snapshot.recordedMigrations.dropFirst(candidate.recorded.count)).isSubset(of: earlierMigrations)
        })
        migrationsCameBack = found != nil
    }
    guard let match = found else {
        let expected = candidates[candidates.count - (log.inFlight == nil ? 1 : 2)]
        throw CrashSupportError(description: """
            \(label): the file is no prefix of the acknowledged writes (migrations \(snapshot.recordedMigrations), \
            expected \(expected.recorded)): \(expected.state.differences(from: snapshot.state).joined(separator: "; "))
            """)
    }
    let lost = log.acknowledged[match.kept...].filter {
        if case .write(.checkpoint) = $0 { return false }
        return true
    }.count
    let checked = log.acknowledged.filter {
        if case .write(.checkpoint) = $0 { return false }
        return true
    }.count
    return PowerLossVerdict(
        lostWrites: lost, checkedWrites: checked, inFlightCommitted: match.inFlight, keptSteps: match.kept, snapshot: snapshot,
        migrationsCameBack: migrationsCameBack)
}
