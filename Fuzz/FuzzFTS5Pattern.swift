// FuzzFTS5Pattern: libFuzzer target for FTS5Pattern (Sources/Quarry/FullTextSearch/FTS5Pattern.swift).
// The failable initializers promise a pattern that is never an FTS5 syntax
// error, whatever the input and the tokenizer: each pattern they build is run
// with MATCH on tables of the unicode61, ascii, porter and trigram tokenizers,
// and any error is a failure. `init(rawPattern:)` must accept or throw a
// DatabaseError, and a pattern it accepts must run too.

import Foundation
import Quarry

/// One in-memory database with a full-text table per tokenizer, made once.
nonisolated(unsafe) private var database: DatabaseQueue? = nil
private let tables = ["ft_unicode61", "ft_ascii", "ft_porter", "ft_trigram", "ft_unicode61_keep"]

private func makeDatabase() throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.maximumStatementDuration = .seconds(5)
    let queue = try DatabaseQueue(configuration: configuration)
    try queue.write { db in
        let tokenizers: [FTS5TokenizerDescriptor] = [
            .unicode61(), .ascii(), .porter(), .trigram(), .unicode61(diacritics: .keep),
        ]
        for (table, tokenizer) in zip(tables, tokenizers) {
            try db.create(virtualTable: table, using: FTS5()) { t in
                t.tokenizer = tokenizer
                t.column("title")
                t.column("body")
            }
            try db.execute(
                sql: "INSERT INTO \(table)(title, body) VALUES (?, ?), (?, ?)",
                arguments: ["The old man and the sea", "Café crème, naïve façade: ÉTÉ", "日本語のテキスト", "x y z 123 ab"])
        }
    }
    return queue
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFTS5Pattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if database == nil { database = try! makeDatabase() }
    let queue = database!
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    let built: [(String, FTS5Pattern?)] = [
        ("matchingAllTokensIn", FTS5Pattern(matchingAllTokensIn: input)),
        ("matchingAnyTokenIn", FTS5Pattern(matchingAnyTokenIn: input)),
        ("matchingAllPrefixesIn", FTS5Pattern(matchingAllPrefixesIn: input)),
        ("matchingPhrase", FTS5Pattern(matchingPhrase: input)),
        ("matchingPrefixPhrase", FTS5Pattern(matchingPrefixPhrase: input)),
        ("matchingPhrasePrefix", FTS5Pattern(matchingPhrasePrefix: input)),
    ]
    // All of them are nil together: when the input has no word.
    let present = built.filter { $0.1 != nil }.count
    precondition(present == 0 || present == built.count, "some initializers found words and others none")

    for (initializer, pattern) in built {
        guard let pattern else { continue }
        for table in tables {
            do {
                _ = try queue.read { db in
                    try Row.fetchAll(db, sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ?", arguments: [pattern])
                }
            } catch {
                preconditionFailure("FTS5Pattern(\(initializer):) built \(pattern.rawPattern.debugDescription), refused by \(table): \(error)")
            }
        }
    }

    // A raw pattern: SQLite decides. A few of them, since each one opens a
    // database.
    if size < 64, size % 4 == 0 {
        do {
            let raw = try FTS5Pattern(rawPattern: input, allowedColumns: ["title", "body"])
            _ = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT rowid FROM ft_unicode61 WHERE ft_unicode61 MATCH ?", arguments: [raw])
            }
        } catch is DatabaseError {
            // Refused: fine.
        } catch {
            preconditionFailure("init(rawPattern:) threw \(type(of: error)), not a DatabaseError")
        }
    }
    return 0
}
