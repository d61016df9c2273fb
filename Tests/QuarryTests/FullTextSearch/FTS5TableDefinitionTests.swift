// db.create(virtualTable:using: FTS5()): the exact CREATE VIRTUAL TABLE
// statements for columns, tokenizers and options, the triggers of a table
// synchronized with its content table, dropping, and the errors.

import Foundation
import Quarry
import Testing

@Suite("FTS5 table definitions")
struct FTS5TableDefinitionTests {

    /// The statements Quarry runs in `body` to create a table: CREATE
    /// VIRTUAL TABLE, CREATE TRIGGER and the rebuild command (not those FTS5
    /// runs itself to create its shadow tables).
    private func createStatements(_ db: Database, _ body: () throws -> Void) throws -> [String] {
        try FTSStatementLog.record(db, body).filter {
            $0.hasPrefix("CREATE VIRTUAL TABLE") || $0.hasPrefix("CREATE TRIGGER") || $0.hasPrefix("INSERT INTO \"")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func columnsAndOptions(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            let statements = try createStatements(db) {
                try db.create(virtualTable: "document", using: FTS5()) { t in
                    t.column("title")
                    t.column("body")
                    t.column("uuid").notIndexed()
                }
            }
            #expect(statements == [#"CREATE VIRTUAL TABLE "document" USING fts5("title", "body", "uuid" UNINDEXED)"#])
            #expect(try db.tableExists("document"))
            #expect(try db.columns(in: "document").map(\.name) == ["title", "body", "uuid"])

            let again = try createStatements(db) {
                try db.create(virtualTable: "document", options: [.ifNotExists], using: FTS5()) { t in
                    t.column("title")
                    t.tokenizer = .porter(wrapping: .unicode61())
                    t.prefixes = [3, 2]
                }
            }
            #expect(again == [
                #"CREATE VIRTUAL TABLE IF NOT EXISTS "document" USING fts5("title", tokenize='porter unicode61', prefix='2 3')"#
            ])
            try db.drop(table: "document")
            #expect(try !db.tableExists("document"))

            // A temporary table, and a contentless one.
            let temporary = try createStatements(db) {
                try db.create(virtualTable: "scratch", options: [.temporary], using: FTS5()) { t in
                    t.column("a")
                }
            }
            #expect(temporary == [#"CREATE VIRTUAL TABLE temp."scratch" USING fts5("a")"#])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_temp_master WHERE name = 'scratch'") == 1)
            let contentless = try createStatements(db) {
                try db.create(virtualTable: "contentless", using: FTS5()) { t in
                    t.content = ""
                    t.column("a")
                }
            }
            #expect(contentless == [#"CREATE VIRTUAL TABLE "contentless" USING fts5("a", content='')"#])
            try db.execute(sql: "INSERT INTO contentless(rowid, a) VALUES (7, 'hello world')")
            #expect(try Int64.fetchAll(db, sql: "SELECT rowid FROM contentless WHERE contentless MATCH 'world'") == [7])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func tokenizers(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let cases: [(FTS5TokenizerDescriptor, String)] = [
            (.unicode61(), "tokenize='unicode61'"),
            (.unicode61(diacritics: .keep), "tokenize='unicode61 remove_diacritics 0'"),
            (.unicode61(diacritics: .remove), "tokenize='unicode61 remove_diacritics 2'"),
            (.unicode61(diacritics: .removeLegacy), "tokenize='unicode61'"),
            (.unicode61(separators: ["-", "'"]), "tokenize='unicode61 separators ''''''-'''"),
            (.unicode61(tokenCharacters: ["\"", "(", "="]), "tokenize='unicode61 tokenchars ''\"(='''"),
            (.unicode61(categories: "L* N* Co Mn"), "tokenize='unicode61 categories ''L* N* Co Mn'''"),
            (.ascii(separators: ["x"], tokenCharacters: ["."]), "tokenize='ascii separators x tokenchars ''.'''"),
            (.porter(), "tokenize='porter'"),
            (.porter(wrapping: .unicode61(diacritics: .remove)), "tokenize='porter unicode61 remove_diacritics 2'"),
            (.trigram(), "tokenize='trigram'"),
            (.trigram(caseSensitive: true), "tokenize='trigram case_sensitive 1'"),
            (FTS5TokenizerDescriptor(components: ["unicode61", "separators", "é ü"]), "tokenize='unicode61 separators ''é ü'''"),
        ]
        try writer.write { db in
            for (index, (tokenizer, option)) in cases.enumerated() {
                let name = "t\(index)"
                let statements = try createStatements(db) {
                    try db.create(virtualTable: name, using: FTS5()) { t in
                        t.tokenizer = tokenizer
                        t.column("text")
                    }
                }
                #expect(statements == [#"CREATE VIRTUAL TABLE "\#(name)" USING fts5("text", \#(option))"#])
            }
        }
    }

    /// Separators and token characters change what the tokenizer splits on.
    @Test(arguments: WriterKind.allCases)
    func tokenizerOptionsTakeEffect(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.create(virtualTable: "plain", using: FTS5()) { t in
                t.tokenizer = .unicode61(diacritics: .keep)
                t.column("text")
            }
            try db.create(virtualTable: "dashed", using: FTS5()) { t in
                t.tokenizer = .unicode61(tokenCharacters: ["-", "'", "\""])
                t.column("text")
            }
            try db.create(virtualTable: "xsplit", using: FTS5()) { t in
                t.tokenizer = .unicode61(separators: ["x"])
                t.column("text")
            }
            for table in ["plain", "dashed", "xsplit"] {
                try db.execute(sql: "INSERT INTO \(table.quotedDatabaseIdentifier)(text) VALUES (?)", arguments: ["e-mail café fooxbar it's"])
            }
            func count(_ table: String, _ raw: String) throws -> Int {
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM \(table.quotedDatabaseIdentifier) WHERE \(table.quotedDatabaseIdentifier) MATCH ?",
                    arguments: [raw]) ?? -1
            }
            #expect(try count("plain", "cafe") == 0)  // diacritics kept
            #expect(try count("plain", "café") == 1)
            #expect(try count("dashed", #""e-mail""#) == 1)
            #expect(try count("dashed", "mail") == 0)  // "-" is part of the token
            #expect(try count("dashed", #""it's""#) == 1)
            #expect(try count("xsplit", "bar") == 1)  // "x" splits fooxbar
            #expect(try count("plain", "bar") == 0)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func synchronizedTable(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text)
                t.column("author", .text)
            }
            try db.execute(sql: "INSERT INTO book (title, author) VALUES ('Moby Dick', 'Melville'), ('Dune', 'Herbert')")
            let statements = try createStatements(db) {
                try db.create(virtualTable: "book_ft", using: FTS5()) { t in
                    t.synchronize(withTable: "book")
                    t.column("title")
                    t.column("author")
                }
            }
            #expect(statements == [
                #"CREATE VIRTUAL TABLE "book_ft" USING fts5("title", "author", content='book', content_rowid='id')"#,
                #"CREATE TRIGGER "__book_ft_ai" AFTER INSERT ON "book" BEGIN "#
                    + #"INSERT INTO "book_ft"("rowid", "title", "author") VALUES (new."id", new."title", new."author"); END"#,
                #"CREATE TRIGGER "__book_ft_ad" AFTER DELETE ON "book" BEGIN "#
                    + #"INSERT INTO "book_ft"("book_ft", "rowid", "title", "author") VALUES ('delete', old."id", old."title", old."author"); END"#,
                #"CREATE TRIGGER "__book_ft_au" AFTER UPDATE ON "book" BEGIN "#
                    + #"INSERT INTO "book_ft"("book_ft", "rowid", "title", "author") VALUES ('delete', old."id", old."title", old."author"); "#
                    + #"INSERT INTO "book_ft"("rowid", "title", "author") VALUES (new."id", new."title", new."author"); END"#,
                #"INSERT INTO "book_ft"("book_ft") VALUES ('rebuild')"#,
            ])
            // Existing rows are indexed.
            func matches(_ raw: String) throws -> [Int64] {
                try Int64.fetchAll(db, sql: "SELECT rowid FROM book_ft WHERE book_ft MATCH ? ORDER BY rowid", arguments: [raw])
            }
            #expect(try matches("moby") == [1])
            #expect(try matches("herbert") == [2])
            // Insert, update, delete of the content table keep the index in step.
            try db.execute(sql: "INSERT INTO book (id, title, author) VALUES (10, 'The Sea Wolf', 'London')")
            #expect(try matches("wolf") == [10])
            try db.execute(sql: "UPDATE book SET title = 'White Fang' WHERE id = 10")
            #expect(try matches("wolf") == [])
            #expect(try matches("fang") == [10])
            #expect(try matches("london") == [10])
            try db.execute(sql: "DELETE FROM book WHERE id = 10")
            #expect(try matches("fang") == [])
            #expect(try matches("london") == [])
            // The index agrees with its content: FTS5's integrity check.
            try db.execute(sql: "INSERT INTO book_ft(book_ft, rank) VALUES ('integrity-check', 1)")

            // Dropping the full-text table drops its triggers: the content table stays writable.
            try db.drop(table: "book_ft")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'") == 0)
            try db.execute(sql: "INSERT INTO book (title, author) VALUES ('Emma', 'Austen')")
        }
    }

    /// A content table without an INTEGER PRIMARY KEY is synchronized through its rowid.
    @Test(arguments: WriterKind.allCases)
    func synchronizedWithRowidTable(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            try db.create(table: "note") { t in
                t.column("uuid", .text).primaryKey()
                t.column("text", .text)
            }
            try db.execute(sql: "INSERT INTO note VALUES ('a', 'alpha beta'), ('b', 'gamma')")
            let statements = try createStatements(db) {
                try db.create(virtualTable: "note_ft", options: [.ifNotExists], using: FTS5()) { t in
                    t.synchronize(withTable: "note")
                    t.tokenizer = .trigram()
                    t.column("text")
                }
            }
            #expect(statements.first == #"CREATE VIRTUAL TABLE IF NOT EXISTS "note_ft" USING fts5("text", tokenize='trigram', content='note')"#)
            #expect(statements.count == 5)
            #expect(statements[1] == #"CREATE TRIGGER IF NOT EXISTS "__note_ft_ai" AFTER INSERT ON "note" BEGIN "#
                + #"INSERT INTO "note_ft"("rowid", "text") VALUES (new."rowid", new."text"); END"#)
            try db.execute(sql: "INSERT INTO note VALUES ('c', 'alphabet soup')")
            #expect(try String.fetchAll(db, sql: "SELECT uuid FROM note JOIN note_ft ON note_ft.rowid = note.rowid WHERE note_ft MATCH 'lph' ORDER BY uuid") == ["a", "c"])
            try db.execute(sql: "UPDATE note SET text = 'delta' WHERE uuid = 'a'")
            try db.execute(sql: "DELETE FROM note WHERE uuid = 'c'")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note_ft WHERE note_ft MATCH 'lph'") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note_ft WHERE note_ft MATCH 'elt'") == 1)
        }
    }

    /// Hostile names are quoted everywhere, in the options and the triggers.
    @Test(arguments: WriterKind.allCases)
    func hostileNames(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let content = "bo'ok \"x\"; --"
        let fts = "ft'\"; DROP TABLE x; --"
        try writer.write { db in
            try db.create(table: content) { t in
                t.autoIncrementedPrimaryKey("i'd \"")
                t.column("ti'tle \"", .text)
            }
            try db.execute(literal: "INSERT INTO \(identifier: content) (\(identifier: "ti'tle \"")) VALUES (\("hello world"))")
            try db.create(virtualTable: fts, using: FTS5()) { t in
                t.synchronize(withTable: content)
                t.column("ti'tle \"")
            }
            try db.execute(literal: "INSERT INTO \(identifier: content) (\(identifier: "ti'tle \"")) VALUES (\("goodbye world"))")
            let count = try SQLRequest<Int>("SELECT COUNT(*) FROM \(identifier: fts) WHERE \(identifier: fts) MATCH \("world")").fetchOne(db)
            #expect(count == 2)
            try db.drop(table: fts)
            try db.execute(literal: "DELETE FROM \(identifier: content)")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func errors(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db in
            // Unknown tokenizer: SQLite refuses it, and nothing is created.
            let unknown = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { t in
                    t.tokenizer = FTS5TokenizerDescriptor(components: ["no_such_tokenizer"])
                    t.column("a")
                }
            }
            #expect(unknown?.message.contains("no_such_tokenizer") == true)
            #expect(try !db.tableExists("t"))

            // No column.
            let empty = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { _ in }
            }
            #expect(empty?.message.contains("at least one column") == true)

            // A NUL character cannot be written in a tokenizer option.
            let nul = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { t in
                    t.tokenizer = .unicode61(separators: ["\u{0}"])
                    t.column("a")
                }
            }
            #expect(nul?.message.contains("NUL") == true)

            // A missing content table.
            #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { t in
                    t.synchronize(withTable: "missing")
                    t.column("a")
                }
            }
            #expect(try !db.tableExists("t"))

            // A synchronized column absent from the content table: nothing is kept.
            try db.create(table: "c") { t in t.column("a", .text) }
            let missingColumn = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { t in
                    t.synchronize(withTable: "c")
                    t.column("b")
                }
            }
            #expect(missingColumn?.message.contains("c has no column b") == true)
            #expect(try !db.tableExists("t"))
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'") == 0)

            // A temporary table cannot be rebuilt from its content.
            let temporary = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", options: [.temporary], using: FTS5()) { t in
                    t.synchronize(withTable: "c")
                    t.column("a")
                }
            }
            #expect(temporary?.message.contains("temporary") == true)

            // WITHOUT ROWID content tables have no rowid to index.
            try db.create(table: "w", options: [.withoutRowID]) { t in
                t.primaryKey("k", .text)
                t.column("a", .text)
            }
            let withoutRowid = #expect(throws: DatabaseError.self) {
                try db.create(virtualTable: "t", using: FTS5()) { t in
                    t.synchronize(withTable: "w")
                    t.column("a")
                }
            }
            #expect(withoutRowid?.message.contains("WITHOUT ROWID") == true)
        }
    }
}
