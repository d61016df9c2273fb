// Tests of the value types of change observation: DatabaseRegion,
// DatabaseEventKind, DatabaseEvent, AnyDatabaseCancellable, and
// Database.recordingRegion when the fetch throws.

import Quarry
import Synchronization
import Testing

@Suite("Database regions and events")
struct DatabaseRegionTests {
    @Test("regions: whole tables, unions, the full database, events")
    func regions() {
        let player = DatabaseRegion(table: "Player")
        #expect(player.description == "player(*)")
        #expect(player.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["anything"])))
        #expect(player.isModified(by: DatabaseEvent(kind: .delete, tableName: "PLAYER", rowID: 1)))
        #expect(!player.isModified(by: DatabaseEvent(kind: .insert, tableName: "team", rowID: 1)))
        let both = player.union(DatabaseRegion(table: "team"))
        #expect(both.tableNames == ["player", "team"])
        #expect(both.isModified(byEventsOfKind: .insert(tableName: "team")))
        #expect(!DatabaseRegion().isModified(byEventsOfKind: .insert(tableName: "team")))
        #expect(DatabaseRegion().isEmpty)
        #expect(!both.isEmpty)
        let full = DatabaseRegion.fullDatabase
        #expect(full.isFullDatabase)
        #expect(full.isModified(byEventsOfKind: .delete(tableName: "anything")))
        #expect(both.union(full).isFullDatabase)
        #expect(full.description == "full database")
        #expect(DatabaseRegion().description == "empty")
    }

    @Test("event kinds match events of the same kind and table, whatever the case")
    func eventKinds() {
        let event = DatabaseEvent(kind: .update, tableName: "Player", rowID: 3)
        #expect(DatabaseEventKind.update(tableName: "player", columnNames: ["score"]).matches(event))
        #expect(!DatabaseEventKind.insert(tableName: "player").matches(event))
        #expect(!DatabaseEventKind.update(tableName: "team", columnNames: []).matches(event))
        #expect(DatabaseEventKind.update(tableName: "player", columnNames: ["b", "a"]).description == "update player(a, b)")
        #expect(DatabaseEventKind.delete(tableName: "t").tableName == "t")
        #expect(event.description == "update Player(3)")
        #expect(event.databaseName == "main")
    }

    @Test("AnyDatabaseCancellable runs its action once, on cancel() or when deallocated")
    func cancellable() {
        let count = Atomic<Int>(0)
        let cancellable = AnyDatabaseCancellable { count.add(1, ordering: .relaxed) }
        cancellable.cancel()
        cancellable.cancel()
        #expect(count.load(ordering: .relaxed) == 1)
        do {
            _ = AnyDatabaseCancellable { count.add(1, ordering: .relaxed) }
        }
        #expect(count.load(ordering: .relaxed) == 2)
    }

    @Test("recordingRegion rethrows the fetch's error, and nests")
    func recordingRegionErrors() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE a (x); CREATE TABLE b (y)")
        }
        try dbQueue.read { db throws in
            #expect(throws: DatabaseError.self) {
                _ = try db.recordingRegion { try Row.fetchAll(db, sql: "SELECT missing FROM a") }
            }
            let (inner, outer) = try db.recordingRegion { () throws -> DatabaseRegion in
                _ = try Row.fetchAll(db, sql: "SELECT x FROM a")
                let (_, inner) = try db.recordingRegion { try Row.fetchAll(db, sql: "SELECT y FROM b") }
                return inner
            }
            #expect(inner.description == "b(y)")
            #expect(outer.description == "a(x),b(y)")
            // After recording, statements run without recording.
            _ = try Row.fetchAll(db, sql: "SELECT x FROM a")
        }
    }
}
