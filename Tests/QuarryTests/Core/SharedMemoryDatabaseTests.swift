// Tests of DatabaseQueue(named:): in-memory databases shared by name.

import Foundation
import Quarry
import Testing

@Suite struct SharedMemoryDatabaseTests {
    @Test func queuesWithTheSameNameShareTheirData() throws {
        let name = "shared-\(UUID().uuidString)"
        let first = try DatabaseQueue(named: name)
        let second = try DatabaseQueue(named: name)
        try first.write { db throws in try db.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES ('hello')") }
        #expect(try second.read { db in try String.fetchOne(db, sql: "SELECT v FROM t") } == "hello")
        let other = try DatabaseQueue(named: "other-\(UUID().uuidString)")
        #expect(try other.read { db in try db.tableExists("t") } == false)
    }

    @Test func namesWithSpecialCharactersAreNotURIParameters() throws {
        let name = "a b?mode=rw&x=#\(UUID().uuidString)"
        let first = try DatabaseQueue(named: name)
        try first.write { db throws in try db.execute(sql: "CREATE TABLE t (v)") }
        #expect(try DatabaseQueue(named: name).read { db in try db.tableExists("t") })
        #expect(try DatabaseQueue(named: "a b").read { db in try db.tableExists("t") } == false)
        #expect(!FileManager.default.fileExists(atPath: name))
    }

    @Test func theDatabaseIsGoneWhenTheLastQueueCloses() throws {
        let name = "gone-\(UUID().uuidString)"
        let first = try DatabaseQueue(named: name)
        try first.write { db throws in try db.execute(sql: "CREATE TABLE t (v)") }
        first.close()
        #expect(try DatabaseQueue(named: name).read { db in try db.tableExists("t") } == false)
    }

    @Test func anEmptyNameThrows() throws {
        let error = try #require(throws: DatabaseError.self) { try DatabaseQueue(named: "") }
        #expect(error.message.contains("non-empty name"))
    }
}
