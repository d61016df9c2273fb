// A PostgreSQL server of a test's own, for the fault tests that restart or stop
// the server. It is a throwaway cluster on a free port, created by
// scripts/postgres-server.sh in a state directory of its own. It is never the
// shared server of QUARRY_POSTGRES_URL, which other suites use in parallel.
// Always destroy it: `PrivatePostgresServer.with { server in ... }` does, even
// when the body throws.

import Dispatch
import Foundation
import QuarryPostgres

struct PrivatePostgresServer: Sendable {
    /// `postgres://postgres@127.0.0.1:<port>/quarry_test`: trust
    /// authentication, no password.
    let url: String

    /// The TCP port on 127.0.0.1. It stays the same across ``restart()``,
    /// ``stopServer()`` and ``startServer()``.
    let port: Int

    /// The script's state directory (`QUARRY_POSTGRES_STATE_DIR`): one per server.
    let stateDirectory: URL

    /// Bounds of the script's commands. `start` runs initdb, and can be slow
    /// on a loaded machine while other suites build or run.
    static let startTimeout: Duration = .seconds(120)
    static let commandTimeout: Duration = .seconds(60)

    /// The package's root folder: `#filePath` is
    /// `<root>/Tests/QuarryPostgresTests/Support/PrivatePostgresServer.swift`.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // QuarryPostgresTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // <root>

    static var script: URL { packageRoot.appendingPathComponent("scripts/postgres-server.sh") }

    /// Why the suites of private servers must skip, or nil when they can run:
    /// the script installs PostgreSQL when it is missing, which tests must
    /// never do, so they skip instead.
    static let unavailableReason: String? = {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: script.path) else { return "\(script.path) does not exist" }
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        var folders = searchPath
        if let versions = try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            folders += versions.map { "/usr/lib/postgresql/\($0)/bin" }
        }
        let hasBinaries = folders.contains { folder in
            fileManager.isExecutableFile(atPath: folder + "/initdb") && fileManager.isExecutableFile(atPath: folder + "/pg_ctl")
        }
        guard hasBinaries else {
            return "the PostgreSQL server binaries (initdb, pg_ctl) are missing; on Debian: apt-get install postgresql"
        }
        if getuid() == 0, getpwnam("postgres") == nil {
            return "running as root without a 'postgres' system user to run initdb and postgres as"
        }
        return nil
    }()

    /// Whether private servers can run; when not, prints one line for `suite`.
    static func isAvailable(for suite: String) -> Bool {
        if let reason = unavailableReason { print("\(suite) skipped: \(reason)") }
        return unavailableReason == nil
    }

    /// The server's configuration, optionally with a shorter connect timeout.
    func configuration(connectTimeout: Duration = PostgresConfiguration.defaultConnectTimeout) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: url)
        configuration.connectTimeout = connectTimeout
        return configuration
    }

    /// Creates a cluster on a free port and starts its server, with the
    /// database `quarry_test`. Takes a few seconds (initdb).
    ///
    /// - Throws: ``ScriptError`` when the script fails or takes longer than
    ///   ``startTimeout``; nothing is left behind then.
    static func start() async throws -> PrivatePostgresServer {
        let stateDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("quarry-private-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        do {
            try await run("start", stateDirectory: stateDirectory, timeout: startTimeout)
            let state = try String(contentsOf: stateDirectory.appendingPathComponent("state"), encoding: .utf8)
            guard let url = value(of: "URL", in: state), let portText = value(of: "PORT", in: state), let port = Int(portText)
            else {
                throw ScriptError(command: "start", status: 0, output: "no URL or PORT in the state file:\n\(state)")
            }
            return PrivatePostgresServer(url: url, port: port, stateDirectory: stateDirectory)
        } catch {
            _ = try? await run("stop", stateDirectory: stateDirectory, timeout: commandTimeout)
            try? FileManager.default.removeItem(at: stateDirectory)
            throw error
        }
    }

    /// Runs `body` with a new server, and destroys the server afterwards,
    /// whether `body` returns or throws.
    static func with<T>(_ body: (PrivatePostgresServer) async throws -> T) async throws -> T {
        let server = try await start()
        let result: T
        do {
            result = try await body(server)
        } catch {
            await server.destroy()
            throw error
        }
        await server.destroy()
        return result
    }

    /// `pg_ctl restart -m fast`: ends every session (clients see their
    /// connection closed), then starts the server again on the same port.
    func restart() async throws {
        try await Self.run("restart", stateDirectory: stateDirectory, timeout: Self.commandTimeout)
    }

    /// Stops the server process (`pg_ctl stop -m fast`), keeping the cluster:
    /// connecting fails (connection refused) until ``startServer()``.
    func stopServer() async throws {
        try await Self.run("stop-server", stateDirectory: stateDirectory, timeout: Self.commandTimeout)
    }

    /// Starts the server process again, on the same port, with the same data.
    func startServer() async throws {
        try await Self.run("start-server", stateDirectory: stateDirectory, timeout: Self.commandTimeout)
    }

    /// Runs `restart`, `stop-server` or `start-server` on the calling
    /// thread: for fault tests that time a fault on a thread of their own,
    /// away from Swift's cooperative pool (see `blockingThread`).
    func controlBlocking(_ command: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["QUARRY_POSTGRES_STATE_DIR"] = stateDirectory.path
        _ = try Self.runProcessBlocking(
            ["/bin/bash", Self.script.path, command], environment: environment, outputDirectory: stateDirectory,
            timeout: Self.commandTimeout)
    }

    /// Stops the server and deletes the cluster and the state directory.
    /// Never throws: failures are printed.
    func destroy() async {
        do {
            try await Self.run("stop", stateDirectory: stateDirectory, timeout: Self.commandTimeout)
        } catch {
            print("PrivatePostgresServer: destroying \(url) failed: \(error)")
        }
        try? FileManager.default.removeItem(at: stateDirectory)
    }

    // MARK: - Running the script

    /// A failed or timed-out command of scripts/postgres-server.sh (or of
    /// ``runProcess(_:environment:outputDirectory:timeout:)``), with its output.
    struct ScriptError: Error, CustomStringConvertible {
        var command: String
        /// The exit status, or nil when the command was killed after its timeout.
        var status: Int32?
        var output: String

        var description: String {
            let outcome = status.map { "exited with status \($0)" } ?? "timed out and was killed"
            return "\(command) \(outcome); its output:\n\(output)"
        }
    }

    /// Runs `bash scripts/postgres-server.sh <command>` for `stateDirectory`,
    /// and returns its output (stdout and stderr). Kills the script, and
    /// whatever it started but the server, after `timeout`.
    @discardableResult
    static func run(_ command: String, stateDirectory: URL, timeout: Duration) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["QUARRY_POSTGRES_STATE_DIR"] = stateDirectory.path
        return try await runProcess(
            ["/bin/bash", script.path, command], environment: environment, outputDirectory: stateDirectory, timeout: timeout)
    }

    /// Runs `arguments` (an executable's path, then its arguments) in the
    /// package's root folder, with Foundation's `Process`, and returns its
    /// output (stdout and stderr).
    ///
    /// The output goes to a file in `outputDirectory`, not a pipe, so that a
    /// process it starts can never hold the reading end open. After
    /// `timeout`, the process's whole process group gets SIGKILL (`Process`
    /// makes the child a group leader): the script and its initdb or pg_ctl,
    /// never the server, which pg_ctl puts in a session of its own.
    ///
    /// - Throws: ``ScriptError`` when it exits with another status than 0 or
    ///   times out.
    @discardableResult
    static func runProcess(
        _ arguments: [String], environment: [String: String], outputDirectory: URL, timeout: Duration
    ) async throws -> String {
        // Waited for on a Dispatch thread, not on Swift's cooperative pool:
        // tests that block the pool's few threads (synchronous database
        // accesses in async tests, on a 2-core machine) would delay the
        // deadline check by tens of seconds.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try runProcessBlocking(arguments, environment: environment, outputDirectory: outputDirectory, timeout: timeout)
                })
            }
        }
    }

    /// ``runProcess(_:environment:outputDirectory:timeout:)`` on the calling thread.
    static func runProcessBlocking(
        _ arguments: [String], environment: [String: String], outputDirectory: URL, timeout: Duration
    ) throws -> String {
        let name = arguments.dropFirst().joined(separator: " ")
        let outputFile = outputDirectory.appendingPathComponent("output-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: outputFile.path, contents: nil) else {
            throw ScriptError(command: name, status: -1, output: "cannot create \(outputFile.path)")
        }
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()

        let timedOut = WatchedProcess(process).waitOrKill(after: timeout)
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        if timedOut {
            throw ScriptError(command: name, status: nil, output: text)
        }
        guard process.terminationStatus == 0 else {
            throw ScriptError(command: name, status: process.terminationStatus, output: text)
        }
        return text
    }

    /// The value of `NAME=value` in the state file (written with `printf %q`:
    /// URLs and numbers need no quotes, but single quotes are removed anyway).
    private static func value(of name: String, in state: String) -> String? {
        for line in state.split(separator: "\n") where line.hasPrefix(name + "=") {
            var value = String(line.dropFirst(name.count + 1))
            if value.hasPrefix("'") && value.hasSuffix("'") && value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        return nil
    }
}

/// A process waited for with a deadline, polling from the calling thread.
private final class WatchedProcess {
    private let process: Process
    init(_ process: Process) { self.process = process }

    /// Waits for the process to exit; after `timeout`, kills it with its
    /// process group and returns true.
    func waitOrKill(after timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning {
            if clock.now >= deadline {
                let pid = process.processIdentifier
                kill(getpgid(pid) == pid ? -pid : pid, SIGKILL)
                // Reaped at once after SIGKILL; bounded all the same.
                let reapDeadline = clock.now + .seconds(5)
                while process.isRunning && clock.now < reapDeadline { usleep(10_000) }
                return true
            }
            usleep(10_000)
        }
        return false
    }
}
