// Support of the crash-safety tests: starts the QuarryProcessHelper
// executable, collects its stdout lines as they arrive, kills it with SIGKILL
// and always reaps it.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An error of the crash-test support, with a message for the test report.
struct CrashSupportError: Error, CustomStringConvertible {
    let description: String
}

/// Finds the helper executable, which `swift test` builds next to the test
/// bundle; `QUARRY_PROCESS_HELPER` overrides the location.
func crashHelperExecutable() throws -> URL {
    let name = "QuarryProcessHelper"
    if let override = ProcessInfo.processInfo.environment["QUARRY_PROCESS_HELPER"] {
        return URL(fileURLWithPath: override)
    }
    var directories: [URL] = []
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
    }
    if let first = CommandLine.arguments.first {
        directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
    }
    directories.append(Bundle.main.bundleURL)
    directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for directory in directories {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw CrashSupportError(description: """
        the helper executable \(name) was not found next to the test executable (looked in \
        \(directories.map(\.path).joined(separator: ", "))); build it with `swift build --build-tests` \
        or set QUARRY_PROCESS_HELPER to its path
        """)
}

/// One run of the helper: its stdout lines, collected on a background thread.
final class CrashHelperRun: @unchecked Sendable {
    /// How the run ended.
    enum Ending: Equatable, CustomStringConvertible {
        case killed
        case exited(Int32)
        case signal(Int32)

        var description: String {
            switch self {
            case .killed: return "killed by SIGKILL"
            case .exited(let status): return "exited with status \(status)"
            case .signal(let signal): return "killed by signal \(signal)"
            }
        }
    }

    private let process = Process()
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var lines: [String] = []
    private var pending = Data()
    private var reachedEnd = false
    private var errorOutput = Data()
    private var errorReachedEnd = false
    private var isReaped = false

    /// Starts `executable` with `arguments`; stdin is /dev/null.
    init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let reading = output.fileHandleForReading
        let errorReading = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = reading.availableData
                condition.lock()
                if data.isEmpty {
                    reachedEnd = true
                } else {
                    pending.append(data)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { break }
            }
        }
        Thread.detachNewThread { [self] in
            while true {
                let data = errorReading.availableData
                condition.lock()
                if data.isEmpty { errorReachedEnd = true } else { errorOutput.append(data) }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { break }
            }
        }
    }

    deinit {
        if !isReaped { reap() }
    }

    /// The process id of the helper.
    var processIdentifier: Int32 { process.processIdentifier }

    /// The complete lines read so far.
    var receivedLines: [String] { condition.withLock { lines } }

    /// What the helper wrote on stderr so far, for failure messages.
    var errorText: String { condition.withLock { String(decoding: errorOutput, as: UTF8.self) } }

    /// Waits until a line satisfies `predicate`, stdout ends, or `timeout`
    /// passes; returns whether such a line was seen.
    func waitForLine(timeout: TimeInterval, where predicate: (String) -> Bool) -> Bool {
        let limit = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = 0
        while true {
            while checked < lines.count {
                if predicate(lines[checked]) { return true }
                checked += 1
            }
            if reachedEnd { return false }
            if !condition.wait(until: limit) { return lines[checked...].contains(where: predicate) }
        }
    }

    /// Sends SIGKILL (if the helper still runs), waits for it to end and for
    /// both of its pipes to close, then tells how it ended.
    @discardableResult
    func killAndReap() -> Ending {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        return reap()
    }

    /// Waits for the helper to end on its own, up to `timeout`; kills it
    /// after that. Returns how it ended and whether it ended on its own.
    func waitForExit(timeout: TimeInterval) -> (ending: Ending, endedOnItsOwn: Bool) {
        let limit = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < limit {
            Thread.sleep(forTimeInterval: 0.005)
        }
        let endedOnItsOwn = !process.isRunning
        return (killAndReap(), endedOnItsOwn)
    }

    @discardableResult
    private func reap() -> Ending {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        // The pipes reach their end once the helper is gone (it starts no
        // other process); wait for the reader threads so no line is lost.
        condition.lock()
        let limit = Date().addingTimeInterval(30)
        while !(reachedEnd && errorReachedEnd), condition.wait(until: limit) {}
        isReaped = true
        condition.unlock()
        switch process.terminationReason {
        case .uncaughtSignal:
            let signal = process.terminationStatus
            return signal == SIGKILL ? .killed : .signal(signal)
        case .exit:
            return .exited(process.terminationStatus)
        @unknown default:
            return .exited(process.terminationStatus)
        }
    }
}
