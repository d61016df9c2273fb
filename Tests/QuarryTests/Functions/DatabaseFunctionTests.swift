// Tests of Swift functions and aggregates called from SQL: results of every
// type, NULL in and out, arity, errors, deterministic functions in indexes,
// re-registration and removal, registration on every connection of a pool,
// aggregates with GROUP BY and no rows, the query interface, and a median of
// Chinook track lengths per genre.

import Foundation
import Quarry
import Testing

let slugify = DatabaseFunction("slugify", argumentCount: 1, pure: true) { values in
    guard case .text(let text) = values[0] else { return nil }
    return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
}

struct FunctionFailure: Error, CustomStringConvertible {
    var description: String { "the function failed on purpose" }
}

struct Median: DatabaseAggregate {
    var values: [Double] = []
    mutating func step(_ dbValues: [DatabaseValue]) throws {
        if let value = Double.fromDatabaseValue(dbValues[0]) { values.append(value) }
    }
    func finalize() throws -> (any DatabaseValueConvertible)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

let median = DatabaseFunction("median", argumentCount: 1, pure: true, aggregate: Median.self)

/// Counts rows, failing at the row whose value is "fail" or in finalize when asked.
struct Fragile: DatabaseAggregate {
    var count = 0
    var failAtEnd = false
    mutating func step(_ dbValues: [DatabaseValue]) throws {
        if dbValues.first == .text("fail") { throw FunctionFailure() }
        if dbValues.first == .text("failAtEnd") { failAtEnd = true }
        count += 1
    }
    func finalize() throws -> (any DatabaseValueConvertible)? {
        if failAtEnd { throw FunctionFailure() }
        return count
    }
}

@Suite struct DatabaseFunctionTests {
    @Test(arguments: WriterKind.allCases)
    func scalarFunctionsReturnEveryType(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            try db.add(function: slugify)
            try db.add(function: DatabaseFunction("echo") { values in values.isEmpty ? nil : values[values.count - 1] })
            try db.add(function: DatabaseFunction("typed", argumentCount: 1) { values in
                switch values[0] {
                case .integer(1): return true
                case .integer(2): return Date(timeIntervalSince1970: 0)
                case .integer(3): return UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
                case .integer(4): return Data([0, 255])
                case .integer(5): return 2.5
                case .integer(6): return "text\u{0}with NUL"
                default: return nil
                }
            })
        }
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.read { db throws in
            #expect(try String.fetchOne(db, sql: "SELECT slugify(?)", arguments: ["Hello, World!"]) == "hello-world")
            #expect(try String.fetchOne(db, sql: "SELECT slugify(NULL)") == nil)
            #expect(try Row.fetchOne(db, sql: "SELECT echo()")?.databaseValues == [.null])
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT echo(1, 'a', x'00ff')") == .blob(Data([0, 255])))
            #expect(try DatabaseValue.fetchOne(db, sql: "SELECT echo(1.5)") == .real(1.5))
            #expect(try Bool.fetchOne(db, sql: "SELECT typed(1)") == true)
            #expect(try Date.fetchOne(db, sql: "SELECT typed(2)") == Date(timeIntervalSince1970: 0))
            #expect(try UUID.fetchOne(db, sql: "SELECT typed(3)") == UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
            #expect(try Data.fetchOne(db, sql: "SELECT typed(4)") == Data([0, 255]))
            #expect(try Double.fetchOne(db, sql: "SELECT typed(5)") == 2.5)
            #expect(try String.fetchOne(db, sql: "SELECT typed(6)") == "text\u{0}with NUL")
            #expect(try Row.fetchOne(db, sql: "SELECT typed(7)")?.databaseValues == [.null])
        }
    }

    @Test func arityMismatchAndUnknownFunctionsFailToCompile() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(function: slugify)
            let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT slugify('a', 'b')") }
            #expect(error.resultCode == .SQLITE_ERROR)
            #expect(error.message.contains("wrong number of arguments to function slugify()"))
        }
    }

    @Test func thrownErrorsFailTheStatementAndTheConnectionStaysUsable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(function: DatabaseFunction("boom", argumentCount: 0) { _ in throw FunctionFailure() })
            try db.execute(sql: "CREATE TABLE t (x)")
            let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t VALUES (boom())") }
            #expect(error.resultCode == .SQLITE_ERROR)
            #expect(error.message == "the function failed on purpose")
            #expect(error.sql == "INSERT INTO t VALUES (boom())")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 1)
        }
    }

    /// Issue 32: a function or aggregate that throws a DatabaseError fails
    /// the statement with that error's code and message, as in GRDB.
    @Test func thrownDatabaseErrorsKeepTheirCodeAndMessage() throws {
        struct NoNulls: DatabaseAggregate {
            var count = 0
            mutating func step(_ dbValues: [DatabaseValue]) throws {
                if dbValues[0] == .null { throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_CHECK, message: "no_nulls: NULL found") }
                count += 1
            }
            func finalize() throws -> (any DatabaseValueConvertible)? { count }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(function: DatabaseFunction("constrained", argumentCount: 0) { _ in
                throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "custom constraint message")
            })
            try db.add(function: DatabaseFunction("coded", argumentCount: 0) { _ in
                throw DatabaseError(resultCode: ResultCode(rawValue: 123))
            })
            try db.add(function: DatabaseFunction("plain", argumentCount: 0) { _ in throw DatabaseError(message: "plain message") })
            try db.add(function: DatabaseFunction("no_nulls", argumentCount: 1, aggregate: NoNulls.self))
            try db.execute(sql: "CREATE TABLE t (x)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (NULL)")

            let constrained = try #require(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t VALUES (constrained())") }
            #expect(constrained.resultCode == .SQLITE_CONSTRAINT)
            #expect(constrained.isConstraintViolation)
            #expect(constrained.message == "custom constraint message")
            #expect(constrained.description.hasPrefix("SQLite error 19: custom constraint message"))

            let coded = try #require(throws: DatabaseError.self) { try Int.fetchOne(db, sql: "SELECT coded()") }
            #expect(coded.extendedResultCode.rawValue == 123)
            #expect(coded.message == "unknown error")

            let plain = try #require(throws: DatabaseError.self) { try Int.fetchOne(db, sql: "SELECT plain()") }
            #expect(plain.resultCode == .SQLITE_ERROR)
            #expect(plain.message == "plain message")

            let aggregate = try #require(throws: DatabaseError.self) { try Int.fetchOne(db, sql: "SELECT no_nulls(x) FROM t") }
            #expect(aggregate.extendedResultCode == .SQLITE_CONSTRAINT_CHECK)
            #expect(aggregate.message == "no_nulls: NULL found")
            #expect(try Int.fetchOne(db, sql: "SELECT no_nulls(x) FROM t WHERE x IS NOT NULL") == 1)
            // Nothing was inserted by the failed statement.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") == 2)
        }
        // DatabaseError(resultCode:) without a message takes SQLite's text for the code.
        #expect(DatabaseError(resultCode: .SQLITE_CONSTRAINT).message == "constraint failed")
        #expect(DatabaseError().resultCode == .SQLITE_ERROR)
    }

    @Test func pureFunctionsCanBeIndexedAndImpureOnesCannot() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(function: slugify)
            try db.add(function: DatabaseFunction("impure", argumentCount: 1) { $0[0] })
            try db.execute(sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);
                CREATE UNIQUE INDEX player_slug ON player (slugify(name));
                INSERT INTO player (name) VALUES ('José Ramos');
                """)
            let duplicate = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO player (name) VALUES ('JOSÉ  ramos')")
            }
            #expect(duplicate.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM player WHERE slugify(name) = 'x'")
            #expect(try plan.map { try $0["detail"] as String }.joined().contains("player_slug"))
            let impure = try #require(throws: DatabaseError.self) {
                try db.execute(sql: "CREATE INDEX player_impure ON player (impure(name))")
            }
            #expect(impure.message.contains("non-deterministic functions prohibited in index expressions"))
        }
    }

    @Test func reRegisteringReplacesAndRemovingRemoves() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db throws in
            try db.add(function: DatabaseFunction("version", argumentCount: 0) { _ in 1 })
            #expect(try Int.fetchOne(db, sql: "SELECT version()") == 1)
            try db.add(function: DatabaseFunction("version", argumentCount: 0) { _ in 2 })
            #expect(try Int.fetchOne(db, sql: "SELECT version()") == 2)
            try db.remove(function: DatabaseFunction("version", argumentCount: 0) { _ in nil })
            let error = try #require(throws: DatabaseError.self) { _ = try Int.fetchOne(db, sql: "SELECT version()") }
            #expect(error.message.contains("no such function: version"))
            // Removing a function that does not exist is not an error.
            try db.remove(function: DatabaseFunction("never", argumentCount: 0) { _ in nil })
        }
    }

    /// Every connection of a pool runs prepareDatabase: the writer and
    /// readers opened one after the other by parallel reads.
    @Test func functionsOfTheConfigurationExistOnEveryPoolConnection() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.maximumReaderCount = 4
        configuration.prepareDatabase = { db in
            try db.add(function: slugify)
            try db.add(function: median)
        }
        let dbPool = try DatabasePool(path: directory.path(), configuration: configuration)
        try await dbPool.write { db throws in
            try db.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (4)")
            #expect(try String.fetchOne(db, sql: "SELECT slugify('A B')") == "a-b")
        }
        let gate = ThreadGate()
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await dbPool.read { db throws in
                        // Hold the reader so that the next read opens another connection.
                        _ = gate.wait(seconds: 0.3)
                        return [
                            try String.fetchOne(db, sql: "SELECT slugify('X Y')") ?? "",
                            String(try Double.fetchOne(db, sql: "SELECT median(x) FROM t") ?? 0),
                        ]
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: ["x-y", "2.0"], count: 4))
    }

    @Test(arguments: WriterKind.allCases)
    func aggregatesGroupAndFinalizeEmptyGroups(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            try db.add(function: median)
            try db.add(function: DatabaseFunction("fragile", argumentCount: 1, aggregate: Fragile.self))
        }
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db throws in
            try db.execute(sql: """
                CREATE TABLE score (team TEXT, points INTEGER);
                INSERT INTO score VALUES ('a', 1), ('a', 5), ('a', 3), ('b', 10), ('b', 20), ('c', NULL);
                """)
        }
        try writer.read { db throws in
            let rows = try Row.fetchAll(db, sql: "SELECT team, median(points) AS m FROM score GROUP BY team ORDER BY team")
            #expect(try rows.map { try $0["m"] as Double? } == [3, 15, nil])
            #expect(try Row.fetchOne(db, sql: "SELECT median(points) FROM score WHERE 0")?.databaseValues == [.null])
            #expect(try Int.fetchOne(db, sql: "SELECT fragile(team) FROM score WHERE 0") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT fragile(team) FROM score") == 6)
            let stepError = try #require(throws: DatabaseError.self) {
                _ = try Int.fetchOne(db, sql: "SELECT fragile(x) FROM (SELECT 'ok' AS x UNION ALL SELECT 'fail')")
            }
            #expect(stepError.message == "the function failed on purpose")
            let finalError = try #require(throws: DatabaseError.self) {
                _ = try Int.fetchOne(db, sql: "SELECT fragile('failAtEnd')")
            }
            #expect(finalError.message == "the function failed on purpose")
            #expect(try Int.fetchOne(db, sql: "SELECT fragile(team) FROM score") == 6)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func functionsAndAggregatesFromTheQueryInterface(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in
            try db.add(function: slugify)
            try db.add(function: median)
        }
        let writer = try kind.make(in: directory, configuration: configuration)
        try writer.write { db throws in
            try makeQueryFixtures(db)
            try db.execute(sql: "UPDATE player SET name = 'José Ramos' WHERE id = 1")
        }
        try writer.read { db throws in
            let request = QPlayer.filter(slugify(\.name) == "josé-ramos")
            try expectSQL(request, db, "SELECT * FROM \"player\" WHERE slugify(\"name\") = ?", ["josé-ramos"])
            #expect(try request.fetchAll(db).map(\.id) == [1])
            let medianScore: Double? = try QPlayer.select(median(\.score)).fetchOne(db)
            #expect(medianScore == 100)
            let perTeam = try QPlayer.filter(\.teamID != nil).select(median(\.score, as: Double.self)).group(\.teamID)
                .order(\.teamID).fetchAll(db)
            #expect(perTeam == [175, 175])
        }
    }

    /// The median track length per genre through the Swift aggregate equals
    /// the one computed in Swift from the fetched rows.
    @Test func chinookMedianTrackLengthPerGenre() throws {
        let directory = try TemporaryDirectory()
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.add(function: median) }
        let dbQueue = try DatabaseQueue(path: try chinookCopy(in: directory), configuration: configuration)
        try dbQueue.read { db throws in
            let sqlMedians = try Row.fetchAll(db, sql: "SELECT GenreId, median(Milliseconds) AS m FROM Track GROUP BY GenreId")
            var lengths: [Int64: [Double]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT GenreId, Milliseconds FROM Track") {
                lengths[try row["GenreId"], default: []].append(try row["Milliseconds"])
            }
            #expect(sqlMedians.count == lengths.count)
            #expect(sqlMedians.count > 20)
            for row in sqlMedians {
                let genre: Int64 = try row["GenreId"]
                let sorted = (lengths[genre] ?? []).sorted()
                let middle = sorted.count / 2
                let expected = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
                #expect(try row["m"] as Double == expected, "genre \(genre)")
            }
        }
    }
}
