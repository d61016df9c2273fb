// Tests of values that are only Codable (enums, nested structs) used in
// filters and selections, and of every form of the comparison and
// arithmetic operators.

import Foundation
import Quarry
import Testing

struct Ticket: Codable, FetchableRecord, PersistableRecord, Equatable {
    enum Status: String, Codable, CaseIterable { case open, closed }
    struct Tags: Codable, Equatable { var labels: [String] }
    var id: Int64?
    var status: Status
    var tags: Tags
    var points: Int
    var bonus: Int
}

@Suite struct QueryValueCodingTests {
    func withTickets(_ backend: Backend, _ body: (Database) throws -> Void) throws {
        try backend.withWriter { writer in try writer.write { db throws in
            try db.create(table: "ticket") { t in
                t.primaryKey("id", .integer)
                t.column("status", .text)
                t.column("tags", .text)
                t.column("points", .integer)
                t.column("bonus", .integer)
            }
            for (index, status) in [Ticket.Status.open, .closed, .open].enumerated() {
                var ticket = Ticket(id: nil, status: status, tags: .init(labels: ["t\(index)"]), points: index * 10, bonus: index)
                try ticket.insert(db)
            }
            try body(db)
        } }
    }

    @Test(arguments: Backend.all) func codableEnumsAndNestedValuesAreBoundAsRecordsStoreThem(_ backend: Backend) throws {
        try withTickets(backend) { db throws in
            try expectSQL(Ticket.filter(\.status == .closed), db, "SELECT * FROM \"ticket\" WHERE \"status\" = ?", ["closed"])
            #expect(try Ticket.filter(\.status == .open).fetchCount(db) == 2)
            #expect(try Ticket.filter([Ticket.Status.closed].contains(\.status)).fetchCount(db) == 1)
            #expect(try Ticket.filter(\.tags == Ticket.Tags(labels: ["t1"])).fetchOne(db)?.points == 10)
            let statuses: [Ticket.Status] = try Ticket.select(\.status).order(\.id).fetchAll(db)
            #expect(statuses == [.open, .closed, .open])
            let tags: [Ticket.Tags] = try Ticket.select(\.tags).order(\.id).fetchAll(db)
            #expect(tags.map(\.labels) == [["t0"], ["t1"], ["t2"]])
            let error = try #require(throws: RowDecodingError.self) {
                try Ticket.select(QueryExpression<Ticket, Ticket.Status>("points")).fetchAll(db)
            }
            #expect(error.description.contains("column \"points\""))
        }
    }

    @Test(arguments: Backend.all) func everyOperatorForm(_ backend: Backend) throws {
        try withTickets(backend) { db throws in
            let points = QueryExpression(\Ticket.points)
            let bonus = QueryExpression(\Ticket.bonus)
            // Comparisons: key path or expression on each side.
            #expect(try Ticket.filter(points == 10).fetchCount(db) == 1)
            #expect(try Ticket.filter(points != \.bonus).fetchCount(db) == 2)
            #expect(try Ticket.filter(\.points > bonus).fetchCount(db) == 2)
            #expect(try Ticket.filter(points >= bonus).fetchCount(db) == 3)
            #expect(try Ticket.filter(\.points < \.bonus).fetchCount(db) == 0)
            #expect(try Ticket.filter(points <= 10).fetchCount(db) == 2)
            #expect(try Ticket.filter(\.points <= bonus * 10).fetchCount(db) == 3)
            #expect(try Ticket.filter(points * 1 == \.points).fetchCount(db) == 3)
            // Arithmetic: every form.
            #expect(try Ticket.select(\.points + \.bonus).order(\.id).fetchAll(db) == [0, 11, 22])
            #expect(try Ticket.select(\.points - bonus).order(\.id).fetchAll(db) == [0, 9, 18])
            #expect(try Ticket.select(points * \.bonus).order(\.id).fetchAll(db) == [0, 10, 40])
            #expect(try Ticket.select(points / 10).order(\.id).fetchAll(db) == [0, 1, 2])
            #expect(try Ticket.select(-points).order(\.id).fetchAll(db) == [0, -10, -20])
            #expect(try Ticket.select(points + 1 - 1).order(\.id).fetchAll(db) == [0, 10, 20])
            // Logic with Boolean key paths and expressions.
            #expect(try Ticket.filter(!(points > 5) || points > 15).fetchCount(db) == 2)
            // Orderings.
            #expect(try Ticket.order(.desc(points)).select(\.points).fetchAll(db) == [20, 10, 0])
            #expect(try Ticket.order(.asc(points, nulls: .first)).select(\.points).fetchAll(db) == [0, 10, 20])
            #expect(try Ticket.order(.desc(\.points)).reversed().select(\.points).fetchAll(db) == [0, 10, 20])
        }
    }
}

@Suite struct QueryFunctionFormsTests {
    @Test(arguments: Backend.all) func coalescingAndAggregatesOfExpressions(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in try makeQueryFixtures(db) }
            try writer.read { db throws in
                let team = QueryExpression(\QPlayer.teamID)
                let bonus = QueryExpression(\QPlayer.bonus)
                #expect(try QPlayer.order(\.id).select(\.teamID ?? 0).fetchAll(db) == [1, 1, 2, 0, 0])
                #expect(try QPlayer.order(\.id).select(team ?? 9).fetchAll(db) == [1, 1, 2, 9, 9])
                #expect(try QPlayer.order(\.id).select(coalesce([team], default: 7)).fetchAll(db) == [1, 1, 2, 7, 7])
                #expect(try QPlayer.select(count(team)).fetchOne(db) == 3)
                #expect(try QPlayer.select(sum(bonus)).fetchOne(db) == 35)
                #expect(try QPlayer.select(total(bonus)).fetchOne(db) == 35)
                #expect(try QPlayer.select(average(bonus)).fetchOne(db) == 7)
                #expect(try QPlayer.select(min(bonus)).fetchOne(db) == 0)
                #expect(try QPlayer.select(max(bonus)).fetchOne(db) == 20)
                #expect(try QPlayer.select(countAll()).fetchOne(db) == 5)
                #expect(try QPlayer.filter(bonus.between(5, and: 10)).fetchCount(db) == 2)
                #expect(try QPlayer.filter((5...10).contains(bonus)).fetchCount(db) == 2)
                #expect(try QPlayer.filter((5..<10).contains(bonus)).fetchCount(db) == 1)
                #expect(try QPlayer.filter([0, 5].contains(bonus)).fetchCount(db) == 3)
                #expect(try QPlayer.filter(team.isNull).fetchCount(db) == 2)
                #expect(try QPlayer.filter(team.isNotNull && \.isActive).fetchCount(db) == 2)
                #expect(try QPlayer.filter(\.isActive || team.isNull).fetchCount(db) == 4)
                #expect(try QPlayer.filter(!\.isActive).fetchCount(db) == 2)
                #expect(try QPlayer.order(\.id).select(abs(\.score) - 100).fetchAll(db) == [0, 150, 75, -50, -100])
                #expect(try QPlayer.filter(\.name == "Dora").select(lower(\.name), upper(\.name), length(\.name)).fetchOne(db).map { "\($0.0) \($0.1) \($0.2)" } == "dora DORA 4")
            }
        }
    }
}
