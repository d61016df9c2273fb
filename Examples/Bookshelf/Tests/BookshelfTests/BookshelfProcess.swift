// Test support: a `bookshelf serve` server in a process of its own — the
// executable this package builds, found next to the test bundle — on a port
// it picks itself (`--port 0`, read back from its "listening on" log line),
// for the tests of several processes sharing one database. Every wait is
// bounded; `stop()` (also run on deinit) sends SIGTERM, then SIGKILL.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `bookshelf serve --database <database> --port 0` process.
final class BookshelfProcess: Sendable {
    enum ProcessError: Error, CustomStringConvertible {
        case executableNotFound([String])
        case exited(status: Int32, output: String)
        case timeout(String)

        var description: String {
            switch self {
            case .executableNotFound(let places):
                "the bookshelf executable was not found (looked in \(places)); build it (swift build) or set BOOKSHELF_EXECUTABLE"
            case .exited(let status, let output): "bookshelf exited with status \(status) before listening:\n\(output)"
            case .timeout(let message): "timed out: \(message)"
            }
        }
    }

    /// `Process` is not `Sendable`; it is only touched under this lock.
    private let process: Mutex<Process>
    /// What the process wrote to stdout and stderr (its log), so far.
    private final class Output: Sendable {
        let data = Mutex(Data())
    }

    private let output = Output()
    /// The label of the process in messages (`A`, `B`).
    let name: String

    /// Starts `bookshelf serve` on `database` (a file or a `postgres://` URL),
    /// listening on 127.0.0.1 and a free port, logging at `info`. The
    /// `BOOKSHELF_*` variables of the test's environment are not passed on.
    init(name: String, database: String) throws {
        self.name = name
        let process = Process()
        process.executableURL = try Self.executableURL()
        process.arguments = ["serve", "--database", database, "--hostname", "127.0.0.1", "--port", "0", "--log-level", "info", "--no-otel"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BOOKSHELF_") }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let output = output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                output.data.withLock { $0.append(data) }
            }
        }
        try process.run()
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// The exit status, once the process ended; nil while it runs.
    var terminationStatus: Int32? { process.withLock { $0.isRunning ? nil : $0.terminationStatus } }

    /// The log so far.
    var log: String { String(decoding: output.data.withLock { $0 }, as: UTF8.self) }

    /// Waits (polling, up to `timeout`) until the server logs that it listens,
    /// and returns its port.
    ///
    /// - throws: ``ProcessError/exited(status:output:)`` when the process
    ///   ends first, ``ProcessError/timeout(_:)`` when `timeout` passes.
    func waitUntilListening(timeout: Duration = .seconds(60)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            let log = log
            if let line = log.split(separator: "\n").first(where: { $0.contains("Server started and listening on ") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                return port
            }
            if let status = terminationStatus { throw ProcessError.exited(status: status, output: log) }
            guard ContinuousClock.now < deadline else {
                throw ProcessError.timeout("bookshelf \(name) did not listen within \(timeout); its log:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the process: SIGTERM (a graceful shutdown), then SIGKILL if it
    /// still runs after `grace`. Idempotent; blocks at most about `grace`.
    func stop(grace: Duration = .seconds(5)) {
        process.withLock { process in
            guard process.isRunning else { return }
            process.terminate()
            let deadline = ContinuousClock.now + grace
            while process.isRunning, ContinuousClock.now < deadline {
                usleep(10_000)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// The `bookshelf` executable: $BOOKSHELF_EXECUTABLE if set, else the
    /// one in the build folder of the running test bundle (`swift test`
    /// builds it with the tests), found by walking up from the test runner.
    static func executableURL() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["BOOKSHELF_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var starts = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        #if os(Linux)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        var looked: [String] = []
        for start in starts {
            var directory = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("bookshelf")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                looked.append(directory.path)
                directory = directory.deletingLastPathComponent()
            }
        }
        throw ProcessError.executableNotFound(looked)
    }
}

/// A small JSON client of a `bookshelf` process (URLSession, bounded by `timeout`).
struct ProcessClient: Sendable {
    let port: Int
    var timeout: TimeInterval = 10

    /// Sends `json` with `method` to `path`; returns the status and the body.
    func send(_ method: String, _ path: String, json: String? = nil) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return (try #require(response as? HTTPURLResponse).statusCode, data)
    }

    /// POSTs `json` to `path`, expects 201, and returns the `id` of the created row.
    func create(_ path: String, json: String) async throws -> Int64 {
        let (status, body) = try await send("POST", path, json: json)
        #expect(status == 201, "POST \(path): \(String(decoding: body, as: UTF8.self))")
        struct Created: Decodable { var id: Int64 }
        return try JSONDecoder().decode(Created.self, from: body).id
    }
}
