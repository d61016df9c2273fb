// Out of memory: the process helper caps SQLite's heap
// (sqlite3_hard_heap_limit64, process-wide, hence another process) and
// writes and reads through a DatabaseQueue and a DatabasePool under caps from
// 4 KiB to 4 MiB. The helper must end on its own, with every failure a
// thrown DatabaseError, and the file intact with every acknowledged write
// (Tests/ProcessHelper/OutOfMemoryWriter.swift).

import Foundation
import Testing

@Suite("Out of memory")
struct OutOfMemoryTests {
    @Test("A capped SQLite heap throws SQLITE_NOMEM errors, never crashes, and loses no acknowledged write")
    func cappedHeap() throws {
        let directory = try TemporaryDirectory()
        let rounds = HostileTestSettings.isLong ? 20 : 2
        let run = try CrashHelperRun(
            executable: try crashHelperExecutable(), arguments: ["out-of-memory", directory.url.path, "\(rounds)"])
        let (ending, endedOnItsOwn) = run.waitForExit(timeout: HostileTestSettings.isLong ? 1200 : 240)
        let lines = run.receivedLines
        #expect(endedOnItsOwn, "the helper did not end within its bound: \(lines.suffix(5))")
        #expect(ending == .exited(0), "\(ending); last lines: \(lines.suffix(8)); stderr: \(run.errorText)")
        let summary = try #require(lines.first { $0.hasPrefix("summary ") }, "no summary: \(lines.suffix(8))")
        print("Out of memory: \(summary)")
        let words = summary.split(separator: " ").map(String.init)
        func count(_ name: String) -> Int {
            guard let index = words.firstIndex(of: name), index + 1 < words.count else { return -1 }
            return Int(words[index + 1]) ?? -1
        }
        // Both outcomes happened: the small caps failed with SQLITE_NOMEM,
        // the large ones let the writes through.
        #expect(count("nomem") > 0)
        #expect(count("ok") > 0)
        #expect(count("acknowledged") > 0)
        #expect(count("attempts") == count("ok") + count("nomem") + count("other"))
        let checks = lines.filter { $0.hasPrefix("check ") }
        #expect(checks.count == 2, "\(checks)")
        for check in checks {
            #expect(check.contains("integrity ok") && check.hasSuffix("missing 0"), "\(check)")
        }
    }
}
