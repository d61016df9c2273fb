// The `out-of-memory` mode of the process helper: SQLite's heap is capped
// with sqlite3_hard_heap_limit64 (process-wide, hence a process of its own),
// and the same writes and reads run under caps from a few KiB up, through a
// DatabaseQueue and a DatabasePool. Every failure must be a thrown
// DatabaseError — SQLITE_NOMEM mostly — never a crash; with the cap lifted,
// the file is intact and holds every acknowledged write.
//
//     QuarryProcessHelper out-of-memory DIRECTORY [ROUNDS]
//
// Prints `cap BYTES KIND ok|error CODE` per attempt, then a summary:
// `summary attempts A ok S nomem N other O acknowledged K`, then
// `check integrity ok` and `check acknowledged K found K`. Exits 0 when the
// checks hold, 1 otherwise.

import CSQLite
import Foundation
import Quarry

func runOutOfMemoryWriter(_ arguments: [String]) -> Int32 {
    guard let directory = arguments.first else {
        FileHandle.standardError.write(Data("usage: out-of-memory DIRECTORY [ROUNDS]\n".utf8))
        return 64
    }
    let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 1 : 1
    var attempts = 0, successes = 0, nomem = 0, other = 0
    var acknowledged: [String: [Int64]] = [:]
    var otherCodes: [String] = []

    for kind in ["queue", "pool"] {
        let path = "\(directory)/oom-\(kind).sqlite"
        acknowledged[kind] = []
        var nextID: Int64 = 1
        for round in 0..<rounds {
            // Each round starts a little higher, so that rounds meet
            // different allocations at the cap.
            var cap: Int64 = 4 * 1024 + Int64(round) * 97
            while cap <= 4 * 1024 * 1024 {
                sqlite3_hard_heap_limit64(cap)
                attempts += 1
                let id = nextID
                nextID += 1
                do {
                    let writer: any DatabaseWriter = kind == "queue"
                        ? try DatabaseQueue(path: path) : try DatabasePool(path: path)
                    try writer.write { db in
                        try db.execute(sql: "CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, data BLOB)")
                        try db.execute(sql: "CREATE INDEX IF NOT EXISTS item_payload ON item (payload)")
                        try db.execute(
                            sql: "INSERT INTO item (id, payload, data) VALUES (?, ?, ?)",
                            arguments: [id, String(repeating: "p\(id)", count: 200), Data(repeating: UInt8(id % 251), count: 3000)])
                    }
                    acknowledged[kind, default: []].append(id)
                    let rows = try writer.read { db in
                        try Row.fetchAll(db, sql: "SELECT id, payload, length(data) FROM item ORDER BY payload DESC")
                    }
                    guard rows.count >= acknowledged[kind, default: []].count else {
                        print("check read \(kind) cap \(cap): \(rows.count) rows, fewer than the acknowledged writes")
                        return 1
                    }
                    successes += 1
                    print("cap \(cap) \(kind) ok")
                } catch let error as DatabaseError {
                    if error.resultCode == .SQLITE_NOMEM {
                        nomem += 1
                    } else {
                        other += 1
                        otherCodes.append("\(error.extendedResultCode.rawValue)")
                    }
                    print("cap \(cap) \(kind) error \(error.extendedResultCode.rawValue)")
                } catch {
                    print("cap \(cap) \(kind) not a DatabaseError: \(error)")
                    return 1
                }
                cap = cap * 5 / 4
            }
        }
    }
    sqlite3_hard_heap_limit64(0)
    print("summary attempts \(attempts) ok \(successes) nomem \(nomem) other \(other) acknowledged "
        + "\(acknowledged.values.map(\.count).reduce(0, +)) other-codes \(Set(otherCodes).sorted().joined(separator: ","))")

    var failed = false
    for (kind, ids) in acknowledged.sorted(by: { $0.key < $1.key }) {
        do {
            let queue = try DatabaseQueue(path: "\(directory)/oom-\(kind).sqlite")
            let integrity = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            let found = try queue.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item") }
            let missing = Set(ids).subtracting(found)
            print("check \(kind) integrity \(integrity.joined(separator: " ")) acknowledged \(ids.count) missing \(missing.count)")
            if integrity != ["ok"] || !missing.isEmpty { failed = true }
        } catch {
            print("check \(kind) failed: \(error)")
            failed = true
        }
    }
    return failed ? 1 : 0
}
