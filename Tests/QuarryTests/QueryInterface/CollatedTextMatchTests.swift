// hasPrefix, hasSuffix and contains on a collated text
// (`$0.name.collating(.nocase).hasPrefix("a")`): GLOB and instr(), which they
// use otherwise, ignore collations, so the collation must compare the text's
// first or last characters instead, or the request must throw.

import Quarry
import QuarryTestSupport
import Testing

@Suite struct CollatedTextMatchTests {
    @Test(arguments: Backend.all)
    func prefixAndSuffixUseTheCollation(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let prefix = QPlayer.filter { $0.name.collating(.nocase).hasPrefix("ar") }
                try expectSQL(
                    prefix, db, #"SELECT * FROM "player" WHERE (substr("name", ?, length(CAST(? AS TEXT))) COLLATE "NOCASE") = ?"#,
                    [1, "ar", "ar"])
                let suffix = QPlayer.filter { $0.name.collating(.nocase).hasSuffix("RA") }
                try expectSQL(
                    suffix, db,
                    #"SELECT * FROM "player" WHERE (substr("name", (length("name") - length(CAST(? AS TEXT))) + ?) COLLATE "NOCASE") = ?"#,
                    ["RA", 1, "RA"])
                let columnPrefix = QPlayer.filter(Column("name").collating(.nocase).hasPrefix("ar"))
                if backend.isPostgreSQL {
                    // Its "C" collation compares bytes, as BINARY does.
                    let c = QPlayer.filter { $0.name.collating(Collation("C")).hasPrefix("Ar") }
                    #expect(try c.select(\.id).fetchAll(db) == [1])
                    #expect(try QPlayer.filter { $0.name.collating(Collation("C")).hasPrefix("ar") }.fetchCount(db) == 0)
                    let cSuffix = QPlayer.filter { $0.name.collating(Collation("C")).hasSuffix("ra") }
                    #expect(try cSuffix.order(\.id).select(\.id).fetchAll(db) == [2, 4])
                    // PostgreSQL has no NOCASE collation: the server refuses it,
                    // as it refuses `collating(.nocase) == …` (last: the error
                    // ends the read transaction).
                    let error = #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try prefix.fetchAll(db) } }
                    // undefined_object: collation "NOCASE" does not exist
                    #expect(error?.sqlState == "42704", "\(String(describing: error))")
                    #expect(error?.message.contains("NOCASE") == true, "\(String(describing: error))")
                } else {
                    #expect(try prefix.select(\.id).fetchAll(db) == [1])
                    #expect(try columnPrefix.select(\.id).fetchAll(db) == [1])
                    #expect(try suffix.order(\.id).select(\.id).fetchAll(db) == [2, 4])
                    #expect(try Int64.fetchAll(db, sql: "SELECT id FROM player WHERE name LIKE 'ar%'") == [1])
                    // BINARY stays case-sensitive.
                    #expect(try QPlayer.filter { $0.name.collating(.binary).hasPrefix("ar") }.fetchCount(db) == 0)
                    #expect(try QPlayer.filter { $0.name.collating(.binary).hasPrefix("Ar") }.fetchCount(db) == 1)
                    // A suffix longer than the text, and an empty one.
                    #expect(try QPlayer.filter { $0.name.collating(.nocase).hasSuffix("xxxxxxxxdora") }.fetchCount(db) == 0)
                    #expect(try QPlayer.filter { $0.name.collating(.nocase).hasSuffix("") }.fetchCount(db) == 5)
                    #expect(try QPlayer.filter { $0.name.collating(.nocase).hasPrefix("") }.fetchCount(db) == 5)
                    // Wildcards are literal.
                    #expect(try QPlayer.filter { $0.name.collating(.nocase).hasSuffix("E_%") }.select(\.id).fetchAll(db) == [5])
                    #expect(try QPlayer.filter { $0.name.collating(.nocase).hasPrefix("%") }.fetchCount(db) == 0)
                }
            }
        }
    }

    @Test(arguments: Backend.all)
    func containsUnderNocaseIgnoresCase(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db in
                let request = QPlayer.filter { $0.name.collating(.nocase).contains("AR") }
                let instr = backend.isPostgreSQL ? "strpos" : "instr"
                try expectSQL(
                    request, db, #"SELECT * FROM "player" WHERE \#(instr)(lower("name"), lower(CAST(? AS TEXT))) > ?"#, ["AR", 0])
                #expect(try request.order(\.id).select(\.id).fetchAll(db) == [1, 2])
                #expect(try Int64.fetchAll(db, sql: "SELECT id FROM player WHERE lower(name) LIKE '%ar%' ORDER BY id") == [1, 2])
            }
        }
    }

    /// Refused before any SQL is sent, whatever the dialect.
    @Test(arguments: Backend.all)
    func otherCollationsAndNULsAreRefused(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in try writer.read { db throws in
            #expect {
                try QPlayer.filter { $0.name.collating(.rtrim).contains("a") }.fetchAll(db)
            } throws: { error in
                "\(error)".contains("contains(_:) under collating(RTRIM)")
            }
            #expect {
                try QPlayer.filter { $0.name.collating(.nocase).hasPrefix("a\u{0}b") }.fetchAll(db)
            } throws: { error in
                "\(error)".contains("NUL character")
            }
        } }
    }
}
