// quarry-bench: runs each workload for each contender on fresh databases,
// checks that they all did the same work, and prints medians and ratios.
//
//     swift run -c release --package-path Benchmarks quarry-bench
//     swift run --package-path Benchmarks quarry-bench --smoke      (CI: checks only)
//     swift run -c release --package-path Benchmarks quarry-bench --curve   (cost curves → results/cost-curves.csv)
//     swift run -c release --package-path Benchmarks quarry-bench --postgres   (PostgreSQL: PostgresMode.swift)

import ArgumentParser
import Foundation

@main
struct QuarryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarry-bench", abstract: "Benchmarks Quarry against raw SQLite C code, GRDB and Fluent.")

    @Flag(help: "Tiny sizes, one repetition: checks that every contender does the same work; timings mean nothing.")
    var smoke = false

    @Option(help: "Timed repetitions per workload and contender, after one warm-up (default: 5, 3 with --curve).")
    var repetitions: Int?

    @Option(help: "Workloads to run, e.g. 1,2,7 (default: all, 1 to 10; with --curve: 1,2,3,4,5,6,8,9; with --postgres: 1 to 5).")
    var workloads: String?

    @Option(help: "Contenders to run: raw,grdb-codable,quarry-codable,quarry-instrumented,fluent (default: all; with --curve: the first three), and quarry-traced; with --postgres: raw-postgresnio,quarry-postgres,fluent-postgres.")
    var contenders: String?

    @Option(help: "Workload 10: the numbers of parallel readers.")
    var readers = "1,2,4,8"

    @Option(help: "Workload 10: read transactions per reader (default 200).")
    var readBatches: Int?

    @Option(help: "Workload 10: fetches by primary key per read transaction (default 100).")
    var readBatchSize: Int?

    @Option(help: "SQLite page cache per connection, in KiB, for every contender (default: SQLite's, 2,000 KiB).")
    var cacheSize: Int?

    @Flag(help: "Cost curves: runs the workloads at each of --curve-rows and writes the medians to --curve-output.")
    var curve = false

    @Option(help: "Row counts of the cost curves (k and M suffixes allowed; default 1k,10k,100k,1M, or 100,1k with --smoke).")
    var curveRows: String?

    @Option(help: "CSV file of the cost curves (default: Benchmarks/results/cost-curves.csv, cost-curves-cache-<KiB>KiB.csv with --cache-size, or a temporary file with --smoke).")
    var curveOutput: String?

    @Option(help: "CSV file of the table's figures, from which scripts/tables.py writes the README tables (default: Benchmarks/results/latest-run.csv for a run of workloads 1 to 9 without --smoke, with --postgres results/postgres/latest-run.csv for a run of workloads 1 to 5 without --smoke; otherwise none; with --count-allocations, the counts, for results/allocations.csv).")
    var results: String?

    @Flag(help: "PostgreSQL mode: workloads 1 to 5 against the server of --postgres-url, contenders raw-postgresnio, quarry-postgres and fluent-postgres (PostgresMode.swift); with --smoke, skips when there is no server.")
    var postgres = false

    @Option(help: "The PostgreSQL server of --postgres, as a postgres:// URL (default: $QUARRY_POSTGRES_URL).")
    var postgresURL: String?

    @Flag(help: "Counts heap allocations (malloc & co.) instead of timing: one warm-up and one counted run per workload and contender; prints allocations and bytes per row (default workloads: 2,3,7,8).")
    var countAllocations = false

    @Option(help: .hidden)
    var rssChild: String?

    @Option(help: .hidden)
    var rssPath: String?

    static let allContenders: [any Contender] = [
        RawContender(), GRDBContender(), QuarryContender(),
        QuarryContender(name: "quarry-instrumented", instrumentation: .noBackend), FluentContender(),
    ]

    /// Contenders that run only when named in `--contenders`.
    static let contendersOnRequest: [any Contender] = [
        QuarryContender(name: "quarry-traced", instrumentation: .discardingBackend)
    ]

    /// The number of the concurrent-reads workload in `--workloads`.
    static let concurrentReadsWorkload = 10

    func run() throws {
        if postgres {
            guard !curve, !countAllocations, cacheSize == nil, rssChild == nil else {
                throw ValidationError("--postgres goes with --smoke, --workloads, --contenders, --repetitions and --results only")
            }
            try runPostgres()
            return
        }
        guard postgresURL == nil else { throw ValidationError("--postgres-url goes with --postgres") }
        var sizes = smoke ? Sizes.smoke : Sizes.full
        sizes.cacheSizeKiB = cacheSize
        if let rssChild, let rssPath {
            try measureCursorMemory(contender: rssChild, path: rssPath, sizes: sizes)
            return
        }
        var concurrentReads = workloads == nil && !curve
        let selectedWorkloads = try workloads.map { list in
            try list.split(separator: ",").compactMap { item -> Workload? in
                if Int(item) == Self.concurrentReadsWorkload {
                    concurrentReads = true
                    return nil
                }
                guard let number = Int(item), let workload = Workload(rawValue: number) else {
                    throw ValidationError("unknown workload \(item)")
                }
                return workload
            }
        } ?? (curve ? [.insert, .fetchAll, .fetchByKey, .filterOrderLimit, .update, .delete, .cursor, .insertAll] : Workload.allCases)
        let defaultNames = curve ? ["raw", "grdb-codable", "quarry-codable"] : Self.allContenders.map(\.name)
        let names = contenders.map { $0.split(separator: ",").map(String.init) } ?? defaultNames
        let selected = (Self.allContenders + Self.contendersOnRequest).filter { names.contains($0.name) }
        guard !selected.isEmpty else { throw ValidationError("no known contender in \(names)") }
        if countAllocations {
            guard !curve else { throw ValidationError("--count-allocations and --curve do not go together") }
            guard workloads == nil || !concurrentReads else { throw ValidationError("--count-allocations: workload 10 is not counted") }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            print("quarry-bench: counting allocations\(smoke ? " (smoke sizes)" : ""), one warm-up and one counted run each")
            try runAllocationCounts(
                workloads: workloads == nil ? Self.allocationWorkloads : selectedWorkloads, selected: selected, sizes: sizes,
                directory: directory, resultsPath: results)
            return
        }
        let repetitions = smoke ? 1 : max(1, self.repetitions ?? (curve ? 3 : 5))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("quarry-bench: \(smoke ? "smoke mode (checks only)" : "\(repetitions) repetitions after a warm-up"), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        if curve {
            try runCurves(workloads: selectedWorkloads, selected: selected, repetitions: repetitions, directory: directory)
            return
        }
        var results: [(Workload, String, [Double])] = []
        for workload in selectedWorkloads {
            let times = try runWorkload(workload, sizes: sizes, selected: selected, repetitions: repetitions, directory: directory)
            for contender in selected { results.append((workload, contender.name, times[contender.name] ?? [])) }
        }
        if !results.isEmpty {
            printTable(results)
            try writeResults(results, selectedWorkloads: selectedWorkloads, repetitions: repetitions)
        }
        if concurrentReads {
            try runConcurrentReads(selected: selected, repetitions: repetitions, directory: directory)
        }
        if !smoke, selectedWorkloads.contains(.cursor) {
            try printMemory(selected: selected, directory: directory, sizes: sizes)
        }
    }

    /// Runs one workload for every contender: a warm-up round (not timed in
    /// full mode), then the timed rounds, rotating which contender goes first.
    /// Every run starts from a copy of the same seeded file, and must return
    /// the same checksum and leave the table in the same state as the others.
    /// Returns the times in milliseconds, by contender.
    func runWorkload(
        _ workload: Workload, sizes: Sizes, selected: [any Contender], repetitions: Int, directory: URL
    ) throws -> [String: [Double]] {
        let template = directory.appendingPathComponent("template-\(workload.rawValue).sqlite").path
        try Seeder.create(path: template, rows: workload.seedCount(sizes))
        defer { removeDatabase(template) }
        var times: [String: [Double]] = [:]
        var expected: (checksum: Int64, summary: String, contender: String)?
        for round in 0..<(smoke ? 1 : repetitions + 1) {
            let order = selected.indices.map { selected[($0 + round) % selected.count] }
            for contender in order {
                let path = directory.appendingPathComponent("\(workload.rawValue)-\(contender.name)-\(round).sqlite").path
                try FileManager.default.copyItem(atPath: template, toPath: path)
                let prepared = try contender.prepare(workload, path: path, sizes: sizes)
                let start = DispatchTime.now().uptimeNanoseconds
                let checksum = try prepared.run()
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                try finishRun(prepared, path: path, checksum: checksum, workload: workload, contender: contender.name, expected: &expected)
                if smoke || round > 0 { times[contender.name, default: []].append(elapsed) }
            }
        }
        print("checked: \(workload.title) — all contenders agree (checksum \(expected?.checksum ?? 0))")
        return times
    }

    /// Closes a run, removes its database and checks that the contender did
    /// the same work as the first one: the same checksum and the same table
    /// afterwards (`expected` holds the first contender's).
    func finishRun(
        _ prepared: PreparedRun, path: String, checksum: Int64, workload: Workload, contender: String,
        expected: inout (checksum: Int64, summary: String, contender: String)?
    ) throws {
        prepared.close()
        let summary = try Seeder.summary(path: path)
        removeDatabase(path)
        if let expected, expected.checksum != checksum || expected.summary != summary {
            throw BenchError(
                "\(workload.title): \(contender) did not do the same work as \(expected.contender) "
                    + "(checksum \(checksum) vs \(expected.checksum), table \(summary) vs \(expected.summary))")
        }
        expected = (checksum, summary, contender)
    }

    func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // MARK: Workload 10, concurrent reads

    func runConcurrentReads(selected: [any Contender], repetitions: Int, directory: URL) throws {
        let counts = try readers.split(separator: ",").map { item in
            guard let count = Int(item), count > 0 else { throw ValidationError("bad reader count \(item)") }
            return count
        }
        let template = directory.appendingPathComponent("template-concurrent.sqlite").path
        let rows = (smoke ? ReadPlan.smoke(readers: 1) : ReadPlan.full(readers: 1)).rows
        try Seeder.create(path: template, rows: rows)
        defer { removeDatabase(template) }
        let seededSummary = try Seeder.summary(path: template)
        var medians: [(readers: Int, plan: ReadPlan, ms: [String: Double], cores: [String: Double])] = []
        for count in counts {
            var plan = smoke ? ReadPlan.smoke(readers: count) : ReadPlan.full(readers: count)
            if let readBatches { plan.batches = max(1, readBatches) }
            if let readBatchSize { plan.batchSize = max(1, readBatchSize) }
            plan.cacheSizeKiB = cacheSize
            var times: [String: [Double]] = [:]
            var cores: [String: [Double]] = [:]
            var expected: (checksum: Int64, contender: String)?
            for round in 0..<(smoke ? 1 : repetitions + 1) {
                let order = selected.indices.map { selected[($0 + round) % selected.count] }
                for contender in order {
                    let path = directory.appendingPathComponent("10-\(count)-\(contender.name)-\(round).sqlite").path
                    try FileManager.default.copyItem(atPath: template, toPath: path)
                    let (elapsed, checksum, cpu) = try measureConcurrentReads(contender, path: path, plan: plan)
                    let summary = try Seeder.summary(path: path)
                    removeDatabase(path)
                    if let expected, expected.checksum != checksum {
                        throw BenchError(
                            "10 concurrent reads (\(count) readers): \(contender.name) did not do the same work as "
                                + "\(expected.contender) (checksum \(checksum) vs \(expected.checksum))")
                    }
                    guard summary == seededSummary else { throw BenchError("10 concurrent reads: \(contender.name) changed the table") }
                    expected = (checksum, contender.name)
                    if smoke || round > 0 {
                        times[contender.name, default: []].append(elapsed)
                        cores[contender.name, default: []].append(cpu / elapsed)
                    }
                }
            }
            print("checked: 10 concurrent reads, \(count) readers × \(plan.batches) transactions × \(plan.batchSize) fetches — all contenders agree (checksum \(expected?.checksum ?? 0))")
            medians.append((count, plan, times.mapValues(median), cores.mapValues(median)))
        }
        print("")
        print("10 concurrent reads: \(rows) rows; each reader runs \(medians.first?.plan.batches ?? 0) read transactions of \(medians.first?.plan.batchSize ?? 0) fetches by primary key; \(ProcessInfo.processInfo.activeProcessorCount) cores.")
        let others = selected.filter { $0.name != "raw" }
        print("")
        print("| readers | " + selected.map { "\($0.name) reads/s" }.joined(separator: " | ") + " | "
            + others.map { "\($0.name) time ÷ raw" }.joined(separator: " | ") + " |")
        print("|---:|" + String(repeating: "---:|", count: selected.count + others.count))
        for (count, plan, ms, _) in medians {
            func rate(_ name: String) -> Double { Double(plan.totalReads) / ((ms[name] ?? .nan) / 1_000) }
            let rates = selected.map { format(rate($0.name), 0) }
            let ratios = others.map { format(rate("raw") / rate($0.name), 2) + "x" }
            print("| \(count) | " + (rates + ratios).joined(separator: " | ") + " |")
        }
        // How much CPU the readers got: on a shared machine, fewer cores than readers.
        print("")
        print("| readers | " + selected.map { "\($0.name) CPU (cores busy)" }.joined(separator: " | ") + " |")
        print("|---:|" + String(repeating: "---:|", count: selected.count))
        for (count, _, _, cores) in medians {
            print("| \(count) | " + selected.map { format(cores[$0.name] ?? .nan, 2) }.joined(separator: " | ") + " |")
        }
        // The results file of the README's table: a full run with the
        // default plan only (other plans answer other questions).
        guard !smoke, readBatches == nil, readBatchSize == nil, cacheSize == nil, let plan = medians.first?.plan else { return }
        var csv = provenanceLine(repetitions: repetitions)
            + ", \(rows) rows, \(plan.batches) read transactions of \(plan.batchSize) fetches by primary key per reader\n"
        csv += "readers,contender,median_ms,reads_per_second,ratio_to_raw,cores_busy\n"
        for (count, plan, ms, cores) in medians {
            for contender in selected {
                let value = ms[contender.name] ?? .nan
                let rate = Double(plan.totalReads) / (value / 1_000)
                csv += "\(count),\(contender.name),\(format(value)),\(format(rate, 0)),\(format(value / (ms["raw"] ?? .nan), 2)),\(format(cores[contender.name] ?? .nan, 2))\n"
            }
        }
        try writeResultsFile(csv, named: "concurrent-reads.csv")
    }

    // MARK: Cost curves

    func runCurves(workloads: [Workload], selected: [any Contender], repetitions: Int, directory: URL) throws {
        let rowCounts = try (curveRows ?? (smoke ? "100,1k" : "1k,10k,100k,1M")).split(separator: ",").map { item in
            var text = item.lowercased()
            var factor = 1
            if text.hasSuffix("k") { factor = 1_000; text.removeLast() } else if text.hasSuffix("m") { factor = 1_000_000; text.removeLast() }
            guard let value = Int(text), value > 0 else { throw ValidationError("bad row count \(item)") }
            return value * factor
        }
        let output = curveOutput.map { URL(fileURLWithPath: $0) }
            ?? (smoke
                ? directory.appendingPathComponent("cost-curves.csv")
                : URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("results/cost-curves\(cacheSize.map { "-cache-\($0)KiB" } ?? "").csv"))
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        var csv = "workload,contender,rows,median_ms,ns_per_row,operations,min_ms\n"
        try csv.write(to: output, atomically: true, encoding: .utf8)
        print("cost curves: workloads \(workloads.map { String($0.rawValue) }.joined(separator: ",")) at \(rowCounts.map(String.init).joined(separator: ", ")) rows → \(output.path)")
        for workload in workloads {
            for rows in rowCounts {
                var sizes = Sizes.curve(rows: rows)
                sizes.cacheSizeKiB = cacheSize
                let started = Date()
                let times = try runWorkload(workload, sizes: sizes, selected: selected, repetitions: repetitions, directory: directory)
                var line = "  \(workload.title) @ \(rows) rows (\(format(Date().timeIntervalSince(started), 0)) s):"
                for contender in selected {
                    let values = times[contender.name] ?? []
                    let value = median(values)
                    let nsPerRow = value * 1_000_000 / Double(sizes.operations(workload))
                    csv += "\(workload.title),\(contender.name),\(rows),\(format(value, 3)),\(format(nsPerRow, 1)),\(sizes.operations(workload)),\(format(values.min() ?? .nan, 3))\n"
                    line += " \(contender.name) \(format(value, 1)) ms (\(format(nsPerRow, 0)) ns/row)"
                }
                print(line)
                try csv.write(to: output, atomically: true, encoding: .utf8)
            }
        }
        print("wrote \(output.path)")
    }

    /// Writes the table's figures to the results file, the one source of
    /// the README tables (Benchmarks/scripts/tables.py): by default after a
    /// full run of workloads 1 to 9, never for a smoke run unless asked.
    func writeResults(_ results: [(Workload, String, [Double])], selectedWorkloads: [Workload], repetitions: Int) throws {
        let fullRun = Set((1...9).compactMap(Workload.init(rawValue:))).isSubset(of: Set(selectedWorkloads))
        let path: String
        if let results = self.results {
            path = results
        } else if !smoke && fullRun {
            path = Self.resultsDirectory.appendingPathComponent("latest-run.csv").path
        } else {
            return
        }
        var csv = provenanceLine(repetitions: repetitions)
        csv += "\nworkload,contender,min_ms,median_ms,ratio_to_raw,ratio_to_grdb\n"
        for (workload, contender, times) in results {
            let raw = median(results.first { $0.0 == workload && $0.1 == "raw" }?.2 ?? [])
            let grdb = median(results.first { $0.0 == workload && $0.1 == "grdb-codable" }?.2 ?? [])
            let value = median(times)
            csv += "\(workload.title),\(contender),\(format(times.min() ?? .nan)),\(format(value)),\(format(value / raw, 2)),\(format(value / grdb, 2))\n"
        }
        try writeResultsFile(csv, toPath: path)
    }

    /// Benchmarks/results, where the results files live.
    static var resultsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("results")
    }

    /// The first line of a results file: when, where and what ran.
    func provenanceLine(repetitions: Int) -> String {
        var line = "# quarry-bench run of \(ISO8601DateFormatter().string(from: Date()))"
        line += ", \(ProcessInfo.processInfo.activeProcessorCount) cores, \(repetitions) repetition\(repetitions == 1 ? "" : "s")\(smoke ? ", smoke sizes" : "")"
        if let commit = Self.gitCommit() { line += ", Quarry commit \(commit)" }
        return line
    }

    /// Writes `csv` to `results/<name>` (the source of a README table).
    func writeResultsFile(_ csv: String, named name: String) throws {
        try writeResultsFile(csv, toPath: Self.resultsDirectory.appendingPathComponent(name).path)
    }

    /// Writes `csv`, a results file, to `path`.
    func writeResultsFile(_ csv: String, toPath path: String) throws {
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        print("wrote \(path) (python3 Benchmarks/scripts/tables.py --write updates the README tables from it)")
    }

    /// The short commit of the repository the benchmark runs in, or nil.
    static func gitCommit() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", URL(fileURLWithPath: #filePath).deletingLastPathComponent().path, "rev-parse", "--short", "HEAD"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func printTable(_ results: [(Workload, String, [Double])]) {
        print("")
        print("| workload | contender | min ms | median ms | ratio to raw | ratio to GRDB Codable |")
        print("|---|---|---:|---:|---:|---:|")
        for (workload, contender, times) in results {
            let raw = median(results.first { $0.0 == workload && $0.1 == "raw" }?.2 ?? [])
            let grdb = median(results.first { $0.0 == workload && $0.1 == "grdb-codable" }?.2 ?? [])
            let value = median(times)
            print("| \(workload.title) | \(contender) | \(format(times.min() ?? .nan)) | \(format(value)) | \(format(value / raw, 2))x | \(format(value / grdb, 2))x |")
        }
    }

    /// Peak memory of workload 8 per contender, each in a process of its own;
    /// written to results/cursor-memory.csv, the source of the README's table
    /// (run only in full runs).
    func printMemory(selected: [any Contender], directory: URL, sizes: Sizes) throws {
        let path = directory.appendingPathComponent("rss.sqlite").path
        try Seeder.create(path: path, rows: sizes.cursor)
        print("")
        print("| contender | VmHWM before cursor (MiB) | VmHWM after \(sizes.cursor) rows (MiB) | growth (MiB) |")
        print("|---|---:|---:|---:|")
        var csv = provenanceLine(repetitions: 1) + ", \(sizes.cursor) rows, each contender in a process of its own\n"
        csv += "contender,before_mib,after_mib,growth_mib\n"
        for contender in selected {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--rss-child", contender.name, "--rss-path", path] + (smoke ? ["--smoke"] : [])
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            process.waitUntilExit()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let numbers = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            guard process.terminationStatus == 0, numbers.count == 2 else {
                throw BenchError("the memory run of \(contender.name) failed (status \(process.terminationStatus), output \(output))")
            }
            let figures = [numbers[0] / 1024, numbers[1] / 1024, (numbers[1] - numbers[0]) / 1024].map { format($0, 1) }
            print("| \(contender.name) | " + figures.joined(separator: " | ") + " |")
            csv += "\(contender.name)," + figures.joined(separator: ",") + "\n"
        }
        if cacheSize == nil { try writeResultsFile(csv, named: "cursor-memory.csv") }
    }

    func measureCursorMemory(contender name: String, path: String, sizes: Sizes) throws {
        guard let contender = (Self.allContenders + Self.contendersOnRequest).first(where: { $0.name == name }) else { throw ValidationError("unknown contender \(name)") }
        let prepared = try contender.prepare(.cursor, path: path, sizes: sizes)
        let before = peakResidentKiB()
        _ = try prepared.run()
        let after = peakResidentKiB()
        prepared.close()
        print(before, after)
    }
}

/// VmHWM from /proc/self/status, in KiB.
func peakResidentKiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Double(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "0") ?? 0
    }
    return 0
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func format(_ value: Double, _ digits: Int = 1) -> String {
    value.isFinite ? String(format: "%.\(digits)f", value) : "—"
}
