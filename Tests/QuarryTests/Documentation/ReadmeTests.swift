// Keeps README.md true: its Swift snippets compile (they live in
// ReadmeSnippets.swift) and run with the results the README implies.

import Foundation
import Quarry
import Testing

@Suite struct ReadmeTests {
    static let projectRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The ```swift blocks of a Markdown file.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Drops `import` lines and collapses white space, so that imports and
    /// indentation differences do not matter.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n")
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
            .joined(separator: "\n")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func everyReadmeSnippetIsCompiledByTheTests() throws {
        let readme = try String(contentsOf: Self.projectRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try String(
            contentsOf: Self.projectRoot.appendingPathComponent("Tests/QuarryTests/Documentation/ReadmeSnippets.swift"),
            encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme).filter { !$0.contains(".package(url:") }
        #expect(!blocks.isEmpty)
        for block in blocks {
            #expect(Self.normalized(snippets).contains(Self.normalized(block)), "README snippet not in ReadmeSnippets.swift:\n\(block)")
        }
    }

    @Test func firstScreenSnippetRuns() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("library.sqlite")
        let snippets = ReadmeSnippets()
        #expect(try snippets.openLibrary(path: path).map(\.title) == ["Dune"])
        // A second start migrates nothing and adds a second book.
        #expect(try snippets.openLibrary(path: path).map(\.year) == [1965, 1965])
        // The SQL the README shows next to the snippet.
        try DatabaseQueue(path: path).read { db throws in
            try expectSQL(
                ReadmeSnippets.Book.filter(\.year < 2000).order(\.title), db,
                #"SELECT * FROM "book" WHERE "year" < ? ORDER BY "title""#, [2000])
        }
    }

    @Test func modelingAndSearchSnippetRuns() throws {
        let dbQueue = try DatabaseQueue()
        let found = try ReadmeSnippets().customerSearch(dbQueue, query: "zoe \"*(")
        #expect(found.map(\.name) == ["Zoë Ångström"])
        #expect(found.first?.address.city == "Oslo")
        // The SQL the README shows next to the snippet.
        let request = ReadmeSnippets.Customer
            .matching(FTS5Pattern(matchingAllTokensIn: "zoe"), in: ReadmeSnippets.CustomerFT.self)
            .filter(\.address.city == "Oslo")
            .order(bm25(ReadmeSnippets.CustomerFT.self))
        let sql = try dbQueue.read { db in try request.sql(db).sql }
        #expect(sql == #"SELECT "customer".* FROM "customer" JOIN "customer_ft" ON "customer_ft"."rowid" = "customer"."id" "#
            + #"WHERE ("customer_ft" MATCH ?) AND ("customer"."address_city" = ?) ORDER BY bm25("customer_ft")"#)
    }

    @Test func recordAndQuerySnippetsRun() throws {
        let dbQueue = try DatabaseQueue()
        let snippets = ReadmeSnippets()
        let players = try snippets.playerBasics(dbQueue)
        #expect(players.map(\.name) == ["Arthur", "Barbara"])
        #expect(players.map(\.score) == [110, 250])
        #expect(players.first?.id == 1)
        let result = try snippets.queryBasics(dbQueue)
        #expect(result.best.map(\.name) == ["Barbara", "Arthur"])
        #expect(result.names == ["Arthur", "Barbara"])
        #expect(result.count == 1)
        #expect(try dbQueue.read { db in try Player.order(\.id).select(\.score).fetchAll(db) } == [111, 251])
    }

    @Test func teamReportRuns() throws {
        let dbQueue = try DatabaseQueue()
        let snippets = ReadmeSnippets()
        _ = try snippets.playerBasics(dbQueue)
        let infos = try snippets.teamReport(dbQueue)
        #expect(infos.map(\.team.name) == ["Blues", "Reds"])
        #expect(infos.map(\.playerCount) == [3, 3])
        #expect(infos.map(\.averagePlayerScore) == [20, 20])
        #expect(try dbQueue.read { db in try ReadmeSnippets.Player.filter(\.teamID == 2).fetchCount(db) } == 3)
    }

    @Test func gettingStartedRuns() async throws {
        let directory = try TemporaryDirectory()
        let lines = try await ReadmeSnippets().gettingStarted(path: directory.path())
        #expect(lines == ["2 players", "Barbara: 250", "Arthur: 100"])
    }

    @Test func observingChangesRuns() async throws {
        let directory = try TemporaryDirectory()
        let dbPool = try DatabasePool(path: directory.path())
        try await dbPool.write { db throws in
            try db.execute(sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, teamID INTEGER);
                INSERT INTO player (name, score, teamID) VALUES ('Arthur', 1, 1);
                """)
        }
        var sizes: [Int] = []
        for try await size in ReadmeSnippets().teamSize(dbPool, teamID: 1) {
            sizes.append(size)
            if sizes.count == 2 { break }
            try await dbPool.write { db throws in
                try db.execute(sql: "UPDATE player SET score = 2")  // same size: removed as a duplicate
                try db.execute(sql: "INSERT INTO player (name, score, teamID) VALUES ('Barbara', 1, 1)")
            }
        }
        #expect(sizes == [1, 2])
    }
}
