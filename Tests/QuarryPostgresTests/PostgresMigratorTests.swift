// The migrator on a real PostgreSQL server: transactional DDL, the refusal
// of a database migrated by a newer version, and several processes starting
// at once (QuarryPostgresProcessHelper), as replicas of a service do: each
// migration is applied exactly once, under the advisory lock.

import Foundation
import Logging
import Quarry
import QuarryPostgres
import Synchronization
import Testing

extension PostgresTestServer {
    static let migratorSuiteEnabled = isConfigured(for: "PostgresMigratorTests")
}

@Suite(.enabled(if: PostgresTestServer.migratorSuiteEnabled, "QUARRY_POSTGRES_URL is not set"))
struct PostgresMigratorTests {
    private func migrator(_ names: [String], failing: String? = nil) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in
                try db.create(table: "t_" + name) { t in t.autoIncrementedPrimaryKey("id") }
                if name == failing { throw MigratorTestFailure() }
            }
        }
        return migrator
    }

    @Test func migrationsApplyOnceInOrderAndANewerDatabaseIsRefused() async throws {
        try await PostgresTestServer.withPool { pool in
            try await migrator(["a", "b", "c"]).migrate(pool)
            try await migrator(["a", "b", "c"]).migrate(pool)
            let (recorded, completed) = try await pool.read { db throws in
                (try migrator(["a", "b", "c"]).recordedMigrations(db), try migrator(["a", "b", "c"]).hasCompletedMigrations(db))
            }
            #expect(recorded == ["a", "b", "c"])
            #expect(completed)
            // An older version of the application, which knows a and b only.
            do {
                try await migrator(["a", "b"]).migrate(pool)
                Issue.record("an older migrator migrated a newer database")
            } catch let error as MigrationError {
                guard case .unknownMigrations(let unknown) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(unknown == ["c"])
            }
            let superseded = try await pool.read { db in try migrator(["a", "b"]).hasBeenSuperseded(db) }
            #expect(superseded)
        }
    }

    @Test func aFailedMigrationLeavesNoTableBehind() async throws {
        try await PostgresTestServer.withPool { pool in
            do {
                try await migrator(["a", "b"], failing: "b").migrate(pool)
                Issue.record("the failing migration did not throw")
            } catch let error as MigrationError {
                guard case .migrationFailed(let name, _) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(name == "b")
            }
            // PostgreSQL's DDL is transactional: b's CREATE TABLE is undone with it.
            let (hasA, hasB, recorded) = try await pool.read { db throws in
                (try db.tableExists("t_a"), try db.tableExists("t_b"), try migrator(["a", "b"]).recordedMigrations(db))
            }
            #expect(hasA)
            #expect(!hasB)
            #expect(recorded == ["a"])
        }
    }

    @Test func eraseOnSchemaChangeIsSQLiteOnly() async throws {
        try await PostgresTestServer.withPool { pool in
            var migrator = migrator(["a"])
            migrator.eraseDatabaseOnSchemaChange = true
            do {
                try await migrator.migrate(pool)
                Issue.record("eraseDatabaseOnSchemaChange ran on PostgreSQL")
            } catch let error as DatabaseError {
                #expect(error.message.contains("eraseDatabaseOnSchemaChange is SQLite-only"))
            }
        }
    }

    /// Another migrator holds the lock: the migrator logs that it waits,
    /// with the holder's server process id, then migrates.
    @Test func logsWhomItWaitsForTheLock() async throws {
        try await PostgresTestServer.withPool { pool in
            let recorder = PostgresLogRecorder()
            var configured = migrator(["a"])
            configured.logger = recorder.logger
            let waiting = configured
            let lockTaken = Mutex(false)
            let holder = Task {
                try await pool.write { db -> (pid: Int?, sawNotice: Bool) in
                    try db.execute(sql: "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.' || 'quarry_migrations'))")
                    lockTaken.withLock { $0 = true }
                    let pid = try Int.fetchOne(db, sql: "SELECT pg_backend_pid()")
                    let deadline = ContinuousClock.now + .seconds(20)
                    while !recorder.sawNotice, ContinuousClock.now < deadline {
                        try db.execute(sql: "SELECT pg_sleep(0.01)")
                    }
                    return (pid, recorder.sawNotice)
                }
            }
            // The holder's lock is taken before the migrator starts. (Counting
            // the server's advisory locks instead raced with other tests that
            // hold some.)
            let start = ContinuousClock.now
            while !lockTaken.withLock({ $0 }), ContinuousClock.now - start < .seconds(20) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await waiting.migrate(pool)
            let (pid, sawNotice) = try await holder.value
            #expect(sawNotice)
            let notice = try #require(recorder.notice)
            #expect(notice.message == "Waiting for the migration lock, held by another migrator (server process \(try #require(pid)))")
            #expect(notice.metadata["holder_pid"]?.description == "\(try #require(pid))")
            let recorded = try await pool.read { db in try waiting.recordedMigrations(db) }
            #expect(recorded == ["a"])
        }
    }

    @Test func processesStartingAtOnceApplyEachMigrationOnce() async throws {
        let url = try #require(PostgresTestServer.url)
        try await PostgresTestServer.withPool { pool in
            let schema = try await pool.read { db in try String.fetchOne(db, sql: "SELECT current_schema()") }
            let name = try #require(schema)
            let labels = ["first", "second", "third"]
            let processes = try labels.map { try MigrationProcess(arguments: ["migrate", url, name, $0]) }
            var results: [(status: Int32, output: String)] = []
            for process in processes { results.append(await process.finish()) }
            for (label, result) in zip(labels, results) {
                #expect(result.status == 0, "\(label): \(result.output)")
                #expect(result.output.contains("migrated \(label)"))
            }
            let (log, recorded) = try await pool.read { db throws in
                (
                    try Row.fetchAll(db, sql: "SELECT migration, process FROM race_log ORDER BY id"),
                    try String.fetchAll(db, sql: "SELECT name FROM quarry_migrations ORDER BY seq")
                )
            }
            // Each migration ran once, in one process.
            let migrations: [String] = try log.map { try $0["migration"] }
            #expect(migrations == ["m1", "m2", "m3", "m4", "m5"])
            #expect(recorded == ["m1", "m2", "m3", "m4", "m5"])
            let writers: Set<String> = Set(try log.map { try $0["process"] })
            #expect(writers.isSubset(of: Set(labels)))
        }
    }
}

private struct MigratorTestFailure: Error {}

/// A QuarryPostgresProcessHelper process, started from the directory of the
/// test executable, where `swift test` builds it. (`Process` and `Pipe` are
/// not Sendable: only the thread that waits reads them.)
private final class MigrationProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()

    init(arguments: [String]) throws {
        let testExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let helper = testExecutable.deletingLastPathComponent().appendingPathComponent("QuarryPostgresProcessHelper")
        guard FileManager.default.isExecutableFile(atPath: helper.path) else {
            throw MigratorTestError(message: "QuarryPostgresProcessHelper is not at \(helper.path); build it with `swift build --build-tests`")
        }
        process.executableURL = helper
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Waits for the process to exit, on a thread of its own, and returns its
    /// exit status and output.
    func finish() async -> (status: Int32, output: String) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = self.output.fileHandleForReading.readDataToEndOfFile()
                self.process.waitUntilExit()
                continuation.resume(returning: (self.process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }
}

private struct MigratorTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Keeps the migrator's log messages (PostgresMigratorTests).
final class PostgresLogRecorder: LogHandler, @unchecked Sendable {
    struct Entry {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }
    private let lock = NSLock()
    private var entries: [Entry] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { entries.append(Entry(level: event.level, message: event.message.description, metadata: event.metadata ?? [:])) }
    }

    var all: [Entry] { lock.withLock { entries } }
    var notice: Entry? { lock.withLock { entries.first { $0.level == .notice } } }
    var sawNotice: Bool { notice != nil }
    var logger: Logger { Logger(label: "test.migrator") { _ in self } }
}
