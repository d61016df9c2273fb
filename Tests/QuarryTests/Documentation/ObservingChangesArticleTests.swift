// Keeps the new snippets of the DocC article "Observing changes" compiling and
// true: the region observation of record types, and the polling configuration
// that lets an observation see another connection's commits.

import Foundation
import Quarry
import Synchronization
import Testing

/// The article's record types, in a namespace of their own (other tests
/// declare a `Player`).
private enum Article {
    struct Player: Codable, TableRecord, PersistableRecord {
        var id: Int64?
        var name: String
    }

    struct Team: Codable, TableRecord, PersistableRecord {
        var id: Int64?
        var name: String
    }
}

@Suite("The Observing changes article")
struct ObservingChangesArticleTests {
    @Test func regionObservationOfRecordTypes() throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try dbPool.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE other (id INTEGER PRIMARY KEY)")
        }
        let changes = Atomic<Int>(0)
        // The article's snippet, with its closures filled in.
        let observation = DatabaseRegionObservation(tracking: Article.Player.self, Article.Team.self)
        let cancellable = observation.start(in: dbPool) { error in
            Issue.record("\(error)")
        } onChange: { _ in
            changes.add(1, ordering: .relaxed)
        }
        try dbPool.write { db in try Article.Player(id: nil, name: "Arthur").insert(db) }
        try dbPool.write { db in try Article.Team(id: nil, name: "Blue").insert(db) }
        try dbPool.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        #expect(changes.load(ordering: .relaxed) == 2)
        cancellable.cancel()
    }

    @Test func pollingConfigurationSeesAnotherConnection() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        // The article's snippet.
        var configuration = Configuration()
        configuration.foreignCommitPollingInterval = .milliseconds(250)
        let dbPool = try DatabasePool(path: path, configuration: configuration)
        try await dbPool.write { db in try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)") }
        let counts = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? -1 }
            .values(in: dbPool)
        var iterator = counts.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        let other = try DatabaseQueue(path: path)
        try await other.write { db in try db.execute(sql: "INSERT INTO player (name) VALUES ('Arthur')") }
        #expect(try await iterator.next() == 1)
    }
}
