// The concurrent-writer mode of the process helper: a second DatabasePool on
// the same file, in another process, doing bank transfers while the test
// process does its own.
//
//     QuarryProcessHelper concurrent-writer PATH COUNT
//
// PATH holds the bank of the tests (tables `account` and `transfer`, see
// Tests/QuarryTests/Reliability/ConcurrencySupport.swift). The helper makes
// COUNT transfers, each in its own write transaction and logged in `transfer`
// with origin "helper", and checks in a read after every few transfers that
// the balances still add up to the total they had at start. After half of
// them, it waits (up to 120 s) until the other process has logged a transfer,
// so that the two processes really write at the same time.
//
// On success it prints one line and exits 0:
//     concurrent-writer: transfers=COUNT reads=N total=T peer-seen=yes
// On any error (SQLITE_BUSY included) it prints `concurrent-writer: error: …`
// to standard error and exits 1; bad arguments exit 64.

import Foundation
import Quarry

func runConcurrentWriter(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2, let count = Int(arguments[1]), count >= 0 else {
        printError("usage: QuarryProcessHelper concurrent-writer PATH COUNT")
        return 64
    }
    do {
        let report = try ConcurrentWriter(path: arguments[0]).run(transfers: count)
        print("concurrent-writer: \(report)")
        return 0
    } catch {
        printError("concurrent-writer: error: \(error)")
        return 1
    }
}

private func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// An error of the helper itself (not of the database).
private struct ConcurrentWriterError: Error, CustomStringConvertible {
    let description: String
}

private struct ConcurrentWriter {
    let dbPool: DatabasePool
    static let origin = "helper"

    init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConcurrentWriterError(description: "no database at \(path): the test creates it first")
        }
        dbPool = try DatabasePool(path: path)
    }

    func run(transfers: Int) throws -> String {
        let (accounts, total) = try dbPool.read { db -> (Int, Int) in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM account") ?? 0,
             try Int.fetchOne(db, sql: "SELECT sum(balance) FROM account") ?? 0)
        }
        guard accounts >= 2 else {
            throw ConcurrentWriterError(description: "the account table has \(accounts) accounts; at least 2 are needed")
        }
        var generator = SystemRandomNumberGenerator()
        var reads = 0
        var peerSeen = false
        for step in 0..<transfers {
            if step == transfers / 2 {
                peerSeen = try waitForPeer()
            }
            let from = Int.random(in: 1...accounts, using: &generator)
            let to = (from + Int.random(in: 0...(accounts - 2), using: &generator)) % accounts + 1
            let amount = Int.random(in: 1...50, using: &generator)
            try dbPool.write { db in
                try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, from])
                try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, to])
                try db.execute(
                    sql: "INSERT INTO transfer (origin, fromID, toID, amount) VALUES (?, ?, ?, ?)",
                    arguments: [Self.origin, from, to, amount])
            }
            if step % 4 == 0 {
                let sum = try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT sum(balance) FROM account") ?? 0 }
                reads += 1
                guard sum == total else {
                    throw ConcurrentWriterError(description: "a read saw a sum of \(sum), expected \(total), after \(step + 1) transfers")
                }
            }
        }
        return "transfers=\(transfers) reads=\(reads) total=\(total) peer-seen=\(peerSeen ? "yes" : "no")"
    }

    /// Waits until the other process has logged a transfer: true when it has,
    /// false after 120 s without one (the transfers go on anyway).
    private func waitForPeer() throws -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let others = try dbPool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM transfer WHERE origin <> ?", arguments: [Self.origin]) ?? 0
            }
            if others > 0 { return true }
            usleep(2_000)
        }
        return false
    }
}
