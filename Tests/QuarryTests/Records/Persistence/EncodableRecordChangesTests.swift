// databaseEquals and databaseChanges (GRDB's record comparison), and
// updateChanges, which writes the changed columns.

import Foundation
import Quarry
import Testing

private struct Scored: Codable, EncodableRecord {
    var id: Int64
    var name: String
    var score: Int
    var note: String?
}

/// Another type with some of the same columns.
private struct ScoreOnly: Codable, EncodableRecord {
    var id: Int64
    var score: Int
}

/// A record whose encoding fails.
private struct Unencodable: Encodable, EncodableRecord {
    var fails: Bool
    func encode(to encoder: any Encoder) throws {
        if fails { throw EncodingError.invalidValue(fails, .init(codingPath: [], debugDescription: "refused")) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fails, forKey: .fails)
    }
    enum CodingKeys: String, CodingKey { case fails }
}

@Suite struct EncodableRecordChangesTests {
    @Test func databaseEqualsComparesStoredValues() throws {
        let player = Scored(id: 1, name: "Arthur", score: 100, note: nil)
        var other = player
        #expect(try player.databaseEquals(other))
        other.score = 110
        #expect(try !player.databaseEquals(other))
        other = player
        other.note = "captain"
        #expect(try !player.databaseEquals(other))
    }

    @Test func databaseChangesHasTheOtherRecordsValues() throws {
        let old = Scored(id: 1, name: "Arthur", score: 100, note: "captain")
        var new = old
        new.score = 110
        new.note = nil
        #expect(try new.databaseChanges(from: old) == ["score": 100.databaseValue, "note": "captain".databaseValue])
        #expect(try old.databaseChanges(from: old).isEmpty)
        // Another type: only this record's columns count; a column the other
        // does not store compares with NULL.
        let partial = ScoreOnly(id: 1, score: 100)
        #expect(try old.databaseChanges(from: partial) == ["name": .null, "note": .null])
        #expect(try partial.databaseChanges(from: old).isEmpty)
    }

    @Test func databaseChangesModifyReturnsTheValuesBefore() throws {
        var player = Scored(id: 1, name: "Arthur", score: 100, note: nil)
        let changes = try player.databaseChanges {
            $0.score = 100
            $0.name = "Art"
        }
        #expect(changes == ["name": "Arthur".databaseValue])
        #expect(player.name == "Art")
    }

    @Test func aRecordThatFailsToEncodeThrows() {
        #expect(throws: EncodingError.self) { try Unencodable(fails: true).databaseEquals(Unencodable(fails: false)) }
        #expect(throws: EncodingError.self) { try Unencodable(fails: false).databaseEquals(Unencodable(fails: true)) }
        #expect(throws: EncodingError.self) { try Unencodable(fails: false).databaseChanges(from: Unencodable(fails: true)) }
    }
}
