// Tests of batch writes: updateAll and deleteAll on filtered requests, with
// assignments from key paths, limits, joins, and RETURNING.

import Foundation
import Quarry
import Testing

@Suite struct BatchWriteTests {
    func withFixtures(_ backend: Backend, _ body: (Database) throws -> Void) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try makeQueryFixtures(db)
                try body(db)
            }
        }
    }

    @Test(arguments: Backend.all)
    func updateAllWithAssignments(_ backend: Backend) throws {
        try withFixtures(backend) { db throws in
            let free = QPlayer.filter(\.teamID == nil)
            let context = SQLRecorder()
            let count = try context.record(db) { try free.updateAll(db, \.score += 1, \.name <- "Free agent") }
            #expect(count == 2)
            #expect(context.writes == ["UPDATE \"player\" SET \"score\" = \"score\" + ?, \"name\" = ? WHERE \"team_id\" IS NULL"])
            #expect(try QPlayer.filter(\.teamID == nil).order(\.id).select(\.name, \.score).fetchAll(db).map { "\($0.0) \($0.1)" }
                == ["Free agent 51", "Free agent 1"])
            try QPlayer.all().updateAll(db, \.score -= 1)
            try QPlayer.filter(\.id == 1).updateAll(db, \.score *= 2)
            try QPlayer.filter(\.id == 2).updateAll(db, \.score /= 3)
            try QPlayer.filter(\.id == 3).updateAll(db, \.score <- \.bonus * 2)
            #expect(try QPlayer.order(\.id).select(\.score).fetchAll(db) == [198, 83, 40, 50, 0])
        }
    }

    @Test(arguments: Backend.all)
    func deleteAllOnFilters(_ backend: Backend) throws {
        try withFixtures(backend) { db throws in
            #expect(try QPlayer.filter(\.score < 60).deleteAll(db) == 2)
            #expect(try QPlayer.order(\.id).select(\.name).fetchAll(db) == ["Arthur", "Barbara", "Cheng"])
            #expect(try QPlayer.filter(\.score > 1000).deleteAll(db) == 0)
            #expect(try QPlayer.all().deleteAll(db) == 3)
            #expect(try QPlayer.all().fetchCount(db) == 0)
        }
    }

    @Test(arguments: Backend.all)
    func limitsOrderingsAndJoinsGoThroughAKeySubquery(_ backend: Backend) throws {
        try withFixtures(backend) { db throws in
            let recorder = SQLRecorder()
            let deletedCount = try recorder.record(db) { try QPlayer.order(.desc(\.score)).limit(2).deleteAll(db) }
            #expect(deletedCount == 2)
            #expect(recorder.writes == [
                "DELETE FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"player\" ORDER BY \"score\" DESC LIMIT ?)"
            ])
            #expect(try QPlayer.order(\.id).select(\.name).fetchAll(db) == ["Arthur", "Dora", "Eve_%"])
            let reds = try QPlayer.joining(required: QPlayer.team.filter(\.name == "Reds")).updateAll(db, \.bonus <- 99)
            #expect(reds == 1)
            #expect(try QPlayer.filter(\.bonus == 99).select(\.name).fetchAll(db) == ["Arthur"])
        }
    }

    @Test(arguments: Backend.all)
    func returningWhatWasWritten(_ backend: Backend) throws {
        try withFixtures(backend) { db throws in
            let deleted = try QPlayer.filter(\.score < 60).order(\.id).deleteAll(db, returning: \.id, \.name)
            #expect(deleted.compactMap(\.0).sorted() == [4, 5])
            #expect(Set(deleted.map(\.1)) == ["Dora", "Eve_%"])
            let updated = try QPlayer.filter(\.teamID == 1).updateAll(db, [\.score += 5], returning: \.name, \.score)
            #expect(updated.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)" } == ["Arthur 105", "Barbara 255"])
            let ids = try QPlayer.filter(\.id == 3).deleteAll(db, returning: \.id)
            #expect(ids == [3])
        }
    }

    @Test(arguments: Backend.all)
    func deleteAndUpdateFetchingRecords(_ backend: Backend) throws {
        try withFixtures(backend) { db throws in
            let recorder = SQLRecorder()
            let deleted = try recorder.record(db) { try QPlayer.filter(\.score < 60).deleteAndFetchAll(db) }
            #expect(recorder.writes == ["DELETE FROM \"player\" WHERE \"score\" < ? RETURNING *"])
            #expect(deleted.map(\.name).sorted() == ["Dora", "Eve_%"])
            #expect(deleted.allSatisfy { $0.teamID == nil })
            let promoted = try QPlayer.filter(\.score > 150).updateAndFetchAll(db, \.teamID <- 3, \.bonus += 1)
            #expect(promoted.map(\.name).sorted() == ["Barbara", "Cheng"])
            #expect(promoted.allSatisfy { $0.teamID == 3 })
            #expect(promoted.map(\.bonus).sorted() == [1, 21])
            #expect(try QPlayer.filter(\.teamID == 3).fetchCount(db) == 2)
            #expect(try QPlayer.filter(\.score > 1000).deleteAndFetchAll(db).isEmpty)
        }
    }

    @Test(arguments: Backend.all) func writesOnCompoundRequestsAreRefused(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try makeQueryFixtures(db)
                let union = QPlayer.filter(\.id == 1).union(QPlayer.filter(\.id == 2))
                let error = try #require(throws: DatabaseError.self) { try union.deleteAll(db) }
                #expect(error.message == "cannot delete the rows of a compound, aliased, or subquery request")
                #expect(throws: DatabaseError.self) { try QPlayer.all().updateAll(db, [ColumnAssignment<QPlayer>]()) }
                #expect(try QPlayer.all().fetchCount(db) == 5)
            }
        }
    }
}
