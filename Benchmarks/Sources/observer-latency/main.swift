// observer-latency: what transaction observers cost a commit. Each commit is
// one write transaction inserting one row (BEGIN IMMEDIATE, INSERT, COMMIT),
// on a DatabasePool in WAL mode with synchronous = NORMAL, with 0, 1 and 10
// transaction observers attached, each observing inserts into the table and
// counting the rows it is told about.
//
//     swift run -c release --package-path Benchmarks observer-latency            # full run
//     swift run --package-path Benchmarks observer-latency --smoke               # equal work, no timing
//
// Contenders: `raw` (hand-written C, no observer: the floor), `grdb` (GRDB 7.10
// with the same observers) and `quarry`. Every run checks that the table holds
// one row per commit and that each observer counted every committed row.
// Prints the median time per commit over the repetitions, and ratios to the
// same library without observers, to raw, and Quarry to GRDB.

import CSQLiteBench
import Foundation
import GRDB
import Quarry

struct Options {
    var commits = 20_000
    var repetitions = 5
    var smoke = false

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke": smoke = true; commits = 50; repetitions = 1
            case "--commits": commits = iterator.next().flatMap(Int.init) ?? commits
            case "--repetitions": repetitions = iterator.next().flatMap(Int.init) ?? repetitions
            default: print("unknown option \(argument)"); exit(2)
            }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let schema = "CREATE TABLE event (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, amount INTEGER NOT NULL)"
let insertSQL = "INSERT INTO event (kind, amount) VALUES (?, ?)"

// MARK: - Observers (same work in both libraries: count rows, reset on rollback)

final class QuarryCounter: Quarry.TransactionObserver {
    var pending = 0
    var committed = 0
    func observes(eventsOfKind kind: Quarry.DatabaseEventKind) -> Bool {
        if case .insert(let table) = kind { return table == "event" }
        return false
    }
    func databaseDidChange(with event: Quarry.DatabaseEvent) { pending += 1 }
    func databaseDidCommit(_ db: Quarry.Database) {
        committed += pending
        pending = 0
    }
    func databaseDidRollback(_ db: Quarry.Database) { pending = 0 }
}

final class GRDBCounter: GRDB.TransactionObserver {
    var pending = 0
    var committed = 0
    func observes(eventsOfKind eventKind: GRDB.DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == "event" }
        return false
    }
    func databaseDidChange(with event: GRDB.DatabaseEvent) { pending += 1 }
    func databaseDidCommit(_ db: GRDB.Database) {
        committed += pending
        pending = 0
    }
    func databaseDidRollback(_ db: GRDB.Database) { pending = 0 }
}

// MARK: - Contenders

/// Runs `commits` commits; returns the seconds taken.
func runQuarry(path: String, observers: Int, commits: Int) throws -> Double {
    var configuration = Quarry.Configuration()
    configuration.prepareDatabase = { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try Quarry.DatabasePool(path: path, configuration: configuration)
    defer { pool.close() }
    try pool.write { db throws in try db.execute(sql: schema) }
    let counters = (0..<observers).map { _ in QuarryCounter() }
    for counter in counters { try pool.add(transactionObserver: counter) }
    let start = DispatchTime.now().uptimeNanoseconds
    for k in 0..<commits {
        try pool.write { db throws in try db.execute(sql: insertSQL, arguments: ["k\(k % 7)", k]) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let rows = try pool.read { db throws in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") } ?? -1
    try verify(rows: rows, counted: counters.map(\.committed), commits: commits, contender: "quarry")
    return seconds
}

func runGRDB(path: String, observers: Int, commits: Int) throws -> Double {
    var configuration = GRDB.Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try GRDB.DatabasePool(path: path, configuration: configuration)
    defer { try? pool.close() }
    try pool.write { db in try db.execute(sql: schema) }
    let counters = (0..<observers).map { _ in GRDBCounter() }
    for counter in counters { pool.add(transactionObserver: counter) }
    let start = DispatchTime.now().uptimeNanoseconds
    for k in 0..<commits {
        try pool.write { db in try db.execute(sql: insertSQL, arguments: ["k\(k % 7)", k]) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let rows = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") } ?? -1
    try verify(rows: rows, counted: counters.map(\.committed), commits: commits, contender: "grdb")
    return seconds
}

func runRaw(path: String, commits: Int) throws -> Double {
    var handle: OpaquePointer?
    guard sqlite3_open(path, &handle) == SQLITE_OK, let db = handle else { throw Failure("cannot open \(path)") }
    defer { sqlite3_close(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
    try exec("PRAGMA journal_mode = WAL")
    try exec("PRAGMA synchronous = NORMAL")
    try exec(schema)
    var statements: [OpaquePointer?] = [nil, nil, nil]
    for (index, sql) in ["BEGIN IMMEDIATE", insertSQL, "COMMIT"].enumerated() {
        sqlite3_prepare_v2(db, sql, -1, &statements[index], nil)
    }
    defer { for statement in statements { sqlite3_finalize(statement) } }
    let (begin, insert, commit) = (statements[0], statements[1], statements[2])
    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    let start = DispatchTime.now().uptimeNanoseconds
    for k in 0..<commits {
        guard sqlite3_step(begin) == SQLITE_DONE else { throw Failure("BEGIN failed") }
        sqlite3_reset(begin)
        sqlite3_bind_text(insert, 1, "k\(k % 7)", -1, transient)
        sqlite3_bind_int64(insert, 2, Int64(k))
        guard sqlite3_step(insert) == SQLITE_DONE else { throw Failure("INSERT failed") }
        sqlite3_reset(insert)
        guard sqlite3_step(commit) == SQLITE_DONE else { throw Failure("COMMIT failed") }
        sqlite3_reset(commit)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var count: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT count(*) FROM event", -1, &count, nil)
    defer { sqlite3_finalize(count) }
    sqlite3_step(count)
    try verify(rows: Int(sqlite3_column_int64(count, 0)), counted: [], commits: commits, contender: "raw")
    return seconds
}

func verify(rows: Int, counted: [Int], commits: Int, contender: String) throws {
    guard rows == commits else { throw Failure("\(contender): \(rows) rows after \(commits) commits") }
    for (index, count) in counted.enumerated() where count != commits {
        throw Failure("\(contender): observer \(index) counted \(count) committed rows, expected \(commits)")
    }
}

// MARK: - Main

let options = Options(arguments: CommandLine.arguments)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observer-latency-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// A new database file for each run.
@MainActor func freshPath() -> String {
    directory.appendingPathComponent("run-\(UUID().uuidString).sqlite").path
}

struct Case {
    let contender: String
    let observers: Int
    let run: @MainActor () throws -> Double
}

let cases: [Case] = [Case(contender: "raw", observers: 0) { try runRaw(path: freshPath(), commits: options.commits) }]
    + [0, 1, 10].flatMap { observers in
        [
            Case(contender: "grdb", observers: observers) {
                try runGRDB(path: freshPath(), observers: observers, commits: options.commits)
            },
            Case(contender: "quarry", observers: observers) {
                try runQuarry(path: freshPath(), observers: observers, commits: options.commits)
            },
        ]
    }

// Repetitions interleave the cases, so that a slow moment of the machine
// does not fall on one case only.
var samples: [String: [Double]] = [:]
for _ in 0..<options.repetitions {
    for testCase in cases {
        let seconds = try testCase.run()
        samples["\(testCase.contender)/\(testCase.observers)", default: []].append(seconds / Double(options.commits))
    }
}
if options.smoke {
    print("observer-latency smoke: every contender committed \(options.commits) rows, every observer counted them all")
    exit(0)
}

@MainActor func median(_ key: String) -> Double {
    let sorted = (samples[key] ?? []).sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

print("Commit latency, \(options.commits) commits of one inserted row, median of \(options.repetitions)")
print("| Contender | Observers | µs per commit | vs same, no observer | vs raw | Quarry vs GRDB |")
print("| --- | --- | --- | --- | --- | --- |")
let raw = median("raw/0")
print("| raw | 0 | \(String(format: "%.2f", raw * 1e6)) | 1.00x | 1.00x | |")
for observers in [0, 1, 10] {
    for contender in ["grdb", "quarry"] {
        let value = median("\(contender)/\(observers)")
        let own = value / median("\(contender)/0")
        let versusGRDB = contender == "quarry" ? String(format: "%.2fx", value / median("grdb/\(observers)")) : ""
        print("| \(contender) | \(observers) | \(String(format: "%.2f", value * 1e6)) | \(String(format: "%.2fx", own)) | \(String(format: "%.2fx", value / raw)) | \(versusGRDB) |")
    }
}
