// Tests of online backup: queue and pool sources and destinations, writes
// during a stepped backup, cancellation from the progress callback.

import Foundation
import Quarry
import Testing

/// A ledger in which every transaction inserts one entry and bumps a counter:
/// a consistent snapshot always has `counter == count(entry)`.
private func makeLedger(_ kind: WriterKind, in directory: TemporaryDirectory, entries: Int = 500) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try writer.write { db throws in
        try db.execute(sql: """
            CREATE TABLE entry (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
            CREATE TABLE counter (n INTEGER NOT NULL);
            INSERT INTO counter VALUES (0);
            """)
        for _ in 0..<entries { try addEntry(db) }
    }
    return writer
}

private func addEntry(_ db: Database) throws {
    try db.execute(sql: "INSERT INTO entry (payload) VALUES (randomblob(500))")
    try db.execute(sql: "UPDATE counter SET n = n + 1")
}

/// (entries, counter, integrity_check) of a database.
private func ledgerState(_ reader: any DatabaseReader) throws -> (entries: Int, counter: Int, integrity: String) {
    try reader.read { db in
        (
            try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? -1,
            try Int.fetchOne(db, sql: "SELECT n FROM counter") ?? -1,
            try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? ""
        )
    }
}

@Suite struct BackupTests {
    @Test(arguments: WriterKind.allCases, WriterKind.allCases)
    func backupCopiesEverything(source: WriterKind, destination: WriterKind) throws {
        let sourceDirectory = try TemporaryDirectory()
        let destinationDirectory = try TemporaryDirectory()
        let writer = try makeLedger(source, in: sourceDirectory)
        let copy = try destination.make(in: destinationDirectory)
        try copy.write { db throws in try db.execute(sql: "CREATE TABLE old (x)") }
        var steps: [DatabaseBackupProgress] = []
        try writer.backup(to: copy, pagesPerStep: 5) { steps.append($0) }
        let state = try ledgerState(copy)
        #expect(state.entries == 500 && state.counter == 500 && state.integrity == "ok")
        #expect(try copy.read { db in try db.tableExists("old") } == false)
        #expect(steps.count > 5)
        #expect(steps.last?.isCompleted == true && steps.last?.remainingPageCount == 0)
        #expect(steps.dropLast().allSatisfy { !$0.isCompleted && $0.completedPageCount > 0 })
        #expect(steps.map(\.completedPageCount) == steps.map(\.completedPageCount).sorted())
    }

    /// Writes go on committing during a stepped backup of a pool, and the
    /// copy is the database as of the backup's start.
    @Test func backupOfAPoolDoesNotStopWritersAndCopiesTheSnapshotOfItsStart() throws {
        let directory = try TemporaryDirectory()
        let copyDirectory = try TemporaryDirectory()
        let dbPool = try makeLedger(.pool, in: directory)
        let copy = try DatabaseQueue(path: copyDirectory.path())
        let lock = NSLock()
        let stop = UncheckedBox(false)
        let commits = UncheckedBox(0)
        let backingUp = UncheckedBox(false)
        let commitsDuringBackup = UncheckedBox(0)
        let writeError = UncheckedBox<(any Error)?>(nil)
        let writerDone = DispatchSemaphore(value: 0)
        // A writer thread of its own, committing back to back; its first
        // error stops it and fails the test.
        Thread.detachNewThread {
            defer { writerDone.signal() }
            while !lock.withLock({ stop.value }) {
                do {
                    try dbPool.write { db in try addEntry(db) }
                } catch {
                    lock.withLock { writeError.value = error }
                    return
                }
                lock.withLock {
                    commits.value += 1
                    if backingUp.value { commitsDuringBackup.value += 1 }
                }
            }
        }
        while lock.withLock({ commits.value < 5 && writeError.value == nil }) { usleep(1_000) }
        let before = try ledgerState(dbPool).entries
        try dbPool.backup(to: copy, pagesPerStep: 5) { progress in
            lock.withLock { backingUp.value = !progress.isCompleted }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let after = try ledgerState(dbPool).entries
        lock.withLock { stop.value = true }
        writerDone.wait()
        if let error = lock.withLock({ writeError.value }) {
            Issue.record("a write during the backup failed: \(error)")
        }
        let state = try ledgerState(copy)
        print("Backup[pool]: \(commitsDuringBackup.value) commits during the backup; copy has \(state.entries) entries, source had \(before) before and \(after) after")
        #expect(state.integrity == "ok")
        #expect(state.entries == state.counter)
        #expect(commitsDuringBackup.value > 0)
        #expect(state.entries >= before && state.entries < after)
    }

    @Test func backupOfAQueueWhileATaskWaitsToWriteIsConsistent() async throws {
        let directory = try TemporaryDirectory()
        let copyDirectory = try TemporaryDirectory()
        let dbQueue = try makeLedger(.queue, in: directory)
        let copy = try DatabasePool(path: copyDirectory.path())
        let writerTask = Task.detached {
            for _ in 0..<50 { try await dbQueue.write { db in try addEntry(db) } }
        }
        try await dbQueue.backup(to: copy, pagesPerStep: 5)
        try await writerTask.value
        let state = try ledgerState(copy)
        #expect(state.integrity == "ok" && state.entries == state.counter)
        #expect(state.entries >= 500 && state.entries <= 550)
        #expect(try ledgerState(dbQueue).entries == 550)
    }

    @Test(arguments: WriterKind.allCases)
    func throwingFromProgressStopsTheBackupAndLeavesTheDestinationAsItWas(kind: WriterKind) throws {
        struct Stop: Error {}
        let directory = try TemporaryDirectory()
        let copyDirectory = try TemporaryDirectory()
        let writer = try makeLedger(kind, in: directory)
        let copy = try kind.make(in: copyDirectory)
        try copy.write { db throws in
            try db.execute(sql: "CREATE TABLE old (x); INSERT INTO old VALUES (42)")
        }
        var steps = 0
        #expect(throws: Stop.self) {
            try writer.backup(to: copy, pagesPerStep: 5) { _ in
                steps += 1
                if steps == 3 { throw Stop() }
            }
        }
        #expect(steps == 3)
        #expect(try copy.read { db in try Int.fetchOne(db, sql: "SELECT x FROM old") } == 42)
        #expect(try copy.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        let source = try ledgerState(writer)
        #expect(source.entries == 500 && source.counter == 500 && source.integrity == "ok")
        // The destination takes a later backup.
        try writer.backup(to: copy)
        #expect(try ledgerState(copy).entries == 500)
    }

    @Test func cancellingAnAsyncBackupStopsItBetweenSteps() async throws {
        let directory = try TemporaryDirectory()
        let copyDirectory = try TemporaryDirectory()
        let dbPool = try makeLedger(.pool, in: directory)
        let copy = try DatabaseQueue(path: copyDirectory.path())
        // The first step waits until the task is cancelled, so that the
        // cancellation lands between two steps whatever the machine's speed.
        let firstStepDone = ThreadGate(), cancelled = ThreadGate(), steps = LockedCounter()
        let task = Task {
            try await dbPool.backup(to: copy, pagesPerStep: 1) { progress in
                steps.increment()
                if steps.value == 1 {
                    #expect(!progress.isCompleted)
                    firstStepDone.open()
                    _ = cancelled.wait()
                }
            }
        }
        #expect(await onNewThread { firstStepDone.wait() })
        task.cancel()
        cancelled.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(steps.value == 1)
        #expect(try await copy.read { db in try db.tableExists("entry") } == false)
    }

    @Test func backupToAPathCreatesTheFile() async throws {
        let directory = try TemporaryDirectory()
        let dbPool = try makeLedger(.pool, in: directory)
        let path = directory.path("copy.sqlite")
        try await dbPool.backup(toPath: path)
        #expect(try ledgerState(DatabaseQueue(path: path)).entries == 500)
        let asyncPath = directory.path("copy2.sqlite")
        try await dbPool.backup(toPath: asyncPath)
        #expect(try ledgerState(DatabaseQueue(path: asyncPath)).entries == 500)
    }

    @Test func backupIntoItsOwnFileOrWithZeroPagesPerStepThrows() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try makeLedger(.queue, in: directory)
        let own = try #require(throws: DatabaseError.self) { try dbQueue.backup(toPath: dbQueue.path) }
        #expect(own.message.contains("its own file"))
        // The same file by another path, and through a link.
        let dotted = directory.url.appendingPathComponent(".").appendingPathComponent("db.sqlite").path
        #expect(throws: DatabaseError.self) { try dbQueue.backup(toPath: dotted) }
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dbQueue.path)
        #expect(throws: DatabaseError.self) { try dbQueue.backup(toPath: link) }
        let copy = try DatabaseQueue()
        let zero = try #require(throws: DatabaseError.self) { try dbQueue.backup(to: copy, pagesPerStep: 0) }
        #expect(zero.message.contains("pages per step"))
        #expect(try ledgerState(dbQueue).entries == 500)
    }

    @Test func backupToAReadOnlyDestinationThrows() throws {
        let directory = try TemporaryDirectory()
        let dbQueue = try makeLedger(.queue, in: directory)
        let copyDirectory = try TemporaryDirectory()
        try DatabaseQueue(path: copyDirectory.path()).close()
        var configuration = Configuration()
        configuration.readonly = true
        let readOnly = try DatabaseQueue(path: copyDirectory.path(), configuration: configuration)
        let error = try #require(throws: DatabaseError.self) { try dbQueue.backup(to: readOnly) }
        #expect(error.resultCode.primaryResultCode == .SQLITE_READONLY)
    }

    @Test func databaseLevelBackupBetweenInMemoryDatabases() throws {
        let source = try DatabaseQueue()
        let destination = try DatabaseQueue()
        try source.write { db throws in try db.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES (7)") }
        try source.read { sourceDB throws in
            try destination.writeWithoutTransaction { destinationDB throws in
                try sourceDB.backup(to: destinationDB)
                #expect(throws: DatabaseError.self) { try sourceDB.backup(to: sourceDB) }
            }
        }
        #expect(try destination.read { db in try Int.fetchOne(db, sql: "SELECT v FROM t") } == 7)
    }
}
