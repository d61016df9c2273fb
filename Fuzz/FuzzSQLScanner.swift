// FuzzSQLScanner: libFuzzer target for the raw SQL scanner (Core/SQLScanner.swift)
// and the two rewritings built on it — SQLite fragments (`?` for every
// parameter) and server statements (split at `;`, parameters numbered `$n`).
// Any input must give tokens or a thrown error, never a trap.

import Foundation
@testable import Quarry
@testable import QuarryPostgres

/// Reads the fuzz input: the first byte chooses the lexical rules and the
/// arguments, the rest is the SQL text (invalid UTF-8 repaired).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQLScanner(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let sql = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)

    // Rules: the two dialects' own, or any mix of the five switches.
    var rules = SQLLexicalRules()
    switch control & 0b11 {
    case 0: rules = .sqlite
    case 1: rules = PostgreSQLDialect().lexicalRules
    default:
        rules.escapeStrings = control & 0b0000_0100 != 0
        rules.backtickAndBracketIdentifiers = control & 0b0000_1000 != 0
        rules.doubleColonOperator = control & 0b0001_0000 != 0
        rules.numberedDollarParameters = control & 0b0010_0000 != 0
        rules.dollarQuotedStrings = control & 0b0100_0000 != 0
    }

    let tokens = SQLScanner.tokens(sql, rules: rules)
    checkTokens(tokens, of: sql)

    // Arguments: up to three positional values, and three named ones.
    let positionalCount = Int(control >> 5) % 4
    let positional = StatementArguments(databaseValues: (0..<positionalCount).map { DatabaseValue.integer(Int64($0)) })
    let named: StatementArguments = ["a": 1, "name": "x", "é": nil]

    for arguments in [positional, named] {
        _ = try? SQLFragment.positional(sql, arguments)
        _ = try? SQLScanner.serverStatements(sql, arguments, dialect: SQLiteDialect())
        _ = try? SQLScanner.serverStatements(sql, arguments, dialect: PostgreSQLDialect())
    }
    _ = SQLExpression(sql: sql, arguments: positional)
    return 0
}

/// Invariants of any scan: no empty text token, no more text than the input
/// had, and SQL without parameter or `;` characters is one text token,
/// unchanged.
private func checkTokens(_ tokens: [SQLToken], of sql: String) {
    var copied = 0
    for token in tokens {
        switch token {
        case .text(let text):
            precondition(!text.isEmpty, "empty text token")
            copied += text.unicodeScalars.count
        case .semicolon:
            copied += 1
        case .parameter:
            break
        }
    }
    precondition(copied <= sql.unicodeScalars.count, "the tokens hold more text than the input")
    let special: Set<Unicode.Scalar> = ["?", ":", "@", "$", ";"]
    if !sql.isEmpty, !sql.unicodeScalars.contains(where: special.contains) {
        precondition(tokens == [.text(sql)], "plain SQL was not kept as one text token")
    }
}
