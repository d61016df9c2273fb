// Tests of ValueObservation: first value, re-fetch after relevant commits
// only, no missed commit under concurrent writers, pool fetches that do not
// hold up the writer, duplicates, cancellation and errors; on a queue and a pool.

import Foundation
import Quarry
import Synchronization
import Testing

private func makeLibrary(_ kind: WriterKind, _ directory: TemporaryDirectory) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try writer.write { db throws in
        try db.execute(sql: """
            CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE visit (id INTEGER PRIMARY KEY, at TEXT);
            INSERT INTO book (title) VALUES ('Dune');
            """)
    }
    return writer
}

private let bookCount = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM book") ?? -1 }

/// Collects the values of an async sequence in a task, for tests that write meanwhile.
final class Collector<Value: Sendable>: Sendable {
    private final class State: Sendable {
        let mutex = Mutex<(values: [Value], error: (any Error)?, finished: Bool)>(([], nil, false))
        func withLock<T>(_ body: (inout (values: [Value], error: (any Error)?, finished: Bool)) -> T) -> T {
            mutex.withLock { body(&$0) }
        }
    }
    private let state = State()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Value {
        let state = self.state
        let started = Task {
            do {
                for try await value in sequence { state.withLock { $0.values.append(value) } }
            } catch {
                state.withLock { $0.error = error }
            }
            state.withLock { $0.finished = true }
        }
        task.withLock { $0 = started }
    }

    var values: [Value] { state.withLock { $0.values } }
    var error: (any Error)? { state.withLock { $0.error } }
    var finished: Bool { state.withLock { $0.finished } }
    func cancel() { task.withLock { $0?.cancel() } }

    /// Waits (polling, up to 120 s: a hang guard, long enough for a
    /// cooperative pool kept busy by other tests under the sanitizers) until
    /// `condition` holds for the values.
    func wait(until condition: ([Value]) -> Bool) async -> Bool {
        await waitUntilReleased { condition(values) }
    }
}

@Suite("Value observation")
struct ValueObservationTests {
    @Test("the first value is the current value; each relevant commit brings a fresh one", arguments: WriterKind.allCases)
    func firstValueThenChanges(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let collector = Collector(bookCount.values(in: writer))
        #expect(await collector.wait { $0 == [1] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        #expect(await collector.wait { $0 == [1, 2] })
        try await writer.write { db throws in try db.execute(sql: "DELETE FROM book") }
        #expect(await collector.wait { $0 == [1, 2, 0] })
        collector.cancel()
    }

    @Test("commits to other tables, or to columns the fetch did not read, produce nothing", arguments: WriterKind.allCases)
    func unrelatedCommits(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let fetches = Atomic<Int>(0)
        let titles = ValueObservation.tracking { db in
            fetches.add(1, ordering: .relaxed)
            return try String.fetchAll(db, sql: "SELECT title FROM book ORDER BY id")
        }
        let collector = Collector(titles.values(in: writer))
        #expect(await collector.wait { $0 == [["Dune"]] })
        try await writer.write { db throws in
            try db.execute(sql: "INSERT INTO visit (at) VALUES ('now')")
            try db.execute(sql: "UPDATE book SET pages = 412")  // a column the fetch did not read
        }
        // A relevant commit after the unrelated ones: its value comes next.
        try await writer.write { db throws in try db.execute(sql: "UPDATE book SET title = 'Dune Messiah'") }
        #expect(await collector.wait { $0.count == 2 })
        #expect(collector.values == [["Dune"], ["Dune Messiah"]])
        #expect(fetches.load(ordering: .relaxed) == 2)
        collector.cancel()
    }

    @Test("no missed commit: after 1,000 commits from 4 concurrent writers, the last value equals a fresh fetch", arguments: WriterKind.allCases)
    func concurrentWriters(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let observation = ValueObservation.tracking { db in
            try Int.fetchOne(db, sql: "SELECT coalesce(sum(pages), 0) + count(*) FROM book") ?? -1
        }
        let collector = Collector(observation.values(in: writer))
        #expect(await collector.wait { !$0.isEmpty })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writerIndex in 0..<4 {
                group.addTask {
                    for commit in 0..<250 {
                        try await writer.write { db throws in
                            if commit % 3 == 0 {
                                try db.execute(sql: "INSERT INTO book (title, pages) VALUES (?, ?)", arguments: ["w\(writerIndex)", commit])
                            } else {
                                try db.execute(sql: "UPDATE book SET pages = pages + 1 WHERE id = ?", arguments: [commit % 5 + 1])
                            }
                            try db.execute(sql: "INSERT INTO visit (at) VALUES (?)", arguments: ["\(writerIndex)"])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await writer.read { db throws in
            try Int.fetchOne(db, sql: "SELECT coalesce(sum(pages), 0) + count(*) FROM book") ?? -1
        }
        let reached = await collector.wait { $0.last == final }
        #expect(reached, "last value \(String(describing: collector.values.last)), database \(final)")
        // Every commit adds to the value: a smaller one after a larger one
        // is a value delivered out of the database's order (issue 46).
        let values = collector.values
        let backwards = zip(values, values.dropFirst()).filter { $0.1 < $0.0 }
        #expect(backwards.isEmpty, "values went back: \(backwards.prefix(5))")
        #expect(collector.error == nil)
        collector.cancel()
    }

    @Test("on a pool, the fetch reads a snapshot on a reader and does not hold up the writer")
    func poolFetchDoesNotBlockWriter() async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(.pool, directory)
        let gate = DispatchSemaphore(value: 0)
        let gateResult = Mutex<DispatchTimeoutResult?>(nil)
        let fetchCount = Atomic<Int>(0)
        let observation = ValueObservation.tracking { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM book") ?? -1
            if fetchCount.add(1, ordering: .relaxed).newValue == 2 {
                // The second fetch holds its snapshot until the test has written again.
                let result = gate.wait(timeout: .now() + 120)
                gateResult.withLock { $0 = result }
            }
            return count
        }
        let collector = Collector(observation.values(in: writer))
        #expect(await collector.wait { $0 == [1] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        // Wait until the second fetch is blocked, then write: the writer is free.
        #expect(await collector.wait { _ in fetchCount.load(ordering: .relaxed) == 2 })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Ulysses')") }
        gate.signal()
        // The blocked fetch saw the snapshot of the first commit; the second
        // commit, made during that fetch, brings its own value.
        #expect(await collector.wait { $0 == [1, 2, 3] })
        #expect(gateResult.withLock { $0 } == .success)
        collector.cancel()
    }

    @Test("removeDuplicates() drops values equal to the previous one", arguments: WriterKind.allCases)
    func removeDuplicates(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let plain = Collector(bookCount.values(in: writer))
        let deduplicated = Collector(bookCount.removeDuplicates().values(in: writer))
        #expect(await plain.wait { $0 == [1] })
        #expect(await deduplicated.wait { $0 == [1] })
        // Same count after the commit: a value for the plain observation only.
        try await writer.write { db throws in try db.execute(sql: "UPDATE book SET title = 'Dune!'") }
        // The plain observation's value for the UPDATE first: a commit made
        // while a fetch runs is read by one more fetch, so two quick commits
        // may bring one value.
        #expect(await plain.wait { $0 == [1, 1] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        #expect(await plain.wait { $0 == [1, 1, 2] })
        #expect(await deduplicated.wait { $0 == [1, 2] })
        plain.cancel()
        deduplicated.cancel()
    }

    @Test("an error of the fetch ends the sequence with the error", arguments: WriterKind.allCases)
    func fetchError(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let observation = ValueObservation.tracking { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM book WHERE pages > 0 AND nope = 1") ?? 0
        }
        var values: [Int] = []
        do {
            for try await value in observation.values(in: writer) { values.append(value) }
            Issue.record("the sequence ended without an error")
        } catch let error as DatabaseError {
            #expect(error.message.contains("nope"))
        }
        #expect(values.isEmpty)
    }

    @Test("a later error, after values, ends the sequence too", arguments: WriterKind.allCases)
    func laterError(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        struct TooMany: Error {}
        let observation = ValueObservation.tracking { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM book") ?? 0
            if count > 1 { throw TooMany() }
            return count
        }
        let collector = Collector(observation.values(in: writer))
        #expect(await collector.wait { $0 == [1] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        #expect(await collector.wait { _ in collector.finished })
        #expect(collector.error is TooMany)
    }

    @Test("breaking out of the loop, or cancelling its task, stops the observation and releases it", arguments: WriterKind.allCases)
    func cancellationReleases(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        final class Probe: Sendable {}
        weak var weakProbe: Probe?
        // Breaking out of the loop.
        do {
            let probe = Probe()
            weakProbe = probe
            let observation = ValueObservation.tracking { db in
                _ = probe
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM book") ?? 0
            }
            for try await value in observation.values(in: writer) {
                #expect(value == 1)
                break
            }
        }
        #expect(await waitUntilReleased { weakProbe == nil })
        // Cancelling the consuming task.
        do {
            let probe = Probe()
            weakProbe = probe
            let observation = ValueObservation.tracking { db in
                _ = probe
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM book") ?? 0
            }
            let collector = Collector(observation.values(in: writer))
            #expect(await collector.wait { $0 == [1] })
            collector.cancel()
            #expect(await collector.wait { _ in collector.finished })
        }
        #expect(await waitUntilReleased { weakProbe == nil })
        // Writes after the observations stopped still work, and wake nothing.
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
    }

    @Test("start(in:onError:onChange:) delivers values until cancelled", arguments: WriterKind.allCases)
    func callbacks(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let values = Mutex<[Int]>([])
        let cancellable = bookCount.start(in: writer, onError: { error in Issue.record(error) }, onChange: { value in
            values.withLock { $0.append(value) }
        })
        #expect(await waitUntilReleased { values.withLock { $0 } == [1] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        #expect(await waitUntilReleased { values.withLock { $0 } == [1, 2] })
        cancellable.cancel()
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO book (title) VALUES ('Ulysses')") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(values.withLock { $0 } == [1, 2])
    }

    @Test("start(in:onError:onChange:) reports a failing fetch to onError")
    func callbackError() async throws {
        let dbQueue = try DatabaseQueue()
        let failure = Mutex<(any Error)?>(nil)
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM missing") ?? 0 }
        let cancellable = observation.start(in: dbQueue, onError: { error in failure.withLock { $0 = error } }, onChange: { _ in
            Issue.record("no value expected")
        })
        #expect(await waitUntilReleased { failure.withLock { $0 } != nil })
        #expect((failure.withLock { $0 } as? DatabaseError)?.message.contains("missing") == true)
        cancellable.cancel()
    }

    @Test("the region follows what the fetch reads, even when it changes from one fetch to the next", arguments: WriterKind.allCases)
    func dynamicRegion(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        try await writer.write { db throws in
            try db.execute(sql: "CREATE TABLE setting (useVisits INTEGER); INSERT INTO setting VALUES (0)")
        }
        // Reads `visit` only when the setting says so.
        let observation = ValueObservation.tracking { db -> Int in
            if try Bool.fetchOne(db, sql: "SELECT useVisits FROM setting") == true {
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM visit") ?? -1
            }
            return -1
        }
        let collector = Collector(observation.values(in: writer))
        #expect(await collector.wait { $0 == [-1] })
        try await writer.write { db throws in try db.execute(sql: "UPDATE setting SET useVisits = 1") }
        #expect(await collector.wait { $0 == [-1, 0] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO visit (at) VALUES ('now')") }
        #expect(await collector.wait { $0 == [-1, 0, 1] })
        collector.cancel()
    }

    @Test("recordingRegion reports the tables and columns a fetch read")
    func recordingRegion() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, authorId INTEGER);
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                CREATE VIEW titled AS SELECT title FROM book;
                """)
        }
        try dbQueue.read { db throws in
            let (_, region) = try db.recordingRegion {
                try Row.fetchAll(db, sql: "SELECT book.title, author.name FROM book JOIN author ON author.id = book.authorId")
            }
            #expect(region.description == "author(id,name),book(authorid,title)")
            #expect(region.isModified(byEventsOfKind: .update(tableName: "Book", columnNames: ["title"])))
            #expect(!region.isModified(byEventsOfKind: .update(tableName: "book", columnNames: ["id"])))
            #expect(region.isModified(byEventsOfKind: .insert(tableName: "author")))
            #expect(!region.isModified(byEventsOfKind: .delete(tableName: "visit")))
            let (count, whole) = try db.recordingRegion { try Int.fetchOne(db, sql: "SELECT count(*) FROM book") }
            #expect(count == 0)
            #expect(whole.description == "book(*)")
            let (_, viewRegion) = try db.recordingRegion { try Row.fetchAll(db, sql: "SELECT * FROM titled") }
            #expect(viewRegion.tableNames.contains("book"))
            let (_, none) = try db.recordingRegion { try Int.fetchOne(db, sql: "SELECT 1") }
            #expect(none.isEmpty)
        }
    }
}

/// Polls `condition` for up to 120 s (a hang guard, see `wait(until:)`).
func waitUntilReleased(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
