// Tests of DatabaseRegionObservation on SQLite: onChange after each commit
// that changed the region (tables, columns), nothing for other tables or a
// rollback, a start inside an access reported to onError, cancellation, and
// other connections' commits when the writer watches for them; on a queue
// and a pool.

import Foundation
@testable import Quarry
import Synchronization
import Testing

/// Counts the calls of onChange, and keeps the errors.
private final class Calls: Sendable {
    let changes = Atomic<Int>(0)
    let errors = Mutex<[String]>([])
    /// What onChange read from the connection it was given, last.
    let lastCount = Atomic<Int>(-1)
}

private func makeLibrary(_ kind: WriterKind, _ directory: TemporaryDirectory, configuration: Configuration = Configuration()) throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory, configuration: configuration)
    try writer.write { db in
        try db.execute(sql: """
            CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, pages INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE visit (id INTEGER PRIMARY KEY, at TEXT);
            """)
    }
    return writer
}

private struct ObservedBook: TableRecord {
    static let databaseTableName = "book"
}

private func start(_ observation: DatabaseRegionObservation, in writer: any DatabaseWriter, _ calls: Calls) -> (AnyDatabaseCancellable, DatabaseRegionObserver) {
    observation.startObserver(in: writer) { error in
        calls.errors.withLock { $0.append("\(error)") }
    } onChange: { db in
        calls.lastCount.store((try? Int.fetchOne(db, sql: "SELECT count(*) FROM book")) ?? -2, ordering: .relaxed)
        calls.changes.add(1, ordering: .relaxed)
    }
}

@Suite("DatabaseRegionObservation")
struct DatabaseRegionObservationTests {
    @Test(arguments: WriterKind.allCases)
    func eachCommitThatChangesTheRegionCallsOnChangeOnTheWriter(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let calls = Calls()
        let (cancellable, _) = start(DatabaseRegionObservation(tracking: ObservedBook.self), in: writer, calls)
        try writer.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Dune')") }
        #expect(calls.changes.load(ordering: .relaxed) == 1)
        // onChange ran on the writer, after the commit: it saw the row.
        #expect(calls.lastCount.load(ordering: .relaxed) == 1)
        try writer.write { db in
            try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')")
            try db.execute(sql: "UPDATE book SET pages = 10")
        }
        #expect(calls.changes.load(ordering: .relaxed) == 2)
        // Another table, a rollback, and a transaction that changes no row: nothing.
        try writer.write { db in try db.execute(sql: "INSERT INTO visit (at) VALUES ('now')") }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM book")
                throw Abort()
            }
        }
        try writer.write { db in try db.execute(sql: "UPDATE book SET pages = 1 WHERE id < 0") }
        #expect(calls.changes.load(ordering: .relaxed) == 2)
        cancellable.cancel()
        try writer.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Persuasion')") }
        #expect(calls.changes.load(ordering: .relaxed) == 2)
        #expect(calls.errors.withLock { $0 }.isEmpty)
    }

    @Test(arguments: WriterKind.allCases)
    func aColumnRegionIgnoresUpdatesOfOtherColumns(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        try writer.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Dune')") }
        var region = DatabaseRegion()
        let (_, titleRegion) = try writer.read { db in try db.recordingRegion { try String.fetchAll(db, sql: "SELECT title FROM book") } }
        region.formUnion(titleRegion)
        let calls = Calls()
        let (cancellable, _) = start(DatabaseRegionObservation(tracking: region), in: writer, calls)
        try writer.write { db in try db.execute(sql: "UPDATE book SET pages = 5") }
        #expect(calls.changes.load(ordering: .relaxed) == 0)
        try writer.write { db in try db.execute(sql: "UPDATE book SET title = 'Dune Messiah'") }
        #expect(calls.changes.load(ordering: .relaxed) == 1)
        withExtendedLifetime(cancellable) {}
    }

    @Test(arguments: WriterKind.allCases)
    func startingInsideAnAccessReportsAnError(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try makeLibrary(kind, directory)
        let calls = Calls()
        try writer.write { _ in
            let (cancellable, _) = start(DatabaseRegionObservation(tracking: ObservedBook.self), in: writer, calls)
            withExtendedLifetime(cancellable) {}
        }
        #expect(calls.errors.withLock { $0 }.count == 1)
    }

    @Test(arguments: WriterKind.allCases)
    func otherConnectionsCommitsAreSeenWhenWatched(_ kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.foreignCommitPollingInterval = .milliseconds(50)
        let writer = try makeLibrary(kind, directory, configuration: configuration)
        let other = try DatabaseQueue(path: writer.path)
        let calls = Calls()
        let (cancellable, observer) = start(DatabaseRegionObservation(tracking: ObservedBook.self), in: writer, calls)
        #expect(await waitUntilReleased { observer.isWatchingForeignCommits })
        try await other.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Dune')") }
        #expect(await waitUntilReleased { calls.changes.load(ordering: .relaxed) == 1 })
        #expect(calls.lastCount.load(ordering: .relaxed) == 1)
        // The writer's own commits are told once, by its hooks, never again by the watcher.
        try await writer.write { db in try db.execute(sql: "INSERT INTO book (title) VALUES ('Emma')") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(calls.changes.load(ordering: .relaxed) == 2)
        cancellable.cancel()
        #expect(await waitUntilReleased { !(writer as? any ForeignCommitSource)!.foreignCommitFeed!.isWatching })
    }
}
