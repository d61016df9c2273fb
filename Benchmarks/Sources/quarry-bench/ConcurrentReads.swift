// Workload 10, concurrent reads: N readers, each on a thread of its own,
// fetch rows by primary key in parallel. Every reader runs `batches` read
// transactions of `batchSize` fetches each, the same keys for every contender:
//
//   raw             one connection per reader (read-only, no mutex, as
//                   Quarry's readers); BEGIN, the SELECT, COMMIT
//                   prepared once per connection; one BEGIN … COMMIT per batch
//   grdb-codable    GRDB DatabasePool (maximumReaderCount = N), one
//                   `read { }` per batch, `GItem.fetchOne(db, key:)`
//   quarry-codable  Quarry DatabasePool (maximumReaderCount = N), one
//                   `read { }` per batch, `QItem.fetchOne(db, key:)`
//   fluent          Fluent over sqlite-nio, one event loop (and so one
//                   connection) per reader, one `db.transaction { }` per
//                   batch, `FItem.find(key, on:)` (FluentContender.swift)
//
// Before the timed region every reader opens its transaction, fetches one row
// and waits until all N readers hold theirs: that opens N connections in the
// pools (and prepares the statement on each), as raw opens N before.

import CSQLiteBench
import Foundation
import GRDB
import Quarry

/// What each reader of workload 10 does.
struct ReadPlan: Sendable {
    /// Rows in the table.
    var rows: Int
    var readers: Int
    /// Read transactions per reader.
    var batches: Int
    /// Fetches by primary key per read transaction.
    var batchSize: Int
    /// `--cache-size`, as in `Sizes`.
    var cacheSizeKiB: Int? = nil

    var readsPerReader: Int { batches * batchSize }
    var totalReads: Int { readers * readsPerReader }

    /// The key of fetch `fetch` of batch `batch` of reader `reader`: readers
    /// read different rows, spread over the table.
    func key(reader: Int, batch: Int, fetch: Int) -> Int64 {
        let n = (reader &* batches &+ batch) &* batchSize &+ fetch
        return Int64((n &* 7_919 &+ reader &* 104_729) % rows + 1)
    }

    /// Full run: 100,000 rows, 200 transactions of 100 fetches per reader.
    static func full(readers: Int) -> ReadPlan { ReadPlan(rows: 100_000, readers: readers, batches: 200, batchSize: 100) }
    /// Smoke mode: 1,000 rows, 2 transactions of 10 fetches per reader.
    static func smoke(readers: Int) -> ReadPlan { ReadPlan(rows: 1_000, readers: readers, batches: 2, batchSize: 10) }
}

/// The prepared readers of one contender.
struct ConcurrentReads: Sendable {
    /// Reader `reader` opens a read transaction, fetches one row, calls
    /// `arrived` (which waits for all readers) and ends its transaction.
    let warmUp: @Sendable (_ reader: Int, _ arrived: () -> Void) throws -> Void
    /// The timed reads of reader `reader`: returns a checksum of what it read.
    let run: @Sendable (_ reader: Int) throws -> Int64
    let close: @Sendable () -> Void
}

/// Threads wait until `count` of them have called `wait()`.
final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var waiting = 0
    private var generation = 0

    init(count: Int) { self.count = count }

    func wait() {
        condition.lock()
        defer { condition.unlock() }
        let current = generation
        waiting += 1
        if waiting == count {
            waiting = 0
            generation += 1
            condition.broadcast()
        } else {
            while generation == current { condition.wait() }
        }
    }
}

/// The results of the readers, written by their threads.
private final class ReaderResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Int64, any Error>?]
    /// When each reader started and finished its timed reads (uptime ns).
    private var spans: [(start: UInt64, end: UInt64)]
    init(count: Int) {
        results = Array(repeating: nil, count: count)
        spans = Array(repeating: (0, 0), count: count)
    }
    func set(_ index: Int, _ result: Result<Int64, any Error>) { lock.withLock { results[index] = result } }
    func setSpan(_ index: Int, start: UInt64, end: UInt64) { lock.withLock { spans[index] = (start, end) } }
    func all() -> [Result<Int64, any Error>?] { lock.withLock { results } }
    /// From the first reader's start to the last reader's end.
    func elapsedNanoseconds() -> UInt64 {
        lock.withLock { (spans.map(\.end).max() ?? 0) - (spans.map(\.start).min() ?? 0) }
    }
}

/// Runs the readers of one contender, each on a thread of its own; times
/// from the moment the first starts its timed reads (all have warmed up and
/// been released together) until the last one is done.
/// Returns the elapsed milliseconds, the sum of the readers' checksums, and
/// the CPU time the process used meanwhile (user + system, milliseconds).
func measureConcurrentReads(_ contender: any Contender, path: String, plan: ReadPlan) throws -> (ms: Double, checksum: Int64, cpuMs: Double) {
    let reads = try contender.prepareConcurrentReads(path: path, plan: plan)
    defer { reads.close() }
    let warm = Barrier(count: plan.readers)
    let start = Barrier(count: plan.readers + 1)
    let done = DispatchGroup()
    let results = ReaderResults(count: plan.readers)
    for reader in 0..<plan.readers {
        done.enter()
        let thread = Thread {
            var arrived = false
            do {
                try reads.warmUp(reader) {
                    arrived = true
                    warm.wait()
                }
            } catch {
                results.set(reader, .failure(error))
            }
            if !arrived { warm.wait() }
            start.wait()
            if results.all()[reader] == nil {
                let begin = DispatchTime.now().uptimeNanoseconds
                let result = Result { try reads.run(reader) }
                results.setSpan(reader, start: begin, end: DispatchTime.now().uptimeNanoseconds)
                results.set(reader, result)
            }
            done.leave()
        }
        thread.start()
    }
    start.wait()
    let cpuBefore = processCPUMilliseconds()
    done.wait()
    let cpu = processCPUMilliseconds() - cpuBefore
    let elapsed = Double(results.elapsedNanoseconds()) / 1_000_000
    var checksum: Int64 = 0
    for result in results.all() {
        guard let result else { throw BenchError("a reader of \(contender.name) did not finish") }
        checksum &+= try result.get()
    }
    return (elapsed, checksum, cpu)
}

/// User and system CPU time of this process so far, in milliseconds.
func processCPUMilliseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000 + Double(time.tv_usec) / 1_000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}

// MARK: - raw

/// One reader of the raw contender: a connection and its statements, used by
/// one thread at a time.
private final class RawReader: @unchecked Sendable {
    let db: OpaquePointer
    let begin: OpaquePointer?, commit: OpaquePointer?, select: OpaquePointer?

    init(path: String, pragmas: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db = handle else {
            throw BenchError("cannot open \(path)")
        }
        self.db = db
        try Seeder.exec(db, pragmas)
        func prepare(_ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, sql, -1, &statement, nil)
            return statement
        }
        begin = prepare("BEGIN")
        commit = prepare("COMMIT")
        select = prepare("SELECT * FROM item WHERE id = ?")
    }

    func execute(_ statement: OpaquePointer?) throws {
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(statement)
    }

    func fetch(_ key: Int64) -> Int64 {
        sqlite3_bind_int64(select, 1, key)
        defer { sqlite3_reset(select) }
        return sqlite3_step(select) == SQLITE_ROW ? RawItem(select).checksum : 0
    }

    func close() {
        for statement in [begin, commit, select] { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }
}

extension RawItem {
    var checksum: Int64 { Int64(i2) &+ Int64(d1) &+ Int64(s1.utf8.count) &+ (b1 ? 1 : 0) &+ categoryID }
}

extension RawContender {
    func prepareConcurrentReads(path: String, plan: ReadPlan) throws -> ConcurrentReads {
        let readers = try (0..<plan.readers).map { _ in try RawReader(path: path, pragmas: pragmas(cacheSizeKiB: plan.cacheSizeKiB)) }
        return ConcurrentReads(
            warmUp: { reader, arrived in
                let connection = readers[reader]
                try connection.execute(connection.begin)
                _ = connection.fetch(plan.key(reader: reader, batch: 0, fetch: 0))
                arrived()
                try connection.execute(connection.commit)
            },
            run: { reader in
                let connection = readers[reader]
                var checksum: Int64 = 0
                for batch in 0..<plan.batches {
                    try connection.execute(connection.begin)
                    for fetch in 0..<plan.batchSize {
                        checksum &+= connection.fetch(plan.key(reader: reader, batch: batch, fetch: fetch))
                    }
                    try connection.execute(connection.commit)
                }
                return checksum
            },
            close: { for connection in readers { connection.close() } })
    }
}

// MARK: - GRDB

extension GRDBContender {
    func prepareConcurrentReads(path: String, plan: ReadPlan) throws -> ConcurrentReads {
        var configuration = GRDB.Configuration()
        let pragmas = pragmas(cacheSizeKiB: plan.cacheSizeKiB)
        configuration.prepareDatabase { db in try db.execute(sql: pragmas) }
        configuration.maximumReaderCount = plan.readers
        let pool = try GRDB.DatabasePool(path: path, configuration: configuration)
        return ConcurrentReads(
            warmUp: { reader, arrived in
                try pool.read { db in
                    _ = try GItem.fetchOne(db, key: plan.key(reader: reader, batch: 0, fetch: 0))
                    arrived()
                }
            },
            run: { reader in
                var checksum: Int64 = 0
                for batch in 0..<plan.batches {
                    try pool.read { db in
                        for fetch in 0..<plan.batchSize {
                            checksum &+= try GItem.fetchOne(db, key: plan.key(reader: reader, batch: batch, fetch: fetch))?.checksum ?? 0
                        }
                    }
                }
                return checksum
            },
            close: { try? pool.close() })
    }
}

// MARK: - Quarry

extension QuarryContender {
    func prepareConcurrentReads(path: String, plan: ReadPlan) throws -> ConcurrentReads {
        var configuration = makeConfiguration(pragmas: pragmas(cacheSizeKiB: plan.cacheSizeKiB))
        configuration.maximumReaderCount = plan.readers
        let pool = try Quarry.DatabasePool(path: path, configuration: configuration)
        return ConcurrentReads(
            warmUp: { reader, arrived in
                try pool.read { db in
                    _ = try QItem.fetchOne(db, key: plan.key(reader: reader, batch: 0, fetch: 0))
                    arrived()
                }
            },
            run: { reader in
                var checksum: Int64 = 0
                for batch in 0..<plan.batches {
                    try pool.read { db in
                        for fetch in 0..<plan.batchSize {
                            checksum &+= try QItem.fetchOne(db, key: plan.key(reader: reader, batch: batch, fetch: fetch))?.checksum ?? 0
                        }
                    }
                }
                return checksum
            },
            close: { pool.close() })
    }
}
