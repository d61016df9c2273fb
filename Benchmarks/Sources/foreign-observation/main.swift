// foreign-observation: what watching for other processes' commits costs when
// nothing changes, and how long a foreign commit takes to reach an observer
// (the article "Observing changes", Benchmarks/README.md).
//
//     swift run -c release --package-path Benchmarks foreign-observation \
//         --results Benchmarks/results/observation/foreign-commits.csv --commit "$(git rev-parse --short HEAD)"
//     swift run --package-path Benchmarks foreign-observation --smoke      # equal work, short, no file
//
// SQLite (a DatabasePool, file in a temporary directory), per polling interval:
// - idle: one ValueObservation of `SELECT count(*) FROM item` runs for
//   `--idle-seconds` with no writes. CPU is the process's user + system time
//   (getrusage) per second of wall time, minus the same measurement of the
//   same pool with no observation; queries are the statements run on the
//   writer (counted by a trace installed on every connection).
// - latency: another connection (a DatabaseQueue on the same file, standing
//   for another process) inserts a row, after a random pause, `--samples`
//   times; the time from the start of its write transaction to the
//   delivery of the count that includes the row (the write's own time, well
//   under a millisecond on SQLite, included).
// - raw: the floor, hand-written C: a thread that sleeps the interval and
//   reads `PRAGMA data_version` on its own connection, and the same latency
//   measured to the moment it sees the version change.
// PostgreSQL (when QUARRY_POSTGRES_URL is set): the same observation on a
// PostgresDatabasePool, the table with its notification trigger; idle
// queries are the server's transactions in the database per second
// (pg_stat_database.xact_commit, which counts the listener's keep-alive);
// the other writer is a second pool. Raw: a PostgresNIO connection that
// LISTENs, the latency to its notification.
//
// Each contender checks that it saw every row (the delivered count equals
// the table's).

import CSQLiteBench
import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres
import Synchronization

struct Options {
    var intervals: [Duration] = [.milliseconds(50), .milliseconds(250), .seconds(1)]
    var idleSeconds = 20.0
    var samples = 40
    var smoke = false
    var results: String?
    var commit = "unknown"

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke":
                smoke = true
                intervals = [.milliseconds(50)]
                idleSeconds = 0.5
                samples = 3
            case "--idle-seconds": idleSeconds = iterator.next().flatMap(Double.init) ?? idleSeconds
            case "--samples": samples = iterator.next().flatMap(Int.init) ?? samples
            case "--results": results = iterator.next()
            case "--commit": commit = iterator.next() ?? commit
            default:
                print("unknown option \(argument)")
                exit(2)
            }
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One row of the results.
struct Measurement {
    var backend: String
    var contender: String
    var interval: String
    var idleCPUPercent: Double
    var idleQueriesPerSecond: Double
    var latencies: [Double]  // milliseconds

    func quantile(_ q: Double) -> Double {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }

    var csv: String {
        String(
            format: "%@,%@,%@,%.3f,%.2f,%.1f,%.1f,%.1f,%d", backend, contender, interval, idleCPUPercent,
            idleQueriesPerSecond, quantile(0.5), quantile(0.95), latencies.max() ?? .nan, latencies.count)
    }
}

/// The process's CPU time (user + system), in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// CPU seconds per wall second over `seconds` of waiting.
func cpuRate(over seconds: Double) async throws -> Double {
    let cpu = cpuSeconds()
    let start = ContinuousClock.now
    try await Task.sleep(for: .seconds(seconds))
    let wall = ContinuousClock.now - start
    let elapsed = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    return (cpuSeconds() - cpu) / elapsed
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// The latest value of an observation, and when it arrived.
final class Latest: Sendable {
    private let state = Mutex<(value: Int, at: ContinuousClock.Instant)>((-1, .now))
    func set(_ value: Int) { state.withLock { $0 = (value, .now) } }
    var value: (value: Int, at: ContinuousClock.Instant) { state.withLock { $0 } }

    /// Waits (polling every millisecond, up to 30 s) until the value is `expected`.
    func wait(for expected: Int) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let current = value
            if current.value == expected { return current.at }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw Failure("the observation did not deliver \(expected) within 30 s (last: \(value.value))")
    }
}

let countObservation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? -1 }

/// Inserts a row through `other`, `samples` times after random pauses, and
/// returns the latency of each to its delivery to `latest`; checks that
/// every row was delivered.
func measureForeignInserts(
    by other: any DatabaseWriter, observedIn reader: any DatabaseReader, latest: Latest, samples: Int, maxPause: Duration,
    name: String
) async throws -> [Double] {
    var latencies: [Double] = []
    for expected in 1...samples {
        // A random pause, so that commits fall anywhere in the polling period.
        try await Task.sleep(for: maxPause * Double.random(in: 0.1...1))
        let started = ContinuousClock.now
        try await other.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('x')") }
        let delivered = try await latest.wait(for: expected)
        latencies.append(milliseconds(delivered - started))
    }
    let rows = try await reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }
    guard rows == samples, latest.value.value == samples else {
        throw Failure("\(name): \(rows ?? -1) rows, delivered \(latest.value.value)")
    }
    return latencies
}

// MARK: - SQLite

func sqliteQuarry(interval: Duration, options: Options, directory: URL) async throws -> Measurement {
    let path = directory.appendingPathComponent("quarry-\(milliseconds(interval)).sqlite").path
    let statements = Atomic<Int>(0)
    var configuration = Configuration()
    configuration.foreignCommitPollingInterval = interval
    configuration.prepareDatabase = { db in db.trace { _ in statements.add(1, ordering: .relaxed) } }
    let pool = try DatabasePool(path: path, configuration: configuration)
    defer { pool.close() }
    try await pool.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)") }
    let other = try DatabaseQueue(path: path)
    defer { other.close() }

    let baseline = try await cpuRate(over: options.idleSeconds)
    let latest = Latest()
    let cancellable = countObservation.start(in: pool, onError: { print("observation error: \($0)") }, onChange: { latest.set($0) })
    defer { cancellable.cancel() }
    _ = try await latest.wait(for: 0)
    try await Task.sleep(for: interval * 2)
    let before = statements.load(ordering: .relaxed)
    let observed = try await cpuRate(over: options.idleSeconds)
    let queries = Double(statements.load(ordering: .relaxed) - before) / options.idleSeconds
    let latencies = try await measureForeignInserts(
        by: other, observedIn: pool, latest: latest, samples: options.samples, maxPause: interval * 2, name: "quarry sqlite")
    return Measurement(
        backend: "sqlite", contender: "quarry", interval: "\(Int(milliseconds(interval))) ms",
        idleCPUPercent: max(0, observed - baseline) * 100, idleQueriesPerSecond: queries, latencies: latencies)
}

/// The floor: a thread that polls `PRAGMA data_version` with the C API.
final class RawPoller: @unchecked Sendable {
    private let db: OpaquePointer
    private let statement: OpaquePointer
    private let interval: Duration
    private let lock = NSLock()
    private var stopped = false
    let polls = Atomic<Int>(0)
    let changes = Atomic<Int>(0)
    let lastChange = Mutex<ContinuousClock.Instant>(.now)
    /// Why the poller stopped, if a poll failed with anything but
    /// `SQLITE_BUSY` (which it retries at the next poll).
    let failure = Mutex<String?>(nil)

    init(path: String, interval: Duration) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let db = handle else { throw Failure("cannot open \(path)") }
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA data_version", -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            sqlite3_close(db)
            throw Failure("cannot prepare PRAGMA data_version")
        }
        self.db = db
        self.statement = statement
        self.interval = interval
    }

    func start() {
        let thread = Thread { [self] in
            var last: Int64 = -1
            while !lock.withLock({ stopped }) {
                let code = sqlite3_step(statement)
                guard code == SQLITE_ROW else {
                    sqlite3_reset(statement)
                    // A writer holds the lock of a rollback journal: poll again later.
                    if code & 0xFF == SQLITE_BUSY {
                        Thread.sleep(forTimeInterval: milliseconds(interval) / 1000)
                        continue
                    }
                    failure.withLock { $0 = "PRAGMA data_version failed: \(String(cString: sqlite3_errmsg(db)))" }
                    break
                }
                let version = sqlite3_column_int64(statement, 0)
                sqlite3_reset(statement)
                polls.add(1, ordering: .relaxed)
                if last >= 0, version != last {
                    lastChange.withLock { $0 = .now }
                    changes.add(1, ordering: .relaxed)
                }
                last = version
                Thread.sleep(forTimeInterval: milliseconds(interval) / 1000)
            }
            sqlite3_finalize(statement)
            sqlite3_close(db)
        }
        thread.start()
    }

    func stop() { lock.withLock { stopped = true } }
}

func sqliteRaw(interval: Duration, options: Options, directory: URL) async throws -> Measurement {
    let path = directory.appendingPathComponent("raw-\(milliseconds(interval)).sqlite").path
    let writer = try DatabaseQueue(path: path)
    defer { writer.close() }
    // WAL, as the Quarry contender's pool: outside a transaction, where
    // SQLite can change the journal mode.
    try await writer.writeWithoutTransaction { db in
        guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else { throw Failure("the raw contender's file is not in WAL mode") }
    }
    try await writer.write { db in
        try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
    }
    let baseline = try await cpuRate(over: options.idleSeconds)
    let poller = try RawPoller(path: path, interval: interval)
    poller.start()
    defer { poller.stop() }
    try await Task.sleep(for: interval * 2)
    let before = poller.polls.load(ordering: .relaxed)
    let observed = try await cpuRate(over: options.idleSeconds)
    let queries = Double(poller.polls.load(ordering: .relaxed) - before) / options.idleSeconds
    var latencies: [Double] = []
    for _ in 0..<options.samples {
        try await Task.sleep(for: interval * 2 * Double.random(in: 0.1...1))
        let seen = poller.changes.load(ordering: .relaxed)
        let committed = ContinuousClock.now
        try await writer.write { db in try db.execute(sql: "INSERT INTO item (name) VALUES ('x')") }
        let deadline = committed + .seconds(30)
        while poller.changes.load(ordering: .relaxed) == seen {
            if let failure = poller.failure.withLock({ $0 }) { throw Failure("raw poller: \(failure)") }
            guard ContinuousClock.now < deadline else { throw Failure("raw poller saw no change within 30 s") }
            try await Task.sleep(for: .milliseconds(1))
        }
        latencies.append(milliseconds(poller.lastChange.withLock { $0 } - committed))
    }
    guard poller.changes.load(ordering: .relaxed) == options.samples else {
        throw Failure("raw sqlite: saw \(poller.changes.load(ordering: .relaxed)) changes for \(options.samples) commits")
    }
    return Measurement(
        backend: "sqlite", contender: "raw-c", interval: "\(Int(milliseconds(interval))) ms",
        idleCPUPercent: max(0, observed - baseline) * 100, idleQueriesPerSecond: queries, latencies: latencies)
}

// MARK: - PostgreSQL

func serverTransactions(_ pool: PostgresDatabasePool) async throws -> Int {
    try await pool.writeWithoutTransaction { db in
        try Int.fetchOne(db, sql: "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()") ?? 0
    }
}

func postgresQuarry(url: String, options: Options) async throws -> Measurement {
    let schema = "foreign_observation_\(UInt32.random(in: 0...UInt32.max))"
    var configuration = Configuration()
    configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
    let admin = try PostgresDatabasePool(url: url, maximumConnectionCount: 1)
    defer { admin.close() }
    try await admin.writeWithoutTransaction { db in try db.execute(sql: "CREATE SCHEMA \(schema)") }
    defer { try? admin.writeWithoutTransaction { db in try db.execute(sql: "DROP SCHEMA \(schema) CASCADE") } }
    let pool = try PostgresDatabasePool(url: url, maximumConnectionCount: 2, configuration: configuration)
    defer { pool.close() }
    let other = try PostgresDatabasePool(url: url, maximumConnectionCount: 1, configuration: configuration)
    defer { other.close() }
    try await pool.write { db in
        try db.execute(sql: "CREATE TABLE item (id BIGSERIAL PRIMARY KEY, name TEXT)")
        try db.createChangeNotificationTrigger(on: "item")
    }
    let baseline = try await cpuRate(over: options.idleSeconds)
    let latest = Latest()
    let cancellable = countObservation.start(in: pool, onError: { print("observation error: \($0)") }, onChange: { latest.set($0) })
    defer { cancellable.cancel() }
    _ = try await latest.wait(for: 0)
    // Server transactions while idle, less the two reads of the counter itself.
    let before = try await serverTransactions(admin)
    let observed = try await cpuRate(over: options.idleSeconds)
    let after = try await serverTransactions(admin)
    let queries = Double(max(0, after - before - 1)) / options.idleSeconds
    let latencies = try await measureForeignInserts(
        by: other, observedIn: pool, latest: latest, samples: options.samples, maxPause: .milliseconds(100), name: "quarry postgres")
    return Measurement(
        backend: "postgresql", contender: "quarry", interval: "notifications",
        idleCPUPercent: max(0, observed - baseline) * 100, idleQueriesPerSecond: queries, latencies: latencies)
}

/// The floor on PostgreSQL: PostgresNIO's LISTEN, the latency to the notification.
func postgresRaw(url: String, options: Options) async throws -> Measurement {
    let postgres = try PostgresConfiguration(url: url)
    let session = try await PostgresSession.connect(to: postgres)
    let writer = try PostgresDatabasePool(url: url, maximumConnectionCount: 1)
    defer { writer.close() }
    let channel = "foreign_observation_raw"
    let received = Atomic<Int>(0)
    let lastReceived = Mutex<ContinuousClock.Instant>(.now)
    let listening = Task {
        try await session.connection.listen(on: channel) { notifications in
            for try await _ in notifications {
                lastReceived.withLock { $0 = .now }
                received.add(1, ordering: .relaxed)
            }
        }
    }
    defer { listening.cancel() }
    try await session.execute(sql: "SELECT 1")
    try await Task.sleep(for: .milliseconds(100))
    let baseline = try await cpuRate(over: options.idleSeconds)
    let observed = try await cpuRate(over: options.idleSeconds)
    var latencies: [Double] = []
    for _ in 0..<options.samples {
        try await Task.sleep(for: .milliseconds(100) * Double.random(in: 0.1...1))
        let seen = received.load(ordering: .relaxed)
        let committed = ContinuousClock.now
        try await writer.writeWithoutTransaction { db in try db.execute(sql: "NOTIFY \(channel), 'item'") }
        let deadline = committed + .seconds(30)
        while received.load(ordering: .relaxed) == seen {
            guard ContinuousClock.now < deadline else { throw Failure("raw LISTEN received nothing within 30 s") }
            try await Task.sleep(for: .milliseconds(1))
        }
        latencies.append(milliseconds(lastReceived.withLock { $0 } - committed))
    }
    try? await session.close()
    return Measurement(
        backend: "postgresql", contender: "raw-postgresnio", interval: "notifications",
        idleCPUPercent: max(0, observed - baseline) * 100, idleQueriesPerSecond: 0, latencies: latencies)
}

// MARK: - Main

let options = Options(arguments: CommandLine.arguments)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foreign-observation-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

var measurements: [Measurement] = []
do {
    for interval in options.intervals {
        measurements.append(try await sqliteRaw(interval: interval, options: options, directory: directory))
        measurements.append(try await sqliteQuarry(interval: interval, options: options, directory: directory))
    }
    if let url = ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"], !url.isEmpty {
        measurements.append(try await postgresRaw(url: url, options: options))
        measurements.append(try await postgresQuarry(url: url, options: options))
    } else {
        print("foreign-observation: QUARRY_POSTGRES_URL is not set: PostgreSQL not measured")
    }
} catch {
    print("foreign-observation: error: \(error)")
    exit(1)
}

let header = "backend,contender,interval,idle_cpu_percent,idle_queries_per_second,latency_median_ms,latency_p95_ms,latency_max_ms,samples"
let cores = ProcessInfo.processInfo.activeProcessorCount
let date = ISO8601DateFormatter().string(from: Date())
let provenance = "# foreign-observation run of \(date), \(cores) cores, \(options.idleSeconds) s idle, Quarry commit \(options.commit)"
print(provenance)
print(header)
for measurement in measurements { print(measurement.csv) }
if options.smoke {
    print("foreign-observation: smoke run: every contender saw every commit (timings not meaningful)")
} else if let results = options.results {
    let text = ([provenance, header] + measurements.map(\.csv)).joined(separator: "\n") + "\n"
    try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: results).deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(toFile: results, atomically: true, encoding: .utf8)
    print("foreign-observation: wrote \(results)")
}
