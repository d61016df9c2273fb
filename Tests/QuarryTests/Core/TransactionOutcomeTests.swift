// Shared suite: what a transaction reports is what the database did, on
// SQLite and on PostgreSQL. A statement whose failure the closure catches
// leaves an SQLite transaction usable, and the rest of it commits; on
// PostgreSQL it aborts the whole transaction, whose COMMIT the server answers
// with ROLLBACK: that COMMIT throws, never reports success. A transaction
// left open by raw SQL never reaches the next access.

import Foundation
@testable import Quarry
import Testing

@Suite struct TransactionOutcomeTests {
    static func makeTable(_ writer: any DatabaseWriter) throws {
        try writer.write { db in try db.execute(sql: "CREATE TABLE entry (id INTEGER PRIMARY KEY, note TEXT)") }
    }

    static func ids(_ writer: any DatabaseWriter) throws -> [Int] {
        try writer.read { db in try Int.fetchAll(db, sql: "SELECT id FROM entry ORDER BY id") }
    }

    /// Checks the error of a COMMIT that the server answered with ROLLBACK.
    static func expectRolledBackCommit(_ error: any Error, failed statement: String) {
        guard let error = error as? DatabaseError else {
            Issue.record("not a DatabaseError: \(error)")
            return
        }
        #expect(error.sqlState == "25P02", "\(error)")
        #expect(error.message.contains("rolled the transaction back instead of committing it"), "\(error)")
        #expect(error.message.contains(statement), "\(error)")
        #expect(error.message.contains("inSavepoint"), "\(error)")
    }

    @Test(arguments: Backend.all)
    func aCaughtFailureInAWriteCommitsOnSQLiteAndThrowsOnPostgreSQL(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.makeTable(writer)
            let duplicate = "INSERT INTO entry (id, note) VALUES (1, 'duplicate')"
            let result = Result {
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO entry (id, note) VALUES (1, 'order')")
                    do { try db.execute(sql: duplicate) } catch {}  // a duplicate is fine, says the closure
                    try db.execute(sql: "INSERT INTO entry (id, note) VALUES (2, 'after')")
                }
            }
            if backend.isPostgreSQL {
                // The first failure aborted the transaction: the statement after it failed too.
                let error = try #require(throws: (any Error).self) { try result.get() }
                #expect((error as? DatabaseError)?.sqlState == "25P02", "\(error)")
                #expect(try Self.ids(writer) == [])
            } else {
                try result.get()
                #expect(try Self.ids(writer) == [1, 2])
            }
        }
    }

    @Test(arguments: Backend.all)
    func aCommitAfterACaughtFailureIsNeverReportedAsSuccess(_ backend: Backend) async throws {
        try await backend.withWriter { writer in
            try Self.makeTable(writer)
            let duplicate = "INSERT INTO entry (id, note) VALUES (1, 'audit')"
            let body: @Sendable (Database) throws -> Void = { db in
                try db.execute(sql: "INSERT INTO entry (id, note) VALUES (1, 'order')")
                do { try db.execute(sql: duplicate) } catch {}
            }
            // The sync and the async write; then inTransaction.
            for run in 0..<3 {
                try await writer.write { db in try db.execute(sql: "DELETE FROM entry") }
                let outcome: Result<Void, any Error>
                switch run {
                case 0: outcome = Result { try writer.write(body) }
                case 1:
                    do { outcome = .success(try await writer.write(body)) } catch { outcome = .failure(error) }
                default:
                    outcome = Result {
                        try writer.writeWithoutTransaction { db in
                            try db.inTransaction {
                                try body(db)
                                return .commit
                            }
                        }
                    }
                }
                if backend.isPostgreSQL {
                    switch outcome {
                    case .success: Issue.record("run \(run): the write reported success; its COMMIT was answered ROLLBACK")
                    case .failure(let error): Self.expectRolledBackCommit(error, failed: duplicate)
                    }
                    #expect(try Self.ids(writer) == [], "run \(run)")
                } else {
                    try outcome.get()
                    #expect(try Self.ids(writer) == [1], "run \(run)")
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func aReadWithACaughtFailureThrowsOnPostgreSQL(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.makeTable(writer)
            let failing = "SELECT * FROM missing_table"
            let result = Result {
                try writer.read { db -> Int in
                    do { _ = try Row.fetchAll(db, sql: failing) } catch {}
                    return 1
                }
            }
            if backend.isPostgreSQL {
                let error = try #require(throws: (any Error).self) { try result.get() }
                Self.expectRolledBackCommit(error, failed: failing)
            } else {
                #expect(try result.get() == 1)
            }
        }
    }

    @Test(arguments: Backend.all)
    func aSavepointAroundTheHandledStatementCommitsOnBothBackends(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.makeTable(writer)
            try writer.write { db in
                try db.execute(sql: "INSERT INTO entry (id, note) VALUES (1, 'order')")
                do {
                    try db.inSavepoint {
                        try db.execute(sql: "INSERT INTO entry (id, note) VALUES (1, 'audit')")
                        return .commit
                    }
                } catch let error as DatabaseError where error.isUniqueConstraintViolation {
                    // The savepoint was rolled back; the transaction goes on.
                }
                try db.execute(sql: "INSERT INTO entry (id, note) VALUES (2, 'after')")
            }
            #expect(try Self.ids(writer) == [1, 2])
        }
    }

    @Test(arguments: Backend.all)
    func aFailedRollbackToTheSavepointRollsBackTheWholeTransaction(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try Self.makeTable(writer)
            var refusedLater = false
            let outcome = Result {
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO entry (id) VALUES (1)")
                    // The block releases Quarry's savepoint itself, so that
                    // rolling back to it fails.
                    let rollback = Result {
                        try db.inSavepoint {
                            try db.execute(sql: "RELEASE SAVEPOINT quarry")
                            try db.execute(sql: "INSERT INTO entry (id) VALUES (2)")
                            return .rollback
                        }
                    }
                    #expect(throws: DatabaseError.self) { try rollback.get() }
                    // The whole transaction is gone: later statements are refused.
                    do {
                        try db.execute(sql: "INSERT INTO entry (id) VALUES (3)")
                    } catch {
                        refusedLater = true
                    }
                }
            }
            #expect(throws: DatabaseError.self) { try outcome.get() }
            #expect(refusedLater)
            // Never the insert of the rolled-back savepoint, nor one committed on its own.
            #expect(try Self.ids(writer) == [])
        }
    }

    /// Raw SQL opens a transaction in a form the first keyword does not show;
    /// the access throws. The next access must not run inside that
    /// transaction (and commit the thrown access's writes with its own).
    @Test(arguments: Backend.all, ["/* opened by hand */ BEGIN", "-- note\nBEGIN", "  /* a */ /* b */\n begin"])
    func aTransactionOpenedByRawSQLNeverReachesTheNextAccess(_ backend: Backend, begin: String) throws {
        try backend.withWriter { writer in
            try Self.makeTable(writer)
            struct Failure: Error {}
            #expect(throws: Failure.self) {
                try writer.writeWithoutTransaction { db in
                    try db.execute(sql: begin)
                    #expect(db.isInsideTransaction)
                    try db.execute(sql: "INSERT INTO entry (id) VALUES (1)")
                    throw Failure()
                }
            }
            try writer.write { db in try db.execute(sql: "INSERT INTO entry (id) VALUES (2)") }
            try writer.writeWithoutTransaction { db in #expect(!db.isInsideTransaction) }
            #expect(try Self.ids(writer) == [2])
        }
    }
}
