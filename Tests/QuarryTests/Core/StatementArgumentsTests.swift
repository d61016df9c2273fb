// Tests of statement arguments: positional, named, mixed, counts, and injection safety.

import Foundation
import Quarry
import Testing

@Suite struct StatementArgumentsTests {
    let dbQueue: DatabaseQueue

    init() throws {
        dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
        }
    }

    @Test func positionalAndNamed() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["name": "Barbara", "score": 200])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ($name, @score)", arguments: ["$name": "Cheng", "score": nil])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?2, ?1)", arguments: [300, "Dora"])
            let rows = try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY id")
            #expect(rows.map(\.databaseValues) == [
                ["Arthur", 100], ["Barbara", 200], ["Cheng", nil], ["Dora", 300],
            ])
        }
    }

    @Test func namedParametersFallBackToPositionalValues() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)", arguments: ["Eve", 5])
            #expect(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE name = 'Eve'") == 5)
        }
    }

    @Test func wrongCountsThrow() throws {
        try dbQueue.write { db throws in
            let tooFew = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["a"])
            }
            #expect(tooFew.resultCode == .SQLITE_MISUSE)
            #expect(tooFew.message.contains("wrong number of statement arguments"))
            let tooMany = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: ["a", "b"])
            }
            #expect(tooMany.message == "wrong number of statement arguments: 2 given, 1 used")
            let missingName = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name) VALUES (:name)", arguments: ["other": "a"])
            }
            #expect(missingName.message == "missing statement argument for parameter :name")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM player") == 0)
        }
    }

    @Test func argumentsFeedSeveralStatementsInOrder() throws {
        try dbQueue.write { db throws in
            try db.execute(sql: """
                INSERT INTO player (name) VALUES (?);
                INSERT INTO player (name) VALUES (?), (?);
                """, arguments: ["a", "b", "c"])
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == ["a", "b", "c"])
        }
    }

    @Test func valuesAreNeverSplicedIntoSQL() throws {
        let payloads = ["'; DROP TABLE player; --", "\" OR 1=1 --", "Robert'); DELETE FROM player;--", "%_\\"]
        try dbQueue.write { db throws in
            for payload in payloads {
                try db.execute(sql: "INSERT INTO player (name) VALUES (?)", arguments: [payload])
            }
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY id") == payloads)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM player WHERE name = :name", arguments: ["name": payloads[0]]) == 1)
        }
    }

    @Test func composesAndDescribes() {
        var arguments: StatementArguments = [1, "a"]
        arguments.append(contentsOf: ["name": "x"])
        arguments.append([nil])
        #expect(arguments.values == [1, "a", nil])
        #expect(arguments.namedValues == ["name": "x"])
        #expect(arguments.description == "[1, 'a', NULL, name: 'x']")
        #expect(([1] as StatementArguments) + [2] == [1, 2])
        #expect(StatementArguments().isEmpty)
    }
}

/// GRDB's `statement.arguments = …` then `statement.execute()` (issue 32).
@Suite struct StatementArgumentsPropertyTests {
    @Test func argumentsSetThenExecute() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.execute(sql: "CREATE TABLE player (name TEXT, score INTEGER)")
            let statement = try db.makeStatement(sql: "INSERT INTO player (name, score) VALUES (:name, :score)")
            statement.arguments = ["name": "Arthur", "score": 10]
            #expect(statement.arguments == ["name": "Arthur", "score": 10])
            try statement.execute()
            // Executing again without arguments reuses the bound ones.
            try statement.execute()
            try statement.execute(arguments: ["name": "Barbara", "score": 20])
            #expect(statement.arguments == ["name": "Barbara", "score": 20])
            statement.arguments = ["name": "Craig", "score": 30]
            try statement.execute()
            try statement.setArguments(["name": "Diane", "score": 40])
            try statement.execute()
            #expect(try String.fetchAll(db, sql: "SELECT name FROM player ORDER BY rowid") == ["Arthur", "Arthur", "Barbara", "Craig", "Diane"])

            // Arguments that do not fit: GRDB's setter stops the program; Quarry's
            // next execution throws, and setArguments throws at once.
            statement.arguments = ["name": "Eve"]
            let missing = try #require(throws: DatabaseError.self) { try statement.execute() }
            #expect(missing.message.contains("score"))
            #expect(throws: DatabaseError.self) { try statement.setArguments(["Eve", 1, 2]) }
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player") == 5)
        }
    }
}
