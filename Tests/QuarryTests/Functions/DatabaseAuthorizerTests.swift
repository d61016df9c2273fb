// Tests of the authorizer: a read-only reporting scope that denies each
// class of action (writes, DDL, PRAGMA, ATTACH, transactions), IGNORE on a
// column, statements compiled before the scope, scoping on pooled
// connections, and nesting.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseAuthorizerTests {
    /// Reads and function calls only: what a reporting query needs.
    static func readOnly(_ action: DatabaseAuthorization) -> AuthorizerDecision {
        switch action.kind {
        case .read, .function: return .allow
        default: return .deny
        }
    }

    @Test(arguments: WriterKind.allCases)
    func reportingScopeDeniesEveryOtherAction(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in try makeQueryFixtures(db) }
        try writer.writeWithoutTransaction { db throws in
            let names = try db.withAuthorizer(Self.readOnly) {
                try String.fetchAll(db, sql: "SELECT name FROM player WHERE score > ? ORDER BY lower(name)", arguments: [100])
            }
            #expect(names == ["Barbara", "Cheng"])
            for sql in [
                "INSERT INTO player (name, score) VALUES ('x', 1)",
                "UPDATE player SET score = 0",
                "DELETE FROM player",
                "CREATE TABLE evil (x)",
                "DROP TABLE team",
                "ALTER TABLE player ADD COLUMN evil",
                "CREATE INDEX evil ON player (score)",
                "PRAGMA foreign_keys = OFF",
                "ATTACH DATABASE ':memory:' AS evil",
                "BEGIN",
            ] {
                let error = try #require(throws: DatabaseError.self, "\(sql)") {
                    try db.withAuthorizer(Self.readOnly) { try db.execute(sql: sql) }
                }
                #expect(error.resultCode == .SQLITE_AUTH, "\(sql)")
            }
            // Nothing was changed, and outside the scope writes work again.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") == 5)
            try db.execute(sql: "UPDATE player SET score = score + 1 WHERE id = 1")
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE id = 1") == 101)
        }
    }

    @Test func actionsAreReportedWithTheirNames() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try makeQueryFixtures(db) }
        var seen: [String] = []
        try dbQueue.read { db throws in
            _ = try db.withAuthorizer({ action in
                seen.append("\(action.kind) \(action.target ?? "-").\(action.detail ?? "-")")
                return .allow
            }) {
                try Int.fetchOne(db, sql: "SELECT abs(score) FROM player")
            }
        }
        #expect(seen.contains("read player.score"))
        #expect(seen.contains("function -.abs"))
    }

    @Test func ignoreReadsNull() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try makeQueryFixtures(db) }
        let scores = try dbQueue.read { db throws in
            try db.withAuthorizer({ $0.kind == .read && $0.detail == "score" ? .ignore : .allow }) {
                try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id LIMIT 2")
            }
        }
        #expect(try scores.map { try $0["score"] as Int? } == [nil, nil])
        #expect(try scores.map { try $0["name"] as String } == ["Arthur", "Barbara"])
    }

    /// A statement compiled and cached before the scope is authorized again.
    @Test func statementsCompiledBeforeAreAuthorizedAgain() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makeQueryFixtures(db)
            let update = try db.cachedStatement(sql: "UPDATE player SET score = score + 1")
            try update.execute()
            let error = try #require(throws: DatabaseError.self) {
                try db.withAuthorizer(Self.readOnly) { try db.cachedStatement(sql: "UPDATE player SET score = score + 1").execute() }
            }
            #expect(error.resultCode == .SQLITE_AUTH)
            // Records use cached statements too.
            #expect(throws: DatabaseError.self) {
                try db.withAuthorizer(Self.readOnly) {
                    var player = QPlayer(id: nil, name: "x", score: 1, teamID: nil, bonus: 0, isActive: true)
                    try player.insert(db)
                }
            }
            #expect(try QPlayer.fetchCount(db) == 5)
        }
    }

    @Test func nestedScopesRestoreTheOuterAuthorizer() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try makeQueryFixtures(db)
            try db.withAuthorizer(Self.readOnly) {
                try db.withAuthorizer({ _ in .allow }) {
                    try db.execute(sql: "UPDATE player SET score = 0 WHERE id = 1")
                }
                let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "UPDATE player SET score = 0 WHERE id = 2") }
                #expect(error.resultCode == .SQLITE_AUTH)
            }
            #expect(try Int.fetchAll(db, sql: "SELECT score FROM player WHERE id IN (1, 2) ORDER BY id") == [0, 250])
        }
    }

    /// The scope ends with its closure: the next user of a pooled reader
    /// connection is not under the authorizer.
    @Test func scopeNeverLeaksToTheNextUserOfAPooledConnection() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 1
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try await dbPool.write { db in try makeQueryFixtures(db) }
        await #expect(throws: DatabaseError.self) {
            try await dbPool.read { db throws in
                try db.withAuthorizer({ _ in .deny }) { _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") }
            }
        }
        #expect(try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") } == 5)
    }
}
