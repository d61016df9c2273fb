// --count-allocations: heap allocations per row of each workload and
// contender, counted by the malloc interposer of the CMallocCounter target.

import CMallocCounter
import CSQLiteBench
import Foundation

/// What the interposer counted during one closure.
struct AllocationCount {
    var allocations: UInt64
    var reallocations: UInt64
    var bytes: UInt64

    /// Counts the allocations `body` makes, on every thread of the process.
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, count: AllocationCount) {
        quarry_malloc_counter_start()
        let result: T
        do {
            result = try body()
        } catch {
            _ = quarry_malloc_counter_stop()
            throw error
        }
        let counts = quarry_malloc_counter_stop()
        return (result, AllocationCount(allocations: counts.allocations, reallocations: counts.reallocations, bytes: counts.bytes))
    }

    /// Checks that the counter sees allocations made directly, by the Swift
    /// runtime, by libsqlite3 and on another thread; throws otherwise.
    /// Returns a one-line summary of what each check counted.
    static func selfCheck() throws -> String {
        let blocks = 1_000
        guard quarry_malloc_counter_is_interposed() != 0 else {
            throw BenchError(
                "allocation counting does not work: the process's malloc is not quarry-bench's (CMallocCounter) "
                    + "— the dynamic linker did not bind malloc to the executable's definition")
        }
        var checks: [(String, AllocationCount)] = []
        // Nothing: what starting and stopping costs (must be 0).
        checks.append(("nothing", measure { () }.count))
        // malloc called from Swift code in the executable.
        var pointers: [UnsafeMutableRawPointer?] = []
        pointers.reserveCapacity(blocks)
        checks.append(("malloc", measure { for i in 0..<blocks { pointers.append(malloc(16 + i % 64)) } }.count))
        for pointer in pointers { free(pointer) }
        // libsqlite3's allocator (a call to the process's malloc per block).
        pointers.removeAll(keepingCapacity: true)
        checks.append(("sqlite3_malloc", measure { for i in 0..<blocks { pointers.append(sqlite3_malloc(Int32(16 + i % 64))) } }.count))
        for pointer in pointers { sqlite3_free(pointer) }
        // The Swift runtime (swift_allocObject → swift_slowAlloc → malloc).
        var boxes: [AllocationCheckBox] = []
        boxes.reserveCapacity(blocks)
        checks.append(("Swift objects", measure { for i in 0..<blocks { boxes.append(AllocationCheckBox(i)) } }.count))
        guard boxes.reduce(0, { $0 &+ $1.value }) == blocks * (blocks - 1) / 2 else { throw BenchError("self-check: lost boxes") }
        boxes.removeAll()
        // Another thread: DatabasePool may read on threads of its own.
        pointers.removeAll(keepingCapacity: true)
        let thread = AllocationCheckThread(blocks: blocks)
        checks.append(("another thread", measure { thread.runAndWait() }.count))
        thread.freeAll()

        for (name, count) in checks {
            let expected: UInt64 = name == "nothing" ? 0 : UInt64(blocks)
            let honest = name == "nothing" ? count.allocations == 0 : count.allocations >= expected
            guard honest else {
                throw BenchError(
                    "allocation counting does not work: \(name) counted \(count.allocations) allocations, expected "
                        + (name == "nothing" ? "0" : "at least \(blocks)") + " — no allocation report")
            }
        }
        return checks.map { "\($0.0) \($0.1.allocations)" }.joined(separator: ", ") + " (of \(blocks) blocks each)"
    }
}

final class AllocationCheckBox {
    let value: Int
    init(_ value: Int) { self.value = value }
}

/// Allocates blocks with malloc on a thread of its own.
final class AllocationCheckThread: @unchecked Sendable {
    let blocks: Int
    // Written by the thread only, read after `done` is signalled.
    var pointers: [UnsafeMutableRawPointer?] = []
    let done = DispatchSemaphore(value: 0)

    init(blocks: Int) {
        self.blocks = blocks
        pointers.reserveCapacity(blocks)
    }

    func runAndWait() {
        let thread = Thread { [self] in
            for i in 0..<blocks { pointers.append(malloc(16 + i % 64)) }
            done.signal()
        }
        thread.start()
        done.wait()
    }

    func freeAll() {
        for pointer in pointers { free(pointer) }
        pointers.removeAll()
    }
}

extension QuarryBench {
    /// The workloads `--count-allocations` runs by default: the reads.
    static let allocationWorkloads: [Workload] = [.fetchAll, .fetchByKey, .eagerLoad, .cursor]

    /// The rows a workload fetches (or writes), the denominator of the
    /// allocation report: 2 and 8 every row of the table, 3 one row per key,
    /// 7 the items (raw's 100 categories are not counted as rows), 4 what its
    /// queries return (computed on the seeded file), 1, 5, 6, 9 the rows written.
    func allocationRows(_ workload: Workload, sizes: Sizes, template: String) throws -> Int {
        switch workload {
        case .filterOrderLimit:
            var handle: OpaquePointer?
            guard sqlite3_open(template, &handle) == SQLITE_OK, let db = handle else { throw BenchError("cannot open \(template)") }
            defer { sqlite3_close(db) }
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT min(100, count(*)) FROM item WHERE i1 > ?", -1, &statement, nil)
            defer { sqlite3_finalize(statement) }
            var rows = 0
            for query in 0..<sizes.filterQueries {
                sqlite3_bind_int64(statement, 1, Int64((query &* sizes.filterStep) % 990))
                guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("count failed") }
                rows += Int(sqlite3_column_int64(statement, 0))
                sqlite3_reset(statement)
            }
            return rows
        default:
            return sizes.operations(workload)
        }
    }

    /// For each workload and contender: one warm-up run, then one run whose
    /// allocations are counted; the same checks of equal work as the timed
    /// runs. Prints allocations and bytes per row.
    func runAllocationCounts(
        workloads: [Workload], selected: [any Contender], sizes: Sizes, directory: URL, resultsPath: String?
    ) throws {
        let check = try AllocationCount.selfCheck()
        print("allocation counter self-check: \(check)")
        var results: [(workload: Workload, contender: String, rows: Int, count: AllocationCount)] = []
        for workload in workloads {
            let template = directory.appendingPathComponent("template-\(workload.rawValue).sqlite").path
            try Seeder.create(path: template, rows: workload.seedCount(sizes))
            defer { removeDatabase(template) }
            let rows = try allocationRows(workload, sizes: sizes, template: template)
            var expected: (checksum: Int64, summary: String, contender: String)?
            for contender in selected {
                for counted in [false, true] {
                    let path = directory.appendingPathComponent("\(workload.rawValue)-\(contender.name)-\(counted ? "counted" : "warm-up").sqlite").path
                    try FileManager.default.copyItem(atPath: template, toPath: path)
                    let prepared = try contender.prepare(workload, path: path, sizes: sizes)
                    let checksum: Int64
                    if counted {
                        let (result, count) = try AllocationCount.measure { try prepared.run() }
                        checksum = result
                        results.append((workload, contender.name, rows, count))
                    } else {
                        checksum = try prepared.run()
                    }
                    try finishRun(
                        prepared, path: path, checksum: checksum, workload: workload, contender: contender.name,
                        expected: &expected)
                }
            }
            print("checked: \(workload.title) — all contenders agree (checksum \(expected?.checksum ?? 0))")
        }
        if let resultsPath {
            // The one source of the allocations table (Benchmarks/scripts/tables.py).
            var csv = "# quarry-bench --count-allocations run of \(ISO8601DateFormatter().string(from: Date()))"
            if let commit = Self.gitCommit() { csv += ", Quarry commit \(commit)" }
            csv += "\nworkload,contender,rows,allocations,reallocations,bytes\n"
            for result in results {
                csv += "\(result.workload.title),\(result.contender),\(result.rows),\(result.count.allocations),"
                    + "\(result.count.reallocations),\(result.count.bytes)\n"
            }
            try csv.write(toFile: resultsPath, atomically: true, encoding: .utf8)
            print("quarry-bench: wrote \(resultsPath)")
        }
        print("")
        print("| workload | contender | rows | allocations | allocations per row | of which realloc per row | bytes per row | allocations ÷ raw |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for result in results {
            let perRow = Double(result.count.allocations) / Double(result.rows)
            let raw = results.first { $0.workload == result.workload && $0.contender == "raw" }
            let ratio = raw.map { Double(result.count.allocations) / Double($0.count.allocations) } ?? .nan
            print(
                "| \(result.workload.title) | \(result.contender) | \(result.rows) | \(result.count.allocations) | \(format(perRow, 2)) | "
                    + "\(format(Double(result.count.reallocations) / Double(result.rows), 3)) | "
                    + "\(format(Double(result.count.bytes) / Double(result.rows), 0)) | \(format(ratio, 2))x |")
        }
    }
}
