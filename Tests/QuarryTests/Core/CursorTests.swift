// StatementCursor after a failure: every later next() throws the error again
// (issue 32), so a caller that goes on iterating never takes a failed query
// for a complete one; GRDB's cursor type names.

import Foundation
import Quarry
import Testing

private struct CursorFailure: Error, CustomStringConvertible {
    var description: String { "the second row fails" }
}

@Suite struct CursorTests {
    /// A step error (a function that throws on the second row).
    @Test(arguments: WriterKind.allCases)
    func stepErrorIsThrownByEveryLaterNext(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.add(function: DatabaseFunction("throwing_function", argumentCount: 1) { values in
                if values[0] == .integer(2) { throw CursorFailure() }
                return values[0]
            })
            try db.execute(sql: "CREATE TABLE t (x INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
            let cursor: RowCursor = try Row.fetchCursor(db, sql: "SELECT throwing_function(x), NULL FROM t")
            #expect(try cursor.next()?[0] == .integer(1))
            for _ in 0..<3 {
                let error = try #require(throws: DatabaseError.self) { try cursor.next() }
                #expect(error.message == "the second row fails")
            }
            // The statement was reset: the connection goes on.
            #expect(try Int.fetchAll(db, sql: "SELECT x FROM t ORDER BY x") == [1, 2, 3])
        }
    }

    /// A decoding error, on every backend (server rows included).
    @Test(arguments: Backend.all)
    func decodingErrorIsThrownByEveryLaterNext(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO t (id, name) VALUES (1, 'a'), (2, NULL), (3, 'c')")
            }
            try writer.read { db throws in
                let cursor: DatabaseValueCursor<String> = try String.fetchCursor(db, sql: "SELECT name FROM t ORDER BY id")
                #expect(try cursor.next() == "a")
                let first = try #require(throws: RowDecodingError.self) { try cursor.next() }
                let second = try #require(throws: RowDecodingError.self) { try cursor.next() }
                #expect("\(first)" == "\(second)")
                #expect("\(first)".contains("NULL"))
                // A transformed cursor throws it again too.
                let mapped = try String.fetchCursor(db, sql: "SELECT name FROM t ORDER BY id").map { $0.uppercased() }
                #expect(try mapped.next() == "A")
                #expect(throws: RowDecodingError.self) { try mapped.next() }
                #expect(throws: RowDecodingError.self) { try mapped.next() }
                // isEmpty is a throwing property, as in GRDB.
                #expect(try String.fetchCursor(db, sql: "SELECT name FROM t WHERE id = 0").isEmpty)
                #expect(try !String.fetchCursor(db, sql: "SELECT name FROM t").isEmpty)
            }
        }
    }
}
