// Support of the crash-safety tests: the writes the crash-writer helper
// announces (`begin …`) and acknowledges (`ack …`), the state they must leave
// in the database, and the state actually read back from the file.

import Foundation
import Quarry

/// One write of the crash writer, parsed from the text after `begin ` or `ack `
/// (see Tests/ProcessHelper/CrashWriter.swift for the protocol).
enum CrashOperation: Equatable, CustomStringConvertible {
    case entry(id: Int64, length: Int, hash: String)
    case revise(id: Int64, revision: Int64, length: Int, hash: String)
    case batch(id: Int64, amounts: [Int64])
    case unbatch(id: Int64)
    case transfer(id: Int64, from: Int64, to: Int64, amount: Int64)
    case bulk(id: Int64, count: Int, length: Int)
    case checkpoint

    init(_ text: String) throws {
        let words = text.split(separator: " ").map(String.init)
        func integer(_ index: Int) throws -> Int64 {
            guard index < words.count, let value = Int64(words[index]) else {
                throw CrashSupportError(description: "malformed operation: \(text)")
            }
            return value
        }
        func word(_ index: Int) throws -> String {
            guard index < words.count else { throw CrashSupportError(description: "malformed operation: \(text)") }
            return words[index]
        }
        switch words.first {
        case "entry" where words.count == 4:
            self = .entry(id: try integer(1), length: Int(try integer(2)), hash: try word(3))
        case "revise" where words.count == 5:
            self = .revise(id: try integer(1), revision: try integer(2), length: Int(try integer(3)), hash: try word(4))
        case "batch" where words.count == 3:
            let amounts = try word(2).split(separator: ",").map { part -> Int64 in
                guard let amount = Int64(part) else { throw CrashSupportError(description: "malformed operation: \(text)") }
                return amount
            }
            self = .batch(id: try integer(1), amounts: amounts)
        case "unbatch" where words.count == 2:
            self = .unbatch(id: try integer(1))
        case "transfer" where words.count == 5:
            self = .transfer(id: try integer(1), from: try integer(2), to: try integer(3), amount: try integer(4))
        case "bulk" where words.count == 4:
            self = .bulk(id: try integer(1), count: Int(try integer(2)), length: Int(try integer(3)))
        case "checkpoint" where words.count == 1:
            self = .checkpoint
        default:
            throw CrashSupportError(description: "unknown operation: \(text)")
        }
    }

    var description: String {
        switch self {
        case .entry(let id, let length, let hash): return "entry \(id) \(length) \(hash)"
        case .revise(let id, let revision, let length, let hash): return "revise \(id) \(revision) \(length) \(hash)"
        case .batch(let id, let amounts): return "batch \(id) \(amounts.map(String.init).joined(separator: ","))"
        case .unbatch(let id): return "unbatch \(id)"
        case .transfer(let id, let from, let to, let amount): return "transfer \(id) \(from) \(to) \(amount)"
        case .bulk(let id, let count, let length): return "bulk \(id) \(count) \(length)"
        case .checkpoint: return "checkpoint"
        }
    }
}

/// An entry as the tests compare it: its revision and the length and hash of its payload.
struct CrashEntryState: Equatable, CustomStringConvertible {
    var revision: Int64
    var length: Int
    var hash: String

    var description: String { "revision \(revision), \(length) bytes, hash \(hash)" }
}

/// A transfer between two accounts.
struct CrashTransferState: Equatable, CustomStringConvertible {
    var from: Int64
    var to: Int64
    var amount: Int64

    var description: String { "\(amount) from \(from) to \(to)" }
}

/// The rows of one bulk insert: how many, and the length of their payloads.
struct CrashBulkState: Equatable, CustomStringConvertible {
    var count: Int
    var length: Int

    var description: String { "\(count) rows of \(length) bytes" }
}

/// The data the writes leave: expected from the acknowledged writes, or read from the file.
struct CrashState: Equatable {
    var entries: [Int64: CrashEntryState] = [:]
    /// The ledger amounts of each batch, in `seq` order.
    var batches: [Int64: [Int64]] = [:]
    var transfers: [Int64: CrashTransferState] = [:]
    var bulks: [Int64: CrashBulkState] = [:]

    /// Applies one write; throws when the write cannot apply to this state,
    /// which means the helper and the model disagree.
    mutating func apply(_ operation: CrashOperation) throws {
        switch operation {
        case .entry(let id, let length, let hash):
            guard entries[id] == nil else { throw CrashSupportError(description: "\(operation): entry \(id) exists already") }
            entries[id] = CrashEntryState(revision: 0, length: length, hash: hash)
        case .revise(let id, let revision, let length, let hash):
            guard let old = entries[id], old.revision == revision - 1 else {
                throw CrashSupportError(description: "\(operation): entry \(id) is \(entries[id].map(String.init(describing:)) ?? "missing")")
            }
            entries[id] = CrashEntryState(revision: revision, length: length, hash: hash)
        case .batch(let id, let amounts):
            guard batches[id] == nil else { throw CrashSupportError(description: "\(operation): batch \(id) exists already") }
            batches[id] = amounts
        case .unbatch(let id):
            guard batches.removeValue(forKey: id) != nil else {
                throw CrashSupportError(description: "\(operation): batch \(id) is missing")
            }
        case .transfer(let id, let from, let to, let amount):
            guard transfers[id] == nil else { throw CrashSupportError(description: "\(operation): transfer \(id) exists already") }
            transfers[id] = CrashTransferState(from: from, to: to, amount: amount)
        case .bulk(let id, let count, let length):
            guard bulks[id] == nil else { throw CrashSupportError(description: "\(operation): bulk \(id) exists already") }
            bulks[id] = CrashBulkState(count: count, length: length)
        case .checkpoint:
            break
        }
    }

    /// The account balances these transfers leave, from `initialBalance` each.
    func balances(accountCount: Int64, initialBalance: Int64) -> [Int64: Int64] {
        var balances: [Int64: Int64] = [:]
        for id in 1...max(1, accountCount) { balances[id] = initialBalance }
        for transfer in transfers.values {
            balances[transfer.from, default: 0] -= transfer.amount
            balances[transfer.to, default: 0] += transfer.amount
        }
        return balances
    }

    /// Up to `limit` human-readable differences from `other` (the file).
    func differences(from other: CrashState, limit: Int = 8) -> [String] {
        var result: [String] = []
        func compare<Value: Equatable>(_ kind: String, _ mine: [Int64: Value], _ theirs: [Int64: Value]) {
            for id in Set(mine.keys).union(theirs.keys).sorted() where mine[id] != theirs[id] {
                let expected = mine[id].map { "\($0)" } ?? "absent"
                let found = theirs[id].map { "\($0)" } ?? "absent"
                result.append("\(kind) \(id): expected \(expected), found \(found)")
            }
        }
        compare("entry", entries, other.entries)
        compare("batch", batches, other.batches)
        compare("transfer", transfers, other.transfers)
        compare("bulk", bulks, other.bulks)
        return Array(result.prefix(limit)) + (result.count > limit ? ["… and \(result.count - limit) more"] : [])
    }
}

/// FNV-1a, 64 bits, of the UTF-8 bytes of `text`, in hex: as the helper prints it.
func crashHash(_ text: String) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return String(hash, radix: 16)
}

/// What one reopening of the file found.
struct CrashFileSnapshot {
    var integrityCheck: [String]
    var foreignKeyViolationCount: Int
    /// Names in `quarry_migrations`, in the order they were recorded.
    var recordedMigrations: [String]
    /// Problems found in the schema or the data that a state comparison
    /// would not name clearly (a batch missing some rows, a migration half applied…).
    var problems: [String]
    var state: CrashState
    var balances: [Int64: Int64]

    /// Reads everything the crash test checks, in one read transaction.
    static func read(_ db: Database, parameters: CrashWriterParameters) throws -> CrashFileSnapshot {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        let violations = try db.foreignKeyViolations().count
        let recorded = try db.tableExists(DatabaseMigrator.migrationsTableName)
            ? try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY rowid")
            : []
        var problems: [String] = []
        let applied = Set(recorded)

        // The migrator's own view agrees with the table.
        var migrator = DatabaseMigrator()
        for name in parameters.migrations { migrator.registerMigration(name) { _ in } }
        let completed = try migrator.completedMigrations(db)
        let appliedByMigrator = try migrator.appliedMigrations(db)
        if completed != recorded || appliedByMigrator != completed {
            problems.append("the migrator sees \(completed) completed while \(recorded) are recorded")
        }
        if try migrator.hasBeenSuperseded(db) {
            problems.append("the migrator sees unknown migrations in \(recorded)")
        }

        // Each migration's effects are all there, or none of them.
        func expectPresence(_ what: String, _ present: Bool, migration: String) {
            if present != applied.contains(migration) {
                problems.append("\(what) is \(present ? "present" : "absent") but migration \(migration) is \(applied.contains(migration) ? "recorded" : "not recorded")")
            }
        }
        let hasAccount = try db.tableExists("account")
        expectPresence("table account", hasAccount, migration: "createAccounts")
        let hasEntry = try db.tableExists("entry")
        expectPresence("table entry", hasEntry, migration: "createEntries")
        let hasLedger = try db.tableExists("batch") && db.tableExists("ledger") && db.tableExists("transfer")
        for table in ["batch", "ledger", "transfer"] {
            expectPresence("table \(table)", try db.tableExists(table), migration: "createLedger")
        }
        let hasHistory = try db.tableExists("history")
        expectPresence("table history", hasHistory, migration: "backfillHistory")
        expectPresence("index history_on_account", try db.indexExists("history_on_account"), migration: "backfillHistory")
        expectPresence("index ledger_on_batch", try db.indexExists("ledger_on_batch"), migration: "indexLedger")
        let hasBulk = try db.tableExists("bulk")
        expectPresence("table bulk", hasBulk, migration: "createBulk")
        if hasLedger {
            let hasCheckedAt = try db.columns(in: "transfer").contains { $0.name == "checkedAt" }
            expectPresence("column transfer.checkedAt", hasCheckedAt, migration: "indexLedger")
        }
        if hasHistory {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM history") ?? -1
            if count != parameters.historyRows {
                problems.append("history has \(count) rows instead of \(parameters.historyRows): a partial backfill")
            }
        }

        var state = CrashState()
        if hasEntry {
            for row in try Row.fetchAll(db, sql: "SELECT id, payload, revision FROM entry") {
                let payload: String = try row["payload"]
                state.entries[try row["id"]] = CrashEntryState(
                    revision: try row["revision"], length: payload.utf8.count, hash: crashHash(payload))
            }
        }
        if hasLedger {
            var declaredCounts: [Int64: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, rowCount FROM batch") {
                let id: Int64 = try row["id"]
                declaredCounts[id] = try row["rowCount"]
                state.batches[id] = []
            }
            for row in try Row.fetchAll(db, sql: "SELECT batchID, amount FROM ledger ORDER BY batchID, seq") {
                let batchID: Int64 = try row["batchID"]
                if state.batches[batchID] == nil {
                    problems.append("ledger rows of batch \(batchID) exist without their batch row")
                }
                state.batches[batchID, default: []].append(try row["amount"])
            }
            for (id, declared) in declaredCounts where state.batches[id]?.count != declared {
                problems.append("batch \(id) declares \(declared) ledger rows but has \(state.batches[id]?.count ?? 0): a partial transaction")
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, fromID, toID, amount FROM transfer") {
                state.transfers[try row["id"]] = CrashTransferState(
                    from: try row["fromID"], to: try row["toID"], amount: try row["amount"])
            }
        }
        if hasBulk {
            let sql = "SELECT bulkID, count(*), min(length(payload)), max(length(payload)) FROM bulk GROUP BY bulkID"
            for row in try Row.fetchAll(db, sql: sql) {
                let id: Int64 = try row[0]
                let shortest: Int = try row[2]
                let longest: Int = try row[3]
                if shortest != longest {
                    problems.append("bulk \(id) has payloads of \(shortest) to \(longest) bytes")
                }
                state.bulks[id] = CrashBulkState(count: try row[1], length: longest)
            }
        }
        var balances: [Int64: Int64] = [:]
        if hasAccount {
            for row in try Row.fetchAll(db, sql: "SELECT id, balance FROM account") {
                balances[try row["id"]] = try row["balance"]
            }
        }
        return CrashFileSnapshot(
            integrityCheck: integrity, foreignKeyViolationCount: violations, recordedMigrations: recorded,
            problems: problems, state: state, balances: balances)
    }
}

/// What the helper announces on its `registered` line.
struct CrashWriterParameters: Equatable {
    var migrations: [String]
    var accountCount: Int64
    var initialBalance: Int64
    var historyRows: Int

    /// Parses `registered NAME,NAME accounts=8 balance=1000 history=40000`.
    init(line: String) throws {
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 5, words[0] == "registered" else {
            throw CrashSupportError(description: "malformed registered line: \(line)")
        }
        migrations = words[1].split(separator: ",").map(String.init)
        var values: [String: Int64] = [:]
        for word in words[2...] {
            let parts = word.split(separator: "=")
            guard parts.count == 2, let value = Int64(parts[1]) else {
                throw CrashSupportError(description: "malformed registered line: \(line)")
            }
            values[String(parts[0])] = value
        }
        guard let accounts = values["accounts"], let balance = values["balance"], let history = values["history"] else {
            throw CrashSupportError(description: "malformed registered line: \(line)")
        }
        accountCount = accounts
        initialBalance = balance
        historyRows = Int(history)
    }
}

/// The writes of one helper run, from its output.
struct CrashRunLog {
    /// The writes acknowledged, in order.
    var acknowledged: [CrashOperation] = []
    /// The write announced but not acknowledged when the helper died: it
    /// may or may not have committed, but never partly.
    var inFlight: CrashOperation?
    /// The migrations that started, in order.
    var startedMigrations: [String] = []
    var sawMigrated = false
    var registered: CrashWriterParameters?
    /// The journal mode the helper found after opening the file.
    var journalMode: String?

    /// Parses the helper's lines; throws when they break the protocol (an
    /// ack without its begin, two begins in a row…).
    init(lines: [String]) throws {
        for line in lines {
            if line.hasPrefix("begin ") {
                if let inFlight {
                    throw CrashSupportError(description: "begin of \(line.dropFirst(6)) while \(inFlight) was not acknowledged")
                }
                inFlight = try CrashOperation(String(line.dropFirst(6)))
            } else if line.hasPrefix("ack ") {
                let operation = try CrashOperation(String(line.dropFirst(4)))
                guard operation == inFlight else {
                    throw CrashSupportError(description: "ack of \(operation) while the write in flight is \(inFlight.map(String.init(describing:)) ?? "none")")
                }
                acknowledged.append(operation)
                inFlight = nil
            } else if line.hasPrefix("migration-start ") {
                startedMigrations.append(String(line.dropFirst(16)))
            } else if line.hasPrefix("journal ") {
                journalMode = String(line.dropFirst(8))
            } else if line == "migrated" {
                sawMigrated = true
            } else if line.hasPrefix("registered ") {
                registered = try CrashWriterParameters(line: line)
            } else {
                throw CrashSupportError(description: "unexpected line from the helper: \(line)")
            }
        }
    }
}

extension CrashFileSnapshot {
    /// Throws unless the file is intact: `integrity_check` is `ok`, foreign
    /// keys hold, and no migration or batch is partial. `label` names the
    /// file and the run in the error.
    func checkIntact(_ label: String) throws {
        if integrityCheck != ["ok"] {
            throw CrashSupportError(description: "\(label): integrity_check says \(integrityCheck.prefix(5))")
        }
        if foreignKeyViolationCount != 0 {
            throw CrashSupportError(description: "\(label): \(foreignKeyViolationCount) foreign key violations")
        }
        if !problems.isEmpty {
            throw CrashSupportError(description: "\(label): \(problems.joined(separator: "; "))")
        }
    }
}
