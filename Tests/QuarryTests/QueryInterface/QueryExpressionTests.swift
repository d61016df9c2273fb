// Tests of query expressions: every operator, function and method, with the
// SQL it generates and the rows it selects.

import Foundation
import Quarry
import Testing

@Suite struct QueryExpressionTests {
    /// The names of the players `request` selects, in id order.
    func names(_ writer: any DatabaseWriter, _ request: QueryRequest<QPlayer, QPlayer>) throws -> [String] {
        try writer.read { db in try request.order(\.id).fetchAll(db).map(\.name) }
    }

    @Test(arguments: Backend.all) func comparisonsWithValues(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter(\.score == 100), db, "SELECT * FROM \"player\" WHERE \"score\" = ?", [100])
                try expectSQL(QPlayer.filter(\.score != 100), db, "SELECT * FROM \"player\" WHERE \"score\" <> ?", [100])
                try expectSQL(QPlayer.filter(\.score < 100), db, "SELECT * FROM \"player\" WHERE \"score\" < ?", [100])
                try expectSQL(QPlayer.filter(\.score <= 100), db, "SELECT * FROM \"player\" WHERE \"score\" <= ?", [100])
                try expectSQL(QPlayer.filter(\.score > 100), db, "SELECT * FROM \"player\" WHERE \"score\" > ?", [100])
                try expectSQL(QPlayer.filter(\.score >= 100), db, "SELECT * FROM \"player\" WHERE \"score\" >= ?", [100])
            }
            #expect(try names(writer, QPlayer.filter(\.score == 100)) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter(\.score != 100)) == ["Barbara", "Cheng", "Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.score < 100)) == ["Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.score <= 100)) == ["Arthur", "Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.score > 100)) == ["Barbara", "Cheng"])
            #expect(try names(writer, QPlayer.filter(\.score >= 100)) == ["Arthur", "Barbara", "Cheng"])
        }
    }

    @Test(arguments: Backend.all) func nilComparisonsBecomeIsNull(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter(\.teamID == nil), db, "SELECT * FROM \"player\" WHERE \"team_id\" IS NULL")
                try expectSQL(QPlayer.filter(\.teamID != nil), db, "SELECT * FROM \"player\" WHERE \"team_id\" IS NOT NULL")
                try expectSQL(QPlayer.filter(\.teamID == 2), db, "SELECT * FROM \"player\" WHERE \"team_id\" = ?", [2])
            }
            #expect(try names(writer, QPlayer.filter(\.teamID == nil)) == ["Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.teamID != nil)) == ["Arthur", "Barbara", "Cheng"])
            #expect(try names(writer, QPlayer.filter(\.teamID == 2)) == ["Cheng"])
        }
    }

    @Test(arguments: Backend.all) func comparisonsBetweenColumnsAndExpressions(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter(\.score == \.bonus), db, "SELECT * FROM \"player\" WHERE \"score\" = \"bonus\"")
                try expectSQL(
                    QPlayer.filter(\.score > \.bonus * 10), db, "SELECT * FROM \"player\" WHERE \"score\" > (\"bonus\" * ?)", [10])
                try expectSQL(
                    QPlayer.filter(\.score + \.bonus >= 200), db, "SELECT * FROM \"player\" WHERE (\"score\" + \"bonus\") >= ?", [200])
            }
            #expect(try names(writer, QPlayer.filter(\.score == \.bonus)) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.score > \.bonus * 10)) == ["Barbara"])
            #expect(try names(writer, QPlayer.filter(\.score + \.bonus >= 200)) == ["Barbara"])
            #expect(try names(writer, QPlayer.filter(\.score - 50 == \.bonus * 5)) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter(\.score / 2 == 125)) == ["Barbara"])
            #expect(try names(writer, QPlayer.filter(-\.score < -200)) == ["Barbara"])
        }
    }

    /// `optional` lets a non-optional expression meet an optional column.
    @Test(arguments: Backend.all) func optionalTypesAnExpressionAsOptional(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            let request = QPlayer.filter(\.teamID == QueryExpression<QPlayer, Int64>(Column("bonus")).optional)
            // The same comparison without `optional` does not compile (Int64? against Int64).
            try writer.read { db throws in
                try expectSQL(request, db, #"SELECT * FROM "player" WHERE "team_id" = "bonus""#)
                let expected = try String.fetchAll(db, sql: "SELECT name FROM player WHERE team_id = bonus ORDER BY id")
                #expect(try request.order(\.id).fetchAll(db).map(\.name) == expected)
            }
            try writer.write { db throws in
                let bonus = QueryExpression<QPlayer, Int64>(Column("bonus"))
                let changed = try QPlayer.filter(\.teamID == nil).updateAll(db, \.teamID <- (bonus * 0 + 1).optional)
                let stillNil = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player WHERE team_id IS NULL")
                #expect(changed > 0)
                #expect(stillNil == 0)
            }
        }
    }

    @Test(arguments: Backend.all) func logic(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(
                    QPlayer.filter(\.score >= 100 && \.teamID != nil || \.bonus == 5), db,
                    "SELECT * FROM \"player\" WHERE ((\"score\" >= ?) AND (\"team_id\" IS NOT NULL)) OR (\"bonus\" = ?)", [100, 5])
                try expectSQL(
                    QPlayer.filter(\.score > 1 && \.score < 9 && \.bonus > 0), db,
                    "SELECT * FROM \"player\" WHERE (\"score\" > ?) AND (\"score\" < ?) AND (\"bonus\" > ?)", [1, 9, 0])
                try expectSQL(QPlayer.filter(!(\.score > 100)), db, "SELECT * FROM \"player\" WHERE NOT (\"score\" > ?)", [100])
            }
            #expect(try names(writer, QPlayer.filter(\.score >= 100 && \.teamID != nil || \.bonus == 5)) == ["Arthur", "Barbara", "Cheng", "Dora"])
            #expect(try names(writer, QPlayer.filter(!(\.score > 100))) == ["Arthur", "Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(\.isActive)) == ["Arthur", "Barbara", "Dora"])
            #expect(try names(writer, QPlayer.filter(\.isActive == false)) == ["Cheng", "Eve_%"])
            // Successive filters combine with AND.
            #expect(try names(writer, QPlayer.filter(\.score > 10).filter(\.isActive)) == ["Arthur", "Barbara", "Dora"])
        }
    }

    @Test(arguments: Backend.all) func inAndRanges(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter([1, 3].contains(\.id)), db, "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)", [1, 3])
                try expectSQL(QPlayer.filter((100...200).contains(\.score)), db, "SELECT * FROM \"player\" WHERE \"score\" BETWEEN ? AND ?", [100, 200])
                try expectSQL(
                    QPlayer.filter((100..<175).contains(\.score)), db,
                    "SELECT * FROM \"player\" WHERE (\"score\" >= ?) AND (\"score\" < ?)", [100, 175])
                // PostgreSQL has no empty IN list.
                try expectSQL(
                    QPlayer.filter([Int]().contains(\.score)), db,
                    backend.isPostgreSQL ? "SELECT * FROM \"player\" WHERE FALSE" : "SELECT * FROM \"player\" WHERE \"score\" IN ()")
            }
            #expect(try names(writer, QPlayer.filter([1, 3].contains(\.id))) == ["Arthur", "Cheng"])
            #expect(try names(writer, QPlayer.filter([Int64(2)].contains(\.teamID))) == ["Cheng"])
            #expect(try names(writer, QPlayer.filter((100...200).contains(\.score))) == ["Arthur", "Cheng"])
            #expect(try names(writer, QPlayer.filter((100..<175).contains(\.score))) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter([Int]().contains(\.score))) == [])
            #expect(try names(writer, QPlayer.filter { $0.score.notIn([0, 50]) }) == ["Arthur", "Barbara", "Cheng"])
        }
    }

    // SQLite only: its LIKE (case-insensitive for ASCII), GLOB and NOCASE.
    // textMatchingOnEveryBackend below runs the portable part on PostgreSQL too.
    @Test(arguments: Backend.sqlite) func textMatchingEscapesWildcards(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(
                    QPlayer.filter { $0.name.like("a%") }, db, "SELECT * FROM \"player\" WHERE \"name\" LIKE ?", ["a%"])
                try expectSQL(
                    QPlayer.filter { $0.name.like("Eve\\_%", escape: "\\") }, db,
                    "SELECT * FROM \"player\" WHERE \"name\" LIKE ? ESCAPE ?", ["Eve\\_%", "\\"])
                try expectSQL(QPlayer.filter { $0.name.hasPrefix("Ev*") }, db, "SELECT * FROM \"player\" WHERE \"name\" GLOB ?", ["Ev[*]*"])
            }
            // LIKE is case-insensitive for ASCII; hasPrefix and friends are case-sensitive and literal.
            #expect(try names(writer, QPlayer.filter { $0.name.like("a%") }) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter { $0.name.like("%\\_\\%", escape: "\\") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("A") }) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("a") }) == [])
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("_%") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("%") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.contains("r") }) == ["Arthur", "Barbara", "Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.contains("_") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.glob("?ora") }) == ["Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.collating(.nocase) == "ARTHUR" }) == ["Arthur"])
        }
    }

    @Test(arguments: Backend.all) func textMatchingOnEveryBackend(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            if backend.isPostgreSQL {
                // PostgreSQL has no GLOB: the same match is a LIKE with an escape character.
                try writer.read { db throws in
                    try expectSQL(
                        QPlayer.filter { $0.name.hasPrefix("Ev*%") }, db, #"SELECT * FROM "player" WHERE "name" LIKE ? ESCAPE '\'"#,
                        [#"Ev*\%%"#])
                    // A GLOB set or range has no LIKE equivalent.
                    #expect(throws: DatabaseError.self) { try QPlayer.filter { $0.name.glob("[AB]*") }.fetchAll(db) }
                    try expectSQL(
                        QPlayer.filter { $0.name.hasSuffix("_%") }, db,
                        #"SELECT * FROM "player" WHERE right("name", char_length(CAST(? AS TEXT))) = CAST(? AS TEXT)"#, ["_%", "_%"])
                }
            } else {
                try writer.read { db throws in
                    try expectSQL(
                        QPlayer.filter { $0.name.hasSuffix("_%") }, db,
                        #"SELECT * FROM "player" WHERE substr(CAST("name" AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB)"#, ["_%", "_%"])
                }
            }
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("_%") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("%") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("ra") }) == ["Barbara", "Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasSuffix("RA") }) == [])
            #expect(try names(writer, QPlayer.filter { $0.name.like("A%") }) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter { $0.name.like("%\\_\\%", escape: "\\") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("A") }) == ["Arthur"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("a") }) == [])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("Eve_") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.hasPrefix("E%") }) == [])
            #expect(try names(writer, QPlayer.filter { $0.name.contains("r") }) == ["Arthur", "Barbara", "Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.contains("_") }) == ["Eve_%"])
            #expect(try names(writer, QPlayer.filter { $0.name.glob("?ora") }) == ["Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.glob("*a*") }) == ["Barbara", "Dora"])
            #expect(try names(writer, QPlayer.filter { !$0.name.glob("[?]*") }).count == 5)
        }
    }

    @Test(arguments: Backend.all) func functions(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter(lower(\.name) == "dora"), db, "SELECT * FROM \"player\" WHERE lower(\"name\") = ?", ["dora"])
                try expectSQL(
                    QPlayer.filter(\.teamID ?? 0 == 0), db,
                    "SELECT * FROM \"player\" WHERE \(backend.isPostgreSQL ? "COALESCE" : "IFNULL")(\"team_id\", ?) = ?", [0, 0])
            }
            #expect(try names(writer, QPlayer.filter(lower(\.name) == "dora")) == ["Dora"])
            #expect(try names(writer, QPlayer.filter(upper(\.name) == "DORA")) == ["Dora"])
            #expect(try names(writer, QPlayer.filter(length(\.name) == 7)) == ["Barbara"])
            #expect(try names(writer, QPlayer.filter(\.teamID ?? 0 == 0)) == ["Dora", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(abs(\.score) == 50)) == ["Dora"])
            #expect(try names(writer, QPlayer.filter { $0.name.length > 5 }) == ["Arthur", "Barbara"])
            let labels = try writer.read { db throws in
                try QPlayer.select(caseWhen([(\QPlayer.score >= 150, "high"), (\QPlayer.score >= 50, "mid")], otherwise: "low"))
                    .order(\.id).fetchAll(db)
            }
            #expect(labels == ["mid", "high", "high", "mid", "low"])
        }
    }

    @Test(arguments: Backend.all) func rawSQLAndColumnEscapeHatches(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.filter(Column("rowid") > 3), db, "SELECT * FROM \"player\" WHERE \"rowid\" > ?", [3])
                try expectSQL(QPlayer.filter(Column("bonus") > 5), db, "SELECT * FROM \"player\" WHERE \"bonus\" > ?", [5])
                try expectSQL(
                    QPlayer.filter(sql: "score % ? = 0", arguments: [100]), db, "SELECT * FROM \"player\" WHERE score % ? = 0", [100])
            }
            // PostgreSQL tables have no rowid.
            if !backend.isPostgreSQL {
                #expect(try names(writer, QPlayer.filter(Column("rowid") > 3)) == ["Dora", "Eve_%"])
            }
            #expect(try names(writer, QPlayer.filter(Column("bonus") > 5)) == ["Arthur", "Cheng"])
            #expect(try names(writer, QPlayer.filter(sql: "score % ? = 0", arguments: [100])) == ["Arthur", "Eve_%"])
            #expect(try names(writer, QPlayer.filter(QueryExpression(sql: "bonus > ?", arguments: [5]))) == ["Arthur", "Cheng"])
        }
    }

    @Test(arguments: Backend.all) func injectionPayloadsAreBoundNotExecuted(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            let payloads = ["'; DROP TABLE player; --", "\" OR 1=1 --", "x') OR ('1'='1", "%", "_"]
            try writer.read { db throws in
                for payload in payloads {
                    #expect(try QPlayer.filter(\.name == payload).fetchCount(db) == 0)
                    #expect(try QPlayer.filter { $0.name.hasPrefix(payload) }.fetchCount(db) == 0)
                    #expect(try QPlayer.filter([payload].contains(\.name)).fetchCount(db) == 0)
                }
                #expect(try QPlayer.all().fetchCount(db) == 5)
            }
        }
    }

    @Test(arguments: Backend.all) func keyPathsUseCodingKeyColumnNames(_ backend: Backend) throws {
        try backend.withQueryFixtures { writer in
            try writer.read { db throws in
                try expectSQL(QPlayer.select(\.teamID, \.isActive), db, "SELECT \"team_id\", \"active\" FROM \"player\"")
            }
        }
    }
}
