// wal-growth: how large a DatabasePool's WAL file grows under a constant
// read+write load, with a given checkpoint policy. The measurement behind the
// "Operating a database in production" article.
//
//     swift run -c release --package-path Benchmarks wal-growth --seconds 60 --policy default
//     swift run -c release --package-path Benchmarks wal-growth --seconds 60 --policy truncate
//
// One task writes small transactions (an insert and an update) back to back;
// `--readers` threads read back to back, each read a few milliseconds long,
// so that reads overlap and some reader holds a snapshot almost all the time.
// The WAL file's size is sampled every 100 ms.

import Foundation
import Quarry

struct Options {
    var seconds = 60.0
    var policy = "default"
    var readers = 4
    var interval = 1.0

    init(arguments: [String]) throws {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw Failure("missing a value after \(argument)") }
            switch argument {
            case "--seconds": seconds = Double(value) ?? seconds
            case "--policy": policy = value
            case "--readers": readers = Int(value) ?? readers
            case "--interval": interval = Double(value) ?? interval
            default: throw Failure("unknown option \(argument)")
            }
        }
        guard ["default", "truncate"].contains(policy) else { throw Failure("--policy is default or truncate") }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func add(_ n: Int = 1) { lock.withLock { value += n } }
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

let options = try Options(arguments: CommandLine.arguments)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-growth-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("db.sqlite").path

var configuration = Configuration()
configuration.maximumReaderCount = options.readers
if options.policy == "truncate" {
    configuration.checkpointPolicy = .truncate(every: .milliseconds(Int64(options.interval * 1000)))
}
let dbPool = try DatabasePool(path: path, configuration: configuration)
try dbPool.write { db in
    try db.execute(sql: """
        CREATE TABLE event (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, createdAt REAL NOT NULL);
        CREATE INDEX event_createdAt ON event(createdAt);
        CREATE TABLE stats (id INTEGER PRIMARY KEY, count INTEGER NOT NULL);
        INSERT INTO stats VALUES (1, 0);
        """)
}

let stop = Flag()
let writes = Counter()
let reads = Counter()
let finished = DispatchGroup()

finished.enter()
Thread.detachNewThread {
    defer { finished.leave() }
    let payload = String(repeating: "x", count: 200)
    while !stop.isSet {
        do {
            try dbPool.write { db in
                try db.execute(sql: "INSERT INTO event (payload, createdAt) VALUES (?, ?)", arguments: [payload, Date().timeIntervalSince1970])
                try db.execute(sql: "UPDATE stats SET count = count + 1 WHERE id = 1")
            }
            writes.add()
        } catch {
            print("write failed: \(error)")
            return
        }
    }
}
for _ in 0..<options.readers {
    finished.enter()
    Thread.detachNewThread {
        defer { finished.leave() }
        while !stop.isSet {
            do {
                _ = try dbPool.read { db in
                    // A few milliseconds: the latest thousand events, and the total.
                    let recent = try Row.fetchAll(db, sql: "SELECT * FROM event ORDER BY createdAt DESC LIMIT 1000")
                    let total = try Int.fetchOne(db, sql: "SELECT count FROM stats WHERE id = 1")
                    return (recent.count, total)
                }
                reads.add()
            } catch {
                print("read failed: \(error)")
                return
            }
        }
    }
}

let walPath = path + "-wal"
var samples: [Int] = []
let start = Date()
while Date().timeIntervalSince(start) < options.seconds {
    Thread.sleep(forTimeInterval: 0.1)
    samples.append(fileSize(walPath))
}
stop.set()
finished.wait()

let mib = { (bytes: Int) in String(format: "%.2f MiB", Double(bytes) / 1_048_576) }
let tenths = samples.count / 10
let perTenth = (0..<10).map { tenth in samples[min(samples.count - 1, (tenth + 1) * max(1, tenths) - 1)] }
print("policy: \(options.policy)\(options.policy == "truncate" ? " every \(options.interval) s" : "") · \(options.readers) reader threads · \(options.seconds) s")
print("writes: \(writes.count) (\(Int(Double(writes.count) / options.seconds))/s) · reads: \(reads.count) (\(Int(Double(reads.count) / options.seconds))/s)")
print("WAL size at each tenth of the run: \(perTenth.map(mib).joined(separator: ", "))")
print("WAL size: max \(mib(samples.max() ?? 0)), end \(mib(samples.last ?? 0)) · database: \(mib(fileSize(path)))")
