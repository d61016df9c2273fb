// Configuration.prepareDatabase(_:) adds steps that all run, in order, on
// every new connection, before the prepareDatabase property's closure.

import Foundation
import Quarry
import Testing

@Suite struct PrepareDatabaseTests {
    @Test(arguments: WriterKind.allCases)
    func stepsRunInOrderOnEveryConnection(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let log = MigrationLog()
        var config = Configuration()
        config.prepareDatabase { db in
            log.append("first")
            try db.execute(sql: "PRAGMA cache_size = -1111")
        }
        config.prepareDatabase { db in
            log.append("second")
            try db.execute(sql: "PRAGMA cache_size = -2222")
        }
        config.prepareDatabase = { _ in log.append("property") }
        let writer = try kind.make(in: directory, configuration: config)
        try writer.read { db throws in #expect(try Int.fetchOne(db, sql: "PRAGMA cache_size") == -2222) }
        try writer.write { db throws in #expect(try Int.fetchOne(db, sql: "PRAGMA cache_size") == -2222) }
        let names = log.names
        #expect(names.count % 3 == 0 && names.count >= 3)
        for start in stride(from: 0, to: names.count, by: 3) {
            #expect(Array(names[start..<start + 3]) == ["first", "second", "property"])
        }
    }

    @Test func aThrowingStepFailsTheOpening() throws {
        let directory = try TemporaryDirectory()
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA no_such_thing; SELECT * FROM missing") }
        let error = try #require(throws: DatabaseError.self) { try DatabaseQueue(path: directory.path(), configuration: config) }
        #expect(error.message.contains("no such table: missing"))
    }

    @Test func doubleQuotedStringsAreRefusedUnlessAccepted() throws {
        let refusing = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) { try refusing.read { db in try String.fetchOne(db, sql: "SELECT \"text\"") } }
        #expect(error.message.contains("no such column: text"))
        var config = Configuration()
        config.acceptsDoubleQuotedStringLiterals = true
        let accepting = try DatabaseQueue(configuration: config)
        #expect(try accepting.read { db in try String.fetchOne(db, sql: "SELECT \"text\"") } == "text")
    }
}
