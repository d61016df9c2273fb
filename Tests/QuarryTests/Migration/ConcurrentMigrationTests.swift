// Tests of concurrent migrators: two pools on one file, started at the same
// time, apply each migration exactly once and both succeed.

import Foundation
@testable import Quarry
import Testing

@Suite struct ConcurrentMigrationTests {
    private func migrator(count: Int) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for index in 0..<count {
            migrator.registerMigration("m\(index)") { db in
                try db.create(table: "log", options: .ifNotExists) { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("name", .text).notNull()
                    t.column("connection", .text)
                }
                try db.create(table: "t\(index)") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("v", .blob)
                }
                // Some work, so that the two migrators overlap.
                try db.execute(sql: """
                    WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
                    INSERT INTO t\(index) (v) SELECT \(db.isPostgreSQL ? "decode(md5(x::text), 'hex')" : "randomblob(16)") FROM n
                    """)
                try db.execute(sql: "INSERT INTO log (name, connection) VALUES (?, ?)", arguments: ["m\(index)", db.configuration.label])
            }
        }
        return migrator
    }

    /// Two writers of one database (two pools on one file, or on one
    /// PostgreSQL schema, as two replicas of a service), each its own
    /// migrator: SQLite's write lock, or PostgreSQL's advisory lock, orders them.
    @Test(arguments: Backend.all, 1...4)
    func twoPoolsRacingApplyEachMigrationOnce(_ backend: Backend, round: Int) async throws {
        try await backend.withSharedDatabase { open in
            let migrator = migrator(count: 12)
            var first = Configuration()
            first.label = "first"
            first.busyTimeout = .seconds(30)
            var second = first
            second.label = "second"
            let poolA = try open(first)
            let poolB = try open(second)
            async let migratedA: Void = migrator.migrate(poolA)
            async let migratedB: Void = migrator.migrate(poolB)
            _ = try await (migratedA, migratedB)

            let names = try migrationLog(poolA)
            #expect(names.sorted() == (0..<12).map { "m\($0)" }.sorted())
            #expect(names == (0..<12).map { "m\($0)" })  // in registration order
            try checkCompleted(poolB, migrator)
        }
    }

    private func checkCompleted(_ reader: any DatabaseReader, _ migrator: DatabaseMigrator) throws {
        try reader.read { db throws in
            #expect(try migrator.recordedMigrations(db) == (0..<12).map { "m\($0)" })
            #expect(try migrator.hasCompletedMigrations(db))
            for index in 0..<12 {
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t\(index)") == 2000)
            }
        }
    }

    /// A deterministic interleaving: pool B reads the applied list, then pool
    /// A applies every migration, then B goes on. B must notice, under the
    /// write lock (on PostgreSQL, the migration lock), that the migrations it
    /// was about to apply are done.
    @Test(arguments: Backend.all)
    func staleAppliedListIsCheckedAgainUnderTheWriteLock(_ backend: Backend) throws {
        try backend.withSharedDatabase { open in
            let migrator = migrator(count: 3)
            let gate = Gate()
            var configurationB = Configuration()
            configurationB.label = "B"
            configurationB.busyTimeout = .seconds(30)
            configurationB.prepareDatabase = { db in
                db.trace { event in
                    // On SQLite, the migrator reads this pragma right before each
                    // migration's transaction. On PostgreSQL, the second
                    // transaction is the first migration's (the first read the list).
                    let isPostgreSQL = backend.isPostgreSQL
                    if event.description == (isPostgreSQL ? "BEGIN TRANSACTION" : "PRAGMA foreign_keys"),
                       gate.pass() == (isPostgreSQL ? 2 : 1) {
                        gate.bHasReadTheList.signal()
                        gate.aIsDone.wait()
                    }
                }
            }
            let poolB = try open(configurationB)
            let poolA = try open(Configuration())
            let resultB = ResultBox()
            let threadB = Thread {
                do { try migrator.migrate(poolB) } catch { resultB.set(error) }
                resultB.finished.signal()
            }
            threadB.start()
            gate.bHasReadTheList.wait()
            try migrator.migrate(poolA)
            gate.aIsDone.signal()
            resultB.finished.wait()
            #expect(resultB.error == nil)
            #expect(try migrationLog(poolA) == ["m0", "m1", "m2"])
            // A applied everything, B nothing.
            try poolA.read { db throws in
                #expect(try Optional<String>.fetchAll(db, sql: "SELECT connection FROM log ORDER BY id") == [nil, nil, nil])
            }
        }
    }

    @Test(arguments: Backend.all) func manyConcurrentTasksOnOnePool(_ backend: Backend) async throws {
        // DatabaseQueue serializes the tasks; DatabasePool and PostgreSQL's
        // pool run them on several connections, which the migrator orders.
        try await backend.withWriter { writer in
            let migrator = migrator(count: 5)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await migrator.migrate(writer) }
                }
                try await group.waitForAll()
            }
            #expect(try migrationLog(writer) == ["m0", "m1", "m2", "m3", "m4"])
        }
    }
}

/// Semaphores that order two migrators.
private final class Gate: @unchecked Sendable {
    let bHasReadTheList = DispatchSemaphore(value: 0)
    let aIsDone = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var passes = 0

    /// Counts a pass by the gate: 1 for the first.
    func pass() -> Int {
        lock.withLock {
            passes += 1
            return passes
        }
    }
}

/// The outcome of a migration on another thread.
private final class ResultBox: @unchecked Sendable {
    let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var storage: (any Error)?
    var error: (any Error)? { lock.withLock { storage } }
    func set(_ error: any Error) { lock.withLock { storage = error } }
}
