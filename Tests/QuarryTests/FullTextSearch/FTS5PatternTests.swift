// FTS5Pattern: patterns built from raw user input are always valid and never
// carry FTS5 operators; raw patterns are validated by SQLite. The hostile
// properties are seeded like the suites of Reliability/ (QUARRY_TEST_SEED).

import Foundation
import Quarry
import Testing

@Suite("FTS5 patterns")
struct FTS5PatternTests {

    @Test
    func patternsFromUserInput() {
        #expect(FTS5Pattern(matchingAllTokensIn: "Old man, sea!")?.rawPattern == #""Old" "man" "sea""#)
        #expect(FTS5Pattern(matchingAnyTokenIn: "old man")?.rawPattern == #""old" OR "man""#)
        #expect(FTS5Pattern(matchingPhrase: "  the OLD-man ")?.rawPattern == #""the OLD man""#)
        #expect(FTS5Pattern(matchingAllPrefixesIn: "mob di")?.rawPattern == #""mob"* "di"*"#)
        #expect(FTS5Pattern(matchingPhrasePrefix: "old ma")?.rawPattern == #""old ma"*"#)
        #expect(FTS5Pattern(matchingPrefixPhrase: "the OLD-man")?.rawPattern == #"^"the OLD man""#)
        // Letters with diacritics, other scripts and digits are tokens; the rest separates them.
        #expect(FTS5Pattern(matchingAllTokensIn: "Misérables 1862 日本語 e\u{301}t\u{E9}")?.rawPattern
            == "\"Misérables\" \"1862\" \"日本語\" \"e\u{301}t\u{E9}\"")
        // FTS5 operators in the input are plain words or separators.
        #expect(FTS5Pattern(matchingAllTokensIn: #"NEAR(a b) AND "c" OR d* NOT ^e title:f -g"#)?.rawPattern
            == #""NEAR" "a" "b" "AND" "c" "OR" "d" "NOT" "e" "title" "f" "g""#)
        // No token: no pattern.
        for input in ["", "   ", "*", "\"\"", "-:^()", "😀 👍🏽", "\u{0}", "(-)", "\u{200B}"] {
            #expect(FTS5Pattern(matchingAllTokensIn: input) == nil, "\(input.debugDescription)")
            #expect(FTS5Pattern(matchingAnyTokenIn: input) == nil, "\(input.debugDescription)")
            #expect(FTS5Pattern(matchingPhrase: input) == nil, "\(input.debugDescription)")
            #expect(FTS5Pattern(matchingAllPrefixesIn: input) == nil, "\(input.debugDescription)")
            #expect(FTS5Pattern(matchingPrefixPhrase: input) == nil, "\(input.debugDescription)")
            #expect(FTS5Pattern(matchingPhrasePrefix: input) == nil, "\(input.debugDescription)")
        }
    }

    /// `matchingPrefixPhrase` has GRDB's meaning (the phrase at the start of
    /// a column); `matchingPhrasePrefix` is the phrase with a prefix last word.
    @Test(arguments: WriterKind.allCases)
    func prefixPhraseAndPhrasePrefixMatchOtherRows(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { t in t.column("body") }
            for (rowid, body) in [(1, "old man and the sea"), (2, "the old man"), (3, "old manners"), (4, "man old")] {
                try db.execute(sql: "INSERT INTO doc(rowid, body) VALUES (?, ?)", arguments: [rowid, body])
            }
            func rowids(_ pattern: FTS5Pattern) throws -> [Int64] {
                try Int64.fetchAll(db, sql: "SELECT rowid FROM doc WHERE doc MATCH ? ORDER BY rowid", arguments: [pattern])
            }
            #expect(try rowids(#require(FTS5Pattern(matchingPrefixPhrase: "old man"))) == [1])
            #expect(try rowids(#require(FTS5Pattern(matchingPhrasePrefix: "old man"))) == [1, 2, 3])
            #expect(try rowids(#require(FTS5Pattern(matchingPhrase: "old man"))) == [1, 2])
        }
    }

    @Test
    func rawPatterns() throws {
        #expect(try FTS5Pattern(rawPattern: "sea OR whale").rawPattern == "sea OR whale")
        #expect(try FTS5Pattern(rawPattern: "NEAR(old sea, 5) AND mob*").rawPattern == "NEAR(old sea, 5) AND mob*")
        #expect(try FTS5Pattern(rawPattern: "title: sea", allowedColumns: ["title", "body"]).rawPattern == "title: sea")
        for invalid in ["AND", "\"unterminated", "sea OR", "NEAR(", "(sea", "title: sea", "a:", "*"] {
            let error = #expect(throws: DatabaseError.self, "\(invalid.debugDescription)") {
                try FTS5Pattern(rawPattern: invalid)
            }
            // The error names the problem, without the private pattern's SQL.
            #expect(error?.message.isEmpty == false)
            #expect(error?.sql == nil)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func rawPatternsForATable(kind: WriterKind) throws {
        try inLibrary(kind) { db, _ in
            let pattern = try db.makeFTS5Pattern(rawPattern: "author: hugo", forTable: "book_ft")
            #expect(try BookFT.matching(pattern).fetchAll(db).map(\.title) == ["Les Misérables"])
            #expect(throws: DatabaseError.self) {
                try db.makeFTS5Pattern(rawPattern: "publisher: hugo", forTable: "book_ft")
            }
            #expect(throws: DatabaseError.self) {
                try db.makeFTS5Pattern(rawPattern: "hugo", forTable: "no_such_table")
            }
        }
    }

    @Test
    func databaseValueConvertible() throws {
        let pattern = try #require(FTS5Pattern(matchingAllTokensIn: "a b"))
        #expect(pattern.databaseValue == .text(#""a" "b""#))
        #expect(FTS5Pattern.fromDatabaseValue(.text("sea")) == (try FTS5Pattern(rawPattern: "sea")))
        #expect(FTS5Pattern.fromDatabaseValue(.text("AND")) == nil)
        #expect(FTS5Pattern.fromDatabaseValue(.integer(1)) == nil)
    }

    /// The tokens of `text` as the patterns see them: runs of letters,
    /// numbers, marks and private-use characters.
    private func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
                current.append(scalar)
            default:
                if !current.isEmpty { words.append(String(current)) }
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    /// Hostile input never makes MATCH throw, and a document holding the
    /// input's tokens is found by every pattern built from it.
    @Test(arguments: WriterKind.allCases)
    func hostileInput(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var random = HostileRandom.forProperty("FTS5Pattern.hostileInput.\(kind.rawValue)")
        try writer.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { t in
                // The tokenizer's token characters are the patterns': letters, numbers, marks, private use.
                t.tokenizer = .unicode61(diacritics: .keep, categories: "L* N* M* Co")
                t.column("body")
            }
            try runProperty(200) { iteration in
                var input = random.nastyString(maxPieces: 16)
                if iteration % 50 == 0 { input = String(repeating: input + " NEAR( \" * ", count: 10_240 / max(1, input.utf8.count + 10)) }
                // The document holds the input's tokens, in order.
                try db.execute(sql: "DELETE FROM doc")
                try db.execute(sql: "INSERT INTO doc(rowid, body) VALUES (1, ?)", arguments: [words(input).joined(separator: " ")])
                try db.execute(sql: "INSERT INTO doc(rowid, body) VALUES (2, ?)", arguments: ["unrelated words"])
                let patterns: [(String, FTS5Pattern?)] = [
                    ("all", FTS5Pattern(matchingAllTokensIn: input)),
                    ("any", FTS5Pattern(matchingAnyTokenIn: input)),
                    ("phrase", FTS5Pattern(matchingPhrase: input)),
                    ("prefixes", FTS5Pattern(matchingAllPrefixesIn: input)),
                    ("prefix phrase", FTS5Pattern(matchingPrefixPhrase: input)),
                    ("phrase prefix", FTS5Pattern(matchingPhrasePrefix: input)),
                ]
                let hasTokens = !words(input).isEmpty
                for (name, pattern) in patterns {
                    #expect((pattern != nil) == hasTokens, "\(name) \(input.debugDescription), \(HostileTestSettings.replay)")
                    guard let pattern else { continue }
                    do {
                        let rowids = try Int64.fetchAll(
                            db, sql: "SELECT rowid FROM doc WHERE doc MATCH ? ORDER BY rowid", arguments: [pattern])
                        #expect(rowids.contains(1), "\(name) \(input.debugDescription) found \(rowids), \(HostileTestSettings.replay)")
                    } catch {
                        Issue.record("\(name) \(input.debugDescription): \(error), \(HostileTestSettings.replay)")
                    }
                }
            }
        }
    }

    /// Every FTS5 operator and special character, alone and mixed with words.
    @Test(arguments: WriterKind.allCases)
    func operatorsAreNeverInjected(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let specials = [
            "\"", "\"\"", "*", "NEAR(", "NEAR(a b, 2)", "AND", "OR", "NOT", "AND OR", "^", ":", "title:", "-", "(", ")", "()",
            "{title body}:", "+", "\u{0}", "😀", "'", "\\", ",", "a\"b", "x*y", "^start", "-minus", "col:val",
        ]
        try writer.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { t in
                t.column("title")
                t.column("body")
            }
            try db.execute(sql: "INSERT INTO doc(rowid, title, body) VALUES (1, 'and or not near', 'title start minus col val x y a b')")
            for special in specials {
                for input in [special, "near \(special) and", "\(special)start", "\(special) \(special) or"] {
                    // Phrases need their words next to each other: they are only run.
                    for (pattern, isPhrase) in [
                        (FTS5Pattern(matchingAllTokensIn: input), false), (FTS5Pattern(matchingAnyTokenIn: input), false),
                        (FTS5Pattern(matchingPhrase: input), true), (FTS5Pattern(matchingAllPrefixesIn: input), false),
                        (FTS5Pattern(matchingPrefixPhrase: input), true), (FTS5Pattern(matchingPhrasePrefix: input), true),
                    ] {
                        guard let pattern else { continue }
                        let rowids = try Int64.fetchAll(db, sql: "SELECT rowid FROM doc WHERE doc MATCH ?", arguments: [pattern])
                        // A pattern of words that are all in the document finds it.
                        if !isPhrase, words(input).allSatisfy({ ["and", "or", "not", "near", "title", "start", "minus", "col", "val", "x", "y", "a", "b"].contains($0.lowercased()) }) {
                            #expect(rowids == [1], "\(input.debugDescription) → \(pattern.rawPattern)")
                        }
                    }
                }
            }
        }
    }

    /// With the trigram tokenizer, each token of a pattern matches as a substring.
    @Test(arguments: WriterKind.allCases)
    func trigram(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { t in
                t.tokenizer = .trigram()
                t.column("body")
            }
            try db.execute(sql: "INSERT INTO doc(rowid, body) VALUES (1, 'The Nautilus explores'), (2, 'nautical miles')")
            func rowids(_ pattern: FTS5Pattern?) throws -> [Int64] {
                try Int64.fetchAll(db, sql: "SELECT rowid FROM doc WHERE doc MATCH ? ORDER BY rowid", arguments: [pattern])
            }
            #expect(try rowids(FTS5Pattern(matchingAllTokensIn: "autil")) == [1])
            #expect(try rowids(FTS5Pattern(matchingAllTokensIn: "NAUTI")) == [1, 2])
            #expect(try rowids(FTS5Pattern(matchingAllTokensIn: "nauti, plore")) == [1])
            #expect(try rowids(FTS5Pattern(matchingPhrase: "lus exp")) == [1])
            // Tokens of fewer than three characters match nothing with trigram.
            #expect(try rowids(FTS5Pattern(matchingAllTokensIn: "na")) == [])
        }
    }
}
