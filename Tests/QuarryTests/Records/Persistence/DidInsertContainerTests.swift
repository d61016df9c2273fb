// Regression tests: in didInsert, the persistence container holds the new
// rowid in the rowid column, as GRDB gives it. Before, it still held the NULL
// that was inserted, so a GRDB-style didInsert that read it got NULL.

import Foundation
import Quarry
import Testing

/// Reads the id from the container, as GRDB code does.
struct ContainerReader: Codable, FetchableRecord, MutablePersistableRecord {
    var id: Int64?
    var name: String
    nonisolated(unsafe) static var seen: [DatabaseValue] = []

    mutating func didInsert(_ inserted: InsertionSuccess) {
        let value = inserted.persistenceContainer.databaseValue(forColumn: "id") ?? .null
        Self.seen.append(value)
        id = Int64.fromDatabaseValue(value)
    }
}

@Suite(.serialized) struct DidInsertContainerTests {
    @Test(arguments: Backend.all)
    func containerHoldsTheNewRowID(_ backend: Backend) throws {
        try backend.withWriter { writer in
            ContainerReader.seen = []
            try writer.write { db in
                try db.create(table: "containerReader") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text).notNull().unique()
                }
                var first = ContainerReader(id: nil, name: "a")
                try first.insert(db)
                #expect(first.id == 1)
                var second = ContainerReader(id: nil, name: "b")
                let fetched = try second.insertAndFetch(db)
                #expect(second.id == 2 && fetched.id == 2)
                var third = ContainerReader(id: nil, name: "c")
                try third.upsert(db)
                #expect(third.id == 3)
                var explicit = ContainerReader(id: 10, name: "d")
                try explicit.insert(db)
                #expect(explicit.id == 10)
            }
            #expect(ContainerReader.seen == [.integer(1), .integer(2), .integer(3), .integer(10)])
        }
    }

    /// The default didInsert of Decodable records still writes the id back.
    @Test(arguments: Backend.all) func defaultDidInsertWritesTheIDBack(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try makeQueryFixtures(db)
                var player = QPlayer(id: nil, name: "Fay", score: 1, teamID: nil, bonus: 0, isActive: true)
                try player.insert(db)
                #expect(player.id == 6)
            }
        }
    }
}
