// Tests of `catch DatabaseError.SQLITE_…` and `catch ResultCode.SQLITE_…`
// pattern matching: extended codes match exactly, primary codes match their
// extended codes, other errors never match.

import Foundation
import Quarry
import Testing

@Suite struct ResultCodeMatchingTests {
    private func violation(_ sql: String) throws -> any Error {
        let dbQueue = try DatabaseQueue()
        return try dbQueue.write { db throws in
            try db.execute(sql: """
                CREATE TABLE team (id INTEGER PRIMARY KEY);
                CREATE TABLE player (id INTEGER PRIMARY KEY, email TEXT UNIQUE, score INTEGER NOT NULL CHECK (score >= 0),
                    teamID INTEGER REFERENCES team(id));
                INSERT INTO player (email, score) VALUES ('a@x.org', 1);
                """)
            do {
                try db.execute(sql: sql)
            } catch {
                return error
            }
            Issue.record("no error for \(sql)")
            return CancellationError()
        }
    }

    private func kind(_ error: any Error) -> String {
        switch error {
        case DatabaseError.SQLITE_CONSTRAINT_UNIQUE: return "unique"
        case DatabaseError.SQLITE_CONSTRAINT_NOTNULL: return "not null"
        case DatabaseError.SQLITE_CONSTRAINT_CHECK: return "check"
        case ResultCode.SQLITE_CONSTRAINT: return "other constraint"
        case ResultCode.SQLITE_ERROR: return "error"
        default: return "not a database error"
        }
    }

    @Test func catchClausesMatchExtendedAndPrimaryCodes() throws {
        #expect(kind(try violation("INSERT INTO player (email, score) VALUES ('a@x.org', 2)")) == "unique")
        #expect(kind(try violation("INSERT INTO player (email, score) VALUES ('b@x.org', NULL)")) == "not null")
        #expect(kind(try violation("INSERT INTO player (email, score) VALUES ('b@x.org', -1)")) == "check")
        #expect(kind(try violation("INSERT INTO player (email, score, teamID) VALUES ('b@x.org', 1, 9)")) == "other constraint")
        #expect(kind(try violation("SELECT * FROM nowhere")) == "error")
        #expect(kind(CancellationError()) == "not a database error")

        do {
            _ = try violation("INSERT INTO player (email, score) VALUES ('a@x.org', 2)")
            throw try violation("INSERT INTO player (email, score) VALUES ('a@x.org', 2)")
        } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
            // caught by the extended code
        } catch {
            Issue.record("not caught: \(error)")
        }
        #expect(!(ResultCode.SQLITE_CONSTRAINT_UNIQUE ~= (DatabaseError(resultCode: .SQLITE_MISUSE, message: "x") as any Error)))
        #expect(DatabaseError.SQLITE_BUSY == ResultCode.SQLITE_BUSY)
    }
}
