// Regression tests: an error in one statement of a multi-statement
// execute(sql:) reports that statement's text alone, without the newlines
// around it and its semicolon.

import Foundation
import Quarry
import Testing

@Suite struct ExecuteErrorSQLTests {
    @Test func failingStatementIsReportedAlone() throws {
        let dbQueue = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in
                try db.execute(sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
                    INSERT INTO t (name) VALUES ('a');
                    INSERT INTO t (name) VALUES ('a');
                    INSERT INTO t (name) VALUES ('b');
                    """)
            }
        }
        #expect(error.resultCode == .SQLITE_CONSTRAINT)
        #expect(error.sql == "INSERT INTO t (name) VALUES ('a')")
    }

    @Test func statementThatDoesNotCompileIsReportedAlone() throws {
        let dbQueue = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in
                try db.execute(sql: "CREATE TABLE t (id INTEGER);\n  SELECT * FROM missing WHERE a = ';';\nSELECT 1;\n")
            }
        }
        #expect(error.resultCode == .SQLITE_ERROR)
        #expect(error.sql == "SELECT * FROM missing WHERE a = ';'")
        #expect(error.message.contains("no such table: missing"))
    }

    @Test func singleStatementKeepsItsText() throws {
        let dbQueue = try DatabaseQueue()
        let error = try #require(throws: DatabaseError.self) {
            try dbQueue.write { db in try db.execute(sql: "SELECT * FROM nowhere") }
        }
        #expect(error.sql == "SELECT * FROM nowhere")
    }
}
