// The crash-writer mode of the process helper: migrates a database, then
// writes records in a loop and prints every write before it starts and after
// it is acknowledged, so that a test can kill it with SIGKILL at any moment and
// check the file against what was acknowledged (Tests/QuarryTests/Reliability).
//
//     QuarryProcessHelper crash-writer PATH [--seed N] [--queue] [--writes N] [--max-seconds S]
//
// --queue writes through a DatabaseQueue in rollback-journal mode (DELETE)
// instead of a DatabasePool (WAL); --writes stops (exit 0) after N writes;
// --max-seconds (default 120) stops the loop even if nobody kills it, so that
// a lost helper never runs forever.
//
// Output protocol, one line per event, each written with one write(2) on
// unbuffered stdout (so every line the test reads was printed before the kill):
//
//     registered NAME,NAME,... accounts=8 balance=1000 history=40000
//     journal MODE                  (the journal mode of the open file: wal or delete)
//     migration-start NAME          (inside the migration's transaction)
//     migrated                      (after DatabaseMigrator.migrate returned)
//     begin OPERATION               (before the write transaction commits)
//     ack OPERATION                 (after the write returned: committed)
//
// OPERATION is one of
//
//     entry ID LENGTH HASH           insert an entry (revision 0)
//     revise ID REVISION LENGTH HASH update an entry's payload
//     batch ID A1,A2,...             insert a batch row and one ledger row per amount
//     unbatch ID                     delete a batch and its ledger rows
//     transfer ID FROM TO AMOUNT     move AMOUNT between two accounts, record the transfer
//     bulk ID COUNT LENGTH           insert COUNT rows of LENGTH-byte payloads in one
//                                    transaction, larger than SQLite's page cache, so
//                                    that pages spill to the file before the commit
//     checkpoint                     PRAGMA wal_checkpoint(TRUNCATE) (pool only)
//
// HASH is the FNV-1a 64-bit hash of the payload's UTF-8 bytes, in hex.

import Foundation
import Quarry

// MARK: - Records

struct CrashAccount: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "account"
    var id: Int64
    var name: String
    var balance: Int64
}

struct CrashEntry: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "entry"
    var id: Int64
    var payload: String
    var revision: Int64
}

struct CrashBatch: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "batch"
    var id: Int64
    var rowCount: Int64
    var memo: String
}

struct CrashLedgerRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "ledger"
    var id: Int64?
    var batchID: Int64
    var seq: Int64
    var amount: Int64
}

struct CrashBulkRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "bulk"
    var id: Int64?
    var bulkID: Int64
    var payload: String
}

struct CrashTransfer: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "transfer"
    var id: Int64
    var fromID: Int64
    var toID: Int64
    var amount: Int64
}

// MARK: - Parameters shared with the test through the "registered" line

let crashAccountCount: Int64 = 8
let crashInitialBalance: Int64 = 1000
let crashHistoryRows = 40_000
/// 12,000 rows of 200 bytes: about 2.6 MB, more than the default 2 MB page cache.
private let crashBulkRows: Int64 = 12_000
private let crashBulkPayloadLength = 200

/// An error of the crash writer, printed on stderr before it exits with status 1.
struct CrashWriterError: Error, CustomStringConvertible {
    let description: String
}

/// A small deterministic random generator (SplitMix64), so that a seed replays a run.
struct CrashWriterRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`.
    mutating func int(in range: ClosedRange<Int64>) -> Int64 {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        return range.lowerBound + Int64(bitPattern: width == 0 ? next() : next() % width)
    }
}

/// Writes one line on stdout with a single write(2): never buffered.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// FNV-1a, 64 bits, of the UTF-8 bytes of `text`, in hex.
private func crashHash(_ text: String) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return String(hash, radix: 16)
}

// MARK: - Migrations

/// The migrations of the crash model: the crash writer's (which prints
/// `migration-start NAME` first, inside each migration's transaction, so that
/// the test can aim a kill at it), and the power-loss runs' (in-process,
/// `@testable import QuarryProcessHelper`), which record in `started` which
/// migration runs, with fewer rows.
func crashMigrator(
    accountCount: Int64 = crashAccountCount, initialBalance: Int64 = crashInitialBalance,
    historyRows: Int = crashHistoryRows,
    started: @escaping @Sendable (String) -> Void = { say("migration-start \($0)") }
) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("createAccounts") { db in
        started("createAccounts")
        try db.create(table: "account") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text).notNull()
            t.column("balance", .integer).notNull()
        }
        for id in 1...accountCount {
            _ = try CrashAccount(id: id, name: "account \(id)", balance: initialBalance).inserted(db)
        }
    }
    migrator.registerMigration("createEntries") { db in
        started("createEntries")
        try db.create(table: "entry") { t in
            t.primaryKey("id", .integer)
            t.column("payload", .text).notNull()
            t.column("revision", .integer).notNull()
        }
    }
    migrator.registerMigration("createLedger") { db in
        started("createLedger")
        try db.create(table: "batch") { t in
            t.primaryKey("id", .integer)
            t.column("rowCount", .integer).notNull()
            t.column("memo", .text).notNull()
        }
        try db.create(table: "ledger") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("batchID", .integer).notNull().references("batch")
            t.column("seq", .integer).notNull()
            t.column("amount", .integer).notNull()
        }
        try db.create(table: "transfer") { t in
            t.primaryKey("id", .integer)
            t.column("fromID", .integer).notNull().references("account")
            t.column("toID", .integer).notNull().references("account")
            t.column("amount", .integer).notNull()
        }
    }
    // The slow one: tens of thousands of rows and an index, so that kills land inside it.
    migrator.registerMigration("backfillHistory") { db in
        started("backfillHistory")
        try db.create(table: "history") { t in
            t.primaryKey("id", .integer)
            t.column("accountID", .integer).notNull()
            t.column("amount", .integer).notNull()
            t.column("note", .text).notNull()
        }
        try db.execute(
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO history (id, accountID, amount, note)
                SELECT i, i % ? + 1, i % 97, printf('history row %d of the backfill', i) FROM n
                """,
            arguments: [historyRows, accountCount])
        try db.create(index: "history_on_account", on: "history", columns: ["accountID", "amount"])
    }
    // Several schema changes in one migration: all of them or none.
    migrator.registerMigration("indexLedger") { db in
        started("indexLedger")
        try db.create(index: "ledger_on_batch", on: "ledger", columns: ["batchID", "seq"])
        try db.alter(table: "transfer") { t in t.add(column: "checkedAt", .text) }
    }
    migrator.registerMigration("createBulk") { db in
        started("createBulk")
        try db.create(table: "bulk") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("bulkID", .integer).notNull().indexed()
            t.column("payload", .text).notNull()
        }
    }
    return migrator
}

// MARK: - The writer

private enum CrashWriterTarget {
    case pool(DatabasePool)
    case queue(DatabaseQueue)

    var writer: any DatabaseWriter {
        switch self {
        case .pool(let pool): return pool
        case .queue(let queue): return queue
        }
    }
}

private struct CrashWriterOptions {
    var path: String
    var seed: UInt64 = 1
    var usesQueue = false
    var maximumWrites = Int.max
    var maximumSeconds = 120.0

    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        guard let path = remaining.popFirst(), !path.hasPrefix("--") else {
            throw CrashWriterError(description: "missing database path")
        }
        self.path = path
        while let option = remaining.popFirst() {
            func value() throws -> String {
                guard let value = remaining.popFirst() else {
                    throw CrashWriterError(description: "\(option) needs a value")
                }
                return value
            }
            switch option {
            case "--seed":
                let text = try value()
                guard let seed = UInt64(text) else { throw CrashWriterError(description: "bad seed \(text)") }
                self.seed = seed
            case "--queue":
                usesQueue = true
            case "--writes":
                let text = try value()
                guard let count = Int(text), count >= 0 else { throw CrashWriterError(description: "bad write count \(text)") }
                maximumWrites = count
            case "--max-seconds":
                let text = try value()
                guard let seconds = Double(text), seconds > 0 else { throw CrashWriterError(description: "bad duration \(text)") }
                maximumSeconds = seconds
            default:
                throw CrashWriterError(description: "unknown option \(option)")
            }
        }
    }
}

/// The crash-writer mode: see the top of this file.
func runCrashWriter(_ arguments: [String]) -> Int32 {
    let options: CrashWriterOptions
    do {
        options = try CrashWriterOptions(arguments)
    } catch {
        FileHandle.standardError.write(Data(
            "crash-writer: \(error)\nusage: QuarryProcessHelper crash-writer PATH [--seed N] [--queue] [--writes N] [--max-seconds S]\n".utf8))
        return 64
    }
    do {
        var loop = CrashWriterLoop(options: options)
        try loop.run()
        return 0
    } catch {
        FileHandle.standardError.write(Data("crash-writer: error: \(error)\n".utf8))
        return 1
    }
}

private struct CrashWriterLoop {
    let options: CrashWriterOptions
    var random: CrashWriterRandom
    var nextEntryID: Int64 = 1
    var nextBatchID: Int64 = 1
    var nextTransferID: Int64 = 1
    var nextBulkID: Int64 = 1

    init(options: CrashWriterOptions) {
        self.options = options
        random = CrashWriterRandom(seed: options.seed)
    }

    mutating func run() throws {
        let migrator = crashMigrator()
        say("registered \(migrator.migrations.joined(separator: ",")) accounts=\(crashAccountCount) "
            + "balance=\(crashInitialBalance) history=\(crashHistoryRows)")
        let target: CrashWriterTarget
        if options.usesQueue {
            var configuration = Configuration()
            configuration.journalMode = .delete
            target = .queue(try DatabaseQueue(path: options.path, configuration: configuration))
        } else {
            target = .pool(try DatabasePool(path: options.path))
        }
        let writer = target.writer
        let journalMode = try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } ?? "unknown"
        say("journal \(journalMode.lowercased())")
        try migrator.migrate(writer)
        say("migrated")

        (nextEntryID, nextBatchID, nextTransferID, nextBulkID) = try writer.read { db in
            (try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) + 1 FROM entry") ?? 1,
             try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) + 1 FROM batch") ?? 1,
             try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) + 1 FROM transfer") ?? 1,
             try Int64.fetchOne(db, sql: "SELECT coalesce(max(bulkID), 0) + 1 FROM bulk") ?? 1)
        }

        let deadline = Date().addingTimeInterval(options.maximumSeconds)
        var writes = 0
        while writes < options.maximumWrites, Date() < deadline {
            let choice = random.int(in: 0...99)
            switch choice {
            case 0..<34: try insertEntry(writer)
            case 34..<49: try reviseEntry(writer)
            case 49..<71: try insertBatch(writer)
            case 71..<77: try deleteBatch(writer)
            case 77..<94: try transfer(writer)
            case 94..<96: try insertBulk(writer)
            default:
                if case .pool(let pool) = target {
                    try checkpoint(pool)
                } else {
                    try insertEntry(writer)
                }
            }
            writes += 1
        }
    }

    private mutating func payload() -> String {
        let length = Int(random.int(in: 1...3000))
        let letters = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(length)
        for _ in 0..<length { scalars.append(letters[Int(random.next() % 26)]) }
        return String(scalars)
    }

    private mutating func insertEntry(_ writer: any DatabaseWriter) throws {
        let entry = CrashEntry(id: nextEntryID, payload: payload(), revision: 0)
        let operation = "entry \(entry.id) \(entry.payload.utf8.count) \(crashHash(entry.payload))"
        say("begin \(operation)")
        try writer.write { db in _ = try entry.inserted(db) }
        say("ack \(operation)")
        nextEntryID += 1
    }

    private mutating func reviseEntry(_ writer: any DatabaseWriter) throws {
        guard nextEntryID > 1 else { return try insertEntry(writer) }
        let id = random.int(in: 1...(nextEntryID - 1))
        let newPayload = payload()
        let operation = try writer.write { db -> String in
            guard var entry = try CrashEntry.fetchOne(db, key: id) else {
                throw CrashWriterError(description: "entry \(id) is missing")
            }
            entry.revision += 1
            entry.payload = newPayload
            let operation = "revise \(id) \(entry.revision) \(newPayload.utf8.count) \(crashHash(newPayload))"
            say("begin \(operation)")
            try entry.update(db)
            return operation
        }
        say("ack \(operation)")
    }

    private mutating func insertBatch(_ writer: any DatabaseWriter) throws {
        let id = nextBatchID
        let amounts = (0..<random.int(in: 2...12)).map { _ in random.int(in: -500...500) }
        let operation = "batch \(id) \(amounts.map(String.init).joined(separator: ","))"
        say("begin \(operation)")
        try writer.write { db in
            _ = try CrashBatch(id: id, rowCount: Int64(amounts.count), memo: "batch \(id) of \(amounts.count) rows").inserted(db)
            for (seq, amount) in amounts.enumerated() {
                var row = CrashLedgerRow(id: nil, batchID: id, seq: Int64(seq), amount: amount)
                try row.insert(db)
            }
        }
        say("ack \(operation)")
        nextBatchID += 1
    }

    private mutating func deleteBatch(_ writer: any DatabaseWriter) throws {
        let pick = random.next()
        let operation = try writer.write { db -> String? in
            let count = try CrashBatch.all().fetchCount(db)
            guard count > 0 else { return nil }
            guard let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM batch ORDER BY id LIMIT 1 OFFSET ?", arguments: [Int64(pick % UInt64(count))])
            else { throw CrashWriterError(description: "no batch at the chosen offset") }
            say("begin unbatch \(id)")
            let deletedRows = try CrashLedgerRow.filter(\.batchID == id).deleteAll(db)
            guard let batch = try CrashBatch.fetchOne(db, key: id), Int64(deletedRows) == batch.rowCount else {
                throw CrashWriterError(description: "batch \(id) did not have its \(deletedRows) ledger rows")
            }
            _ = try batch.delete(db)
            return "unbatch \(id)"
        }
        if let operation { say("ack \(operation)") }
    }

    private mutating func transfer(_ writer: any DatabaseWriter) throws {
        let id = nextTransferID
        let fromID = random.int(in: 1...crashAccountCount)
        var toID = random.int(in: 1...(crashAccountCount - 1))
        if toID >= fromID { toID += 1 }
        let amount = random.int(in: 1...100)
        let operation = "transfer \(id) \(fromID) \(toID) \(amount)"
        say("begin \(operation)")
        try writer.write { db in
            // One side through a batch update, the other through a record update.
            let debited = try CrashAccount.filter(\.id == fromID).updateAll(db, \.balance -= amount)
            guard debited == 1 else { throw CrashWriterError(description: "account \(fromID) is missing") }
            guard var credited = try CrashAccount.fetchOne(db, key: toID) else {
                throw CrashWriterError(description: "account \(toID) is missing")
            }
            credited.balance += amount
            try credited.update(db)
            _ = try CrashTransfer(id: id, fromID: fromID, toID: toID, amount: amount).inserted(db)
        }
        say("ack \(operation)")
        nextTransferID += 1
    }

    private mutating func insertBulk(_ writer: any DatabaseWriter) throws {
        let id = nextBulkID
        let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(id % 26)))
        let payload = String(repeating: letter, count: crashBulkPayloadLength)
        let operation = "bulk \(id) \(crashBulkRows) \(payload.utf8.count)"
        say("begin \(operation)")
        try writer.write { db in
            for _ in 0..<crashBulkRows {
                var row = CrashBulkRow(id: nil, bulkID: id, payload: payload)
                try row.insert(db)
            }
        }
        say("ack \(operation)")
        nextBulkID += 1
    }

    private func checkpoint(_ pool: DatabasePool) throws {
        say("begin checkpoint")
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        say("ack checkpoint")
    }
}
