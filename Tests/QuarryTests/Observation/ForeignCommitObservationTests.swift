// Tests of observing another connection's or process's commits on an SQLite
// file (Configuration.foreignCommitPollingInterval, DataVersionWatcher.swift):
// noticed within the interval plus 1 s, nothing for a rollback or for a
// commit that leaves the value unchanged, no double value for the writer's
// own commits, the watcher running only while something observes; on a
// queue and a pool.

import Foundation
@testable import Quarry
import QuarryTestSupport
import Testing

/// The polling interval of these tests.
private let interval = Duration.milliseconds(100)

private func watchingConfiguration() -> Configuration {
    var configuration = Configuration()
    configuration.foreignCommitPollingInterval = interval
    configuration.busyTimeout = .seconds(30)
    return configuration
}

/// A file with tables `book` and `visit`, opened twice: `observed` watches
/// for foreign commits; `other` is another connection on the same file.
private struct TwoWriters {
    let directory: TemporaryDirectory
    let path: String
    let observed: any DatabaseWriter
    let other: DatabaseQueue

    init(_ kind: WriterKind, configuration: Configuration = watchingConfiguration()) throws {
        directory = try TemporaryDirectory()
        path = directory.path()
        observed = try kind.open(path: path, configuration: configuration)
        try observed.write { db in
            try db.execute(sql: """
                CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                CREATE TABLE visit (id INTEGER PRIMARY KEY, at TEXT);
                INSERT INTO book (title) VALUES ('Dune');
                """)
        }
        var otherConfiguration = Configuration()
        otherConfiguration.busyTimeout = .seconds(30)
        other = try DatabaseQueue(path: path, configuration: otherConfiguration)
    }
}

private let bookTitles = ValueObservation.tracking { db in
    try String.fetchAll(db, sql: "SELECT title FROM book ORDER BY id")
}

@Suite("Foreign commits on SQLite")
struct ForeignCommitObservationTests {
    // The latency bounds read the time Quarry delivered each value
    // (TimedDeliveries), and take the fastest of three commits, each of which
    // must be noticed: see `latencies(attempts:_:)` in QuarryTestSupport.

    @Test(arguments: WriterKind.allCases)
    func foreignCommitIsNoticedWithinTheIntervalPlusOneSecond(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind)
        let values = TimedDeliveries(bookTitles, in: files.observed)
        defer { values.cancel() }
        #expect(await values.wait { $0 == [["Dune"]] })
        let measured = try await latencies { index in
            let title = "Emma \(index)"
            // Stamped inside the transaction: no later than its commit.
            let committed = try await files.other.write { db in
                try db.execute(sql: "INSERT INTO book (title) VALUES (?)", arguments: [title])
                return ContinuousClock.now
            }
            return await values.latency(since: committed) { $0.last == title }
        }
        try expectEveryDelivery(measured, fastestUnder: interval + .seconds(1) + TimingSlack.underSanitizers)
    }

    @Test(arguments: WriterKind.allCases)
    func anotherProcessCommitIsNoticed(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind)
        let values = TimedDeliveries(bookTitles, in: files.observed)
        defer { values.cancel() }
        #expect(await values.wait { $0 == [["Dune"]] })
        let measured = try await latencies { index in
            let title = ["Persuasion", "Emma", "Sanditon"][index]
            let helper = try ConcurrentWriterProcess(arguments: ["execute", files.path, [
                "INSERT INTO book (title) VALUES ('Persuasion')",
                "INSERT INTO book (title) VALUES ('Emma')",
                "INSERT INTO book (title) VALUES ('Sanditon')",
            ][index]])
            defer { helper.stop() }
            #expect(await helper.waitForExit() == 0)
            // A stamp after the helper's commit: late, if anything (the value
            // may even have come before it).
            return await values.latency(since: ContinuousClock.now) { $0.last == title }
        }
        try expectEveryDelivery(measured, fastestUnder: interval + .seconds(1) + TimingSlack.underSanitizers)
    }

    @Test(arguments: WriterKind.allCases)
    func rollbackAndUnobservedCommitsDeliverNothing(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind)
        let values = Collector(bookTitles.values(in: files.observed))
        #expect(await values.wait { $0 == [["Dune"]] })
        // Another process's transaction rolls back.
        let helper = try ConcurrentWriterProcess(arguments: ["execute", files.path, "INSERT INTO book (title) VALUES ('Lost')", "rollback"])
        defer { helper.stop() }
        #expect(await helper.waitForExit() == 0)
        // A commit to another table, and one that leaves the titles as they are.
        try await files.other.write { db in
            try db.execute(sql: "INSERT INTO visit (at) VALUES ('now')")
        }
        try await files.other.write { db in
            try db.execute(sql: "UPDATE book SET title = 'Dune'")
        }
        // A marker commit: once its value arrives, every earlier commit was polled.
        try await Task.sleep(for: interval * 3)
        try await files.other.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Marker')") }
        #expect(await values.wait { $0.last == ["Dune", "Marker"] })
        #expect(values.values == [["Dune"], ["Dune", "Marker"]])
        values.cancel()
    }

    @Test(arguments: WriterKind.allCases)
    func ownCommitsAreDeliveredOnceAndEvenWhenUnchanged(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind)
        let values = Collector(bookTitles.values(in: files.observed))
        #expect(await values.wait { $0 == [["Dune"]] })
        try await files.observed.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        #expect(await values.wait { $0.count == 2 })
        // Unchanged, but a commit of the observed writer to the table: delivered, as in GRDB.
        try await files.observed.write { db in try db.execute(sql: "UPDATE book SET title = title") }
        #expect(await values.wait { $0.count == 3 })
        // Several intervals: the writer's own commits did not move its data version.
        try await Task.sleep(for: interval * 5)
        #expect(values.values == [["Dune"], ["Dune", "Emma"], ["Dune", "Emma"]])
        values.cancel()
    }

    @Test(arguments: WriterKind.allCases)
    func withoutAnIntervalForeignCommitsAreNotSeen(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind, configuration: Configuration())
        let source = try #require(files.observed as? any ForeignCommitSource)
        #expect(source.foreignCommitFeed == nil)
        let values = Collector(bookTitles.values(in: files.observed))
        #expect(await values.wait { $0 == [["Dune"]] })
        try await files.other.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        try await Task.sleep(for: .seconds(1))
        #expect(values.values == [["Dune"]])
        values.cancel()
    }

    @Test(arguments: WriterKind.allCases)
    func theWatcherRunsOnlyWhileSomethingObserves(_ kind: WriterKind) async throws {
        let files = try TwoWriters(kind)
        let feed = try #require((files.observed as? any ForeignCommitSource)?.foreignCommitFeed)
        #expect(!feed.isWatching)
        let first = Collector(bookTitles.values(in: files.observed))
        let second = Collector(bookTitles.values(in: files.observed))
        #expect(await first.wait { $0.count == 1 })
        #expect(await second.wait { $0.count == 1 })
        #expect(feed.isWatching)
        first.cancel()
        #expect(await first.wait { _ in first.finished })
        #expect(feed.isWatching)
        second.cancel()
        #expect(await second.wait { _ in second.finished })
        #expect(await waitUntilReleased { !feed.isWatching })
    }

    @Test func anInMemoryDatabaseHasNoFeed() throws {
        let dbQueue = try DatabaseQueue(configuration: watchingConfiguration())
        #expect(dbQueue.foreignCommitFeed == nil)
    }

    @Test(arguments: WriterKind.allCases)
    func aValueThatIsNotEquatableIsDeliveredAfterEachForeignCommit(_ kind: WriterKind) async throws {
        struct Titles: Sendable { var titles: [String] }
        let files = try TwoWriters(kind)
        let observation = ValueObservation.tracking { db in Titles(titles: try String.fetchAll(db, sql: "SELECT title FROM book")) }
        let values = Collector(observation.values(in: files.observed))
        #expect(await values.wait { $0.count == 1 })
        try await files.other.write { db in try db.execute(sql: "INSERT INTO visit (at) VALUES ('now')") }
        #expect(await values.wait { $0.count == 2 })
        #expect(values.values.map(\.titles) == [["Dune"], ["Dune"]])
        values.cancel()
    }
}
