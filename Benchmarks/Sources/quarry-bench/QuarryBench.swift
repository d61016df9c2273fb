// quarry-bench: runs each workload for each contender on fresh databases,
// checks that they all did the same work, and prints medians and ratios.
//
//     swift run -c release --package-path Benchmarks quarry-bench
//     swift run --package-path Benchmarks quarry-bench --smoke      (CI: checks only)

import ArgumentParser
import Foundation

@main
struct QuarryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarry-bench", abstract: "Benchmarks Quarry against raw SQLite C code and GRDB.")

    @Flag(help: "Tiny sizes, one repetition: checks that every contender does the same work; timings mean nothing.")
    var smoke = false

    @Option(help: "Timed repetitions per workload and contender (after one warm-up).")
    var repetitions = 5

    @Option(help: "Workloads to run, e.g. 1,2,7 (default: all).")
    var workloads: String?

    @Option(help: "Contenders to run: raw,grdb-codable,quarry-codable,quarry-instrumented (default: all), and quarry-traced.")
    var contenders: String?

    @Option(help: .hidden)
    var rssChild: String?

    @Option(help: .hidden)
    var rssPath: String?

    static let allContenders: [any Contender] = [
        RawContender(), GRDBContender(), QuarryContender(),
        QuarryContender(name: "quarry-instrumented", instrumentation: .noBackend),
    ]

    /// Contenders that run only when named in `--contenders`.
    static let contendersOnRequest: [any Contender] = [
        QuarryContender(name: "quarry-traced", instrumentation: .discardingBackend)
    ]

    func run() throws {
        let sizes = smoke ? Sizes.smoke : Sizes.full
        if let rssChild, let rssPath {
            try measureCursorMemory(contender: rssChild, path: rssPath, sizes: sizes)
            return
        }
        let selectedWorkloads = try workloads.map { list in
            try list.split(separator: ",").map { item in
                guard let number = Int(item), let workload = Workload(rawValue: number) else {
                    throw ValidationError("unknown workload \(item)")
                }
                return workload
            }
        } ?? Workload.allCases
        let names = contenders.map { $0.split(separator: ",").map(String.init) } ?? Self.allContenders.map(\.name)
        let selected = (Self.allContenders + Self.contendersOnRequest).filter { names.contains($0.name) }
        let repetitions = smoke ? 1 : max(1, self.repetitions)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print("quarry-bench: \(smoke ? "smoke mode (checks only)" : "\(repetitions) repetitions after a warm-up"), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        var results: [(Workload, String, [Double])] = []
        for workload in selectedWorkloads {
            var times: [String: [Double]] = [:]
            var expected: (checksum: Int64, summary: String, contender: String)?
            // Warm-up round (not timed in full mode), then the timed rounds,
            // rotating which contender goes first.
            for round in 0..<(smoke ? 1 : repetitions + 1) {
                let order = selected.indices.map { selected[($0 + round) % selected.count] }
                for contender in order {
                    let path = directory.appendingPathComponent("\(workload.rawValue)-\(contender.name)-\(round).sqlite").path
                    try Seeder.create(path: path, rows: workload.seedCount(sizes))
                    let prepared = try contender.prepare(workload, path: path, sizes: sizes)
                    let start = DispatchTime.now().uptimeNanoseconds
                    let checksum = try prepared.run()
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                    prepared.close()
                    let summary = try Seeder.summary(path: path)
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                    if let expected, expected.checksum != checksum || expected.summary != summary {
                        throw BenchError(
                            "\(workload.title): \(contender.name) did not do the same work as \(expected.contender) "
                                + "(checksum \(checksum) vs \(expected.checksum), table \(summary) vs \(expected.summary))")
                    }
                    expected = (checksum, summary, contender.name)
                    if smoke || round > 0 { times[contender.name, default: []].append(elapsed) }
                }
            }
            print("checked: \(workload.title) — all contenders agree (checksum \(expected?.checksum ?? 0))")
            for contender in selected { results.append((workload, contender.name, times[contender.name] ?? [])) }
        }
        printTable(results)
        if !smoke, selectedWorkloads.contains(.cursor) {
            try printMemory(selected: selected, directory: directory, sizes: sizes)
        }
    }

    func printTable(_ results: [(Workload, String, [Double])]) {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return .nan }
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
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

    /// Peak memory of workload 8 per contender, each in a process of its own.
    func printMemory(selected: [any Contender], directory: URL, sizes: Sizes) throws {
        let path = directory.appendingPathComponent("rss.sqlite").path
        try Seeder.create(path: path, rows: sizes.cursor)
        print("")
        print("| contender | VmHWM before cursor (MiB) | VmHWM after \(sizes.cursor) rows (MiB) | growth (MiB) |")
        print("|---|---:|---:|---:|")
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
            guard numbers.count == 2 else {
                print("| \(contender.name) | ? | ? | ? |")
                continue
            }
            print("| \(contender.name) | \(format(numbers[0] / 1024, 1)) | \(format(numbers[1] / 1024, 1)) | \(format((numbers[1] - numbers[0]) / 1024, 1)) |")
        }
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

func format(_ value: Double, _ digits: Int = 1) -> String {
    value.isFinite ? String(format: "%.\(digits)f", value) : "—"
}
