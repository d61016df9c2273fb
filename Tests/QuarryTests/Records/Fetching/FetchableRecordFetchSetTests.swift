// `fetchSet` on Hashable records: from SQL, from the table, by keys (GRDB's
// spelling), on every backend, with the SQL each runs.

import Foundation
import Quarry
import Testing

@Suite struct FetchableRecordFetchSetTests {
    @Test(arguments: Backend.all)
    func hashableRecordsFetchAsSets(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let recorder = SQLRecorder()
                let (all, some, byKeys) = try recorder.record(db) {
                    (try QPlayer.fetchSet(db),
                     try QPlayer.fetchSet(db, sql: "SELECT * FROM player WHERE score >= ?", arguments: [175]),
                     try QPlayer.fetchSet(db, keys: [1, 3, 99]))
                }
                #expect(all == Set(try QPlayer.fetchAll(db)))
                #expect(all.count == 5)
                #expect(Set(some.map(\.name)) == ["Barbara", "Cheng"])
                #expect(Set(byKeys.map(\.name)) == ["Arthur", "Cheng"], "key 99 has no row")
                #expect(recorder.writes == [
                    "SELECT * FROM \"player\"",
                    "SELECT * FROM player WHERE score >= ?",
                    "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?, ?)",
                ])
                // Duplicate rows make one element.
                let twice = try QPlayer.fetchSet(db, sql: "SELECT * FROM player WHERE id = 1 UNION ALL SELECT * FROM player WHERE id = 1")
                #expect(twice.map(\.name) == ["Arthur"])
                #expect(try QPlayer.fetchSet(db, keys: [Int64]()).isEmpty)
            }
        }
    }

    @Test(arguments: Backend.all)
    func fetchSetThrowsWhatTheDatabaseSays(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            // Each in its own read: on PostgreSQL, a failed statement aborts its transaction.
            #expect(throws: DatabaseError.self) { try writer.read { db in try QPlayer.fetchSet(db, sql: "SELECT * FROM nowhere") } }
            // A row that does not decode names its column.
            let error = #expect(throws: RowDecodingError.self) {
                try writer.read { db in try QPlayer.fetchSet(db, sql: "SELECT id, name FROM player") }
            }
            #expect(error?.column == "score")
        }
    }
}
