// Tests of PrivatePostgresServer, the fault tests' server of their own:
// restart ends the sessions and new ones connect; a stopped server refuses
// connections until it starts again on the same port; destroy removes it all.

import Foundation
import Quarry
import QuarryPostgres
import Testing

@Suite(.enabled(if: PrivatePostgresServer.isAvailable(for: "PrivatePostgresServerTests")))
struct PrivatePostgresServerTests {
    @Test func packageRootHoldsTheScript() {
        #expect(FileManager.default.fileExists(atPath: PrivatePostgresServer.script.path))
        #expect(FileManager.default.fileExists(atPath: PrivatePostgresServer.packageRoot.appendingPathComponent("Package.swift").path))
    }

    @Test func restartEndsSessionsAndNewOnesConnect() async throws {
        try await PrivatePostgresServer.with { server in
            try await SessionScope.with { sessions in try await restartEndsSessions(server, sessions) }
        }
    }

    private func restartEndsSessions(_ server: PrivatePostgresServer, _ sessions: SessionScope) async throws {
        #expect(server.url == "postgres://postgres@127.0.0.1:\(server.port)/quarry_test")
        let session = try await sessions.connect(to: server.configuration(connectTimeout: .seconds(5)))
        #expect(try await session.execute(sql: "SELECT 1").rows == [[.integer(1)]])

        let clock = ContinuousClock()
        let start = clock.now
        try await server.restart()
        print("PrivatePostgresServer: restart took \(clock.now - start)")

        let error = await failure(within: .seconds(3)) { try await session.execute(sql: "SELECT 1") }
        #expect(error != nil && !(error is BoundedWaitTimeout), "\(String(describing: error))")
        let again = try await sessions.connect(to: server.configuration(connectTimeout: .seconds(5)))
        #expect(try await again.execute(sql: "SELECT 2").rows == [[.integer(2)]])
    }

    @Test func stoppedServerRefusesConnectionsUntilStartedAgainThenDestroyRemovesIt() async throws {
        let clock = ContinuousClock()
        var start = clock.now
        let server = try await PrivatePostgresServer.start()
        print("PrivatePostgresServer: start took \(clock.now - start)")
        let sessions = SessionScope()
        do {
            let configuration = try server.configuration(connectTimeout: .seconds(2))
            let session = try await sessions.connect(to: configuration)
            try await session.execute(sql: "CREATE TABLE kept (id integer)")
            try await session.execute(sql: "INSERT INTO kept VALUES (7)")
            try await session.close()

            start = clock.now
            try await server.stopServer()
            print("PrivatePostgresServer: stopServer took \(clock.now - start)")
            let refused = await failure(within: .seconds(4)) { try await sessions.connect(to: configuration) }
            #expect(refused != nil && !(refused is BoundedWaitTimeout), "\(String(describing: refused))")
            // Stopping twice is harmless.
            try await server.stopServer()

            start = clock.now
            try await server.startServer()
            print("PrivatePostgresServer: startServer took \(clock.now - start)")
            let again = try await sessions.connect(to: configuration)
            // Same port, same cluster: the data is still there.
            #expect(try await again.execute(sql: "SELECT id FROM kept").rows == [[.integer(7)]])
            await sessions.closeAll()
        } catch {
            await sessions.closeAll()
            await server.destroy()
            throw error
        }
        await server.destroy()
        #expect(!FileManager.default.fileExists(atPath: server.stateDirectory.path))
        let gone = await failure(within: .seconds(4)) {
            try await sessions.connect(to: server.configuration(connectTimeout: .seconds(2)))
        }
        #expect(gone != nil && !(gone is BoundedWaitTimeout), "\(String(describing: gone))")
    }

    @Test func failedScriptCommandThrowsWithItsOutput() async throws {
        // No cluster in this state directory: restart fails, and says why.
        let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-private-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: stateDirectory) }
        let error = await #expect(throws: PrivatePostgresServer.ScriptError.self) {
            try await PrivatePostgresServer.run("restart", stateDirectory: stateDirectory, timeout: .seconds(30))
        }
        #expect(error?.status == 1)
        #expect(error?.output.contains("no server") == true, "\(String(describing: error))")
    }

    @Test func timedOutProcessIsKilledWithItsChildren() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-private-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let childFile = directory.appendingPathComponent("child")
        // Timed on a thread of its own (Support/OwnThread.swift): the
        // cooperative pool may be held by other suites' synchronous tests.
        let (result, elapsed) = try await onOwnThread {
            let clock = ContinuousClock()
            let start = clock.now
            // A child in the background, then a wait: both must die.
            let result = Result {
                try PrivatePostgresServer.runProcessBlocking(
                    ["/bin/bash", "-c", "sleep 30 & echo $! > \"$0\"; echo waiting; wait", childFile.path],
                    environment: ProcessInfo.processInfo.environment, outputDirectory: directory, timeout: .milliseconds(500))
            }
            return (result, clock.now - start)
        }
        let error = #expect(throws: PrivatePostgresServer.ScriptError.self) { try result.get() }
        #expect(elapsed < .seconds(5))
        #expect(error?.status == nil)
        #expect(error?.output.contains("waiting") == true, "\(String(describing: error))")
        let childText = try String(contentsOf: childFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let child = try #require(Int32(childText))
        // Killed (and reaped by init, or a zombie at worst): gone, or no longer sleeping.
        #expect(try await eventually { kill(child, 0) != 0 || Self.isZombie(child) }, "the child \(child) survived")
    }

    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") == true
    }
}
