// FTS5Pattern: the right operand of MATCH (https://www.sqlite.org/fts5.html#full_text_query_syntax),
// built safely from user input, or written in the FTS5 query syntax and
// checked by SQLite. Patterns are always bound as arguments of MATCH.
//
// Tokenization of user input: Quarry does not ask the table's tokenizer.
// It splits the input into runs of Unicode letters, numbers, marks and
// private-use characters (the token characters of SQLite's default unicode61
// tokenizer, plus marks, so that "e" + U+0301 stays one word), and drops
// everything else: punctuation, symbols, emoji, spaces, controls, NUL. Each
// run becomes an FTS5 string, in double quotes; a string is always valid
// syntax, and inside it FTS5 operators (AND, NEAR, *, ^, :, -) are plain text
// that the table's tokenizer reads like a document's text. So a pattern is
// never a syntax error and never carries operators from the input, whatever
// the tokenizer. With the trigram tokenizer, each run matches as a substring
// (and runs shorter than three characters match nothing); punctuation splits
// a search that trigram alone would have matched across it.

/// A full-text pattern, the right operand of `MATCH`
/// (<https://www.sqlite.org/fts5.html#full_text_query_syntax>).
///
/// Build one from what a user typed with the failable initializers: they
/// keep the words of the input and drop the rest, so the pattern is always
/// valid and never interprets the input as FTS5 operators. They return nil
/// when the input has no word:
///
/// ```swift
/// FTS5Pattern(matchingAllTokensIn: "old man, sea")   // "old" "man" "sea"
/// FTS5Pattern(matchingAnyTokenIn: "old man")         // "old" OR "man"
/// FTS5Pattern(matchingPhrase: "old man")             // "old man"
/// FTS5Pattern(matchingAllPrefixesIn: "mob di")       // "mob"* "di"*
/// FTS5Pattern(matchingPhrasePrefix: "old ma")        // "old ma"*
/// FTS5Pattern(matchingPrefixPhrase: "old man")       // ^"old man"
/// FTS5Pattern(matchingAllTokensIn: "*:^(")           // nil
/// ```
///
/// Words are runs of Unicode letters, numbers, combining marks and
/// private-use characters; everything else separates them. Each word is
/// written as an FTS5 string, which the table's tokenizer splits as it splits
/// documents. With the `trigram` tokenizer, each word matches as a substring.
///
/// For the full FTS5 syntax (column filters, `NEAR`, `AND`/`OR`/`NOT`), use
/// ``init(rawPattern:allowedColumns:)``, which SQLite validates.
///
/// Patterns are bound as statement arguments:
/// ``TableRecord/matching(_:)`` renders `WHERE "book_ft" MATCH ?`.
public struct FTS5Pattern: Sendable, Hashable {
    /// The pattern in the FTS5 query syntax.
    public let rawPattern: String

    private init(checked rawPattern: String) {
        self.rawPattern = rawPattern
    }

    /// A pattern that matches documents holding all the words of `string`,
    /// in any order and any column: `"old" "man"`.
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingAllTokensIn string: String) {
        guard let pattern = Self.pattern(string, separator: " ", suffix: "") else { return nil }
        self.init(checked: pattern)
    }

    /// A pattern that matches documents holding at least one word of
    /// `string`: `"old" OR "man"`.
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingAnyTokenIn string: String) {
        guard let pattern = Self.pattern(string, separator: " OR ", suffix: "") else { return nil }
        self.init(checked: pattern)
    }

    /// A pattern that matches documents holding words that start with each
    /// word of `string` (<https://www.sqlite.org/fts5.html#fts5_prefix_queries>):
    /// `"mob"* "di"*`. Index prefixes with ``FTS5TableDefinition/prefixes``
    /// to make such queries fast.
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingAllPrefixesIn string: String) {
        guard let pattern = Self.pattern(string, separator: " ", suffix: "*") else { return nil }
        self.init(checked: pattern)
    }

    /// A pattern that matches documents holding the words of `string`
    /// next to each other, in order (<https://www.sqlite.org/fts5.html#fts5_phrases>):
    /// `"old man"`.
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingPhrase string: String) {
        let words = Self.words(in: string)
        guard !words.isEmpty else { return nil }
        self.init(checked: Self.quoted(words.joined(separator: " ")))
    }

    /// A pattern that matches documents whose column starts with the words
    /// of `string`, next to each other, in order
    /// (<https://www.sqlite.org/fts5.html#fts5_initial_token_queries>):
    /// `^"old man"`, GRDB's meaning. "old man" matches "old man and the sea",
    /// not "the old man", nor "old manners".
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingPrefixPhrase string: String) {
        let words = Self.words(in: string)
        guard !words.isEmpty else { return nil }
        self.init(checked: "^" + Self.quoted(words.joined(separator: " ")))
    }

    /// A pattern that matches documents holding the words of `string` next
    /// to each other, in order, the last one as a prefix: `"old ma"*`, for
    /// search as you type. ("old ma" matches "the old man" and "old mast".)
    ///
    /// GRDB has no such initializer; Quarry's `matchingPrefixPhrase` has
    /// GRDB's meaning (a phrase at the start of a column).
    ///
    /// - parameter string: any text, such as what a user typed.
    /// - returns: nil if `string` has no word.
    public init?(matchingPhrasePrefix string: String) {
        let words = Self.words(in: string)
        guard !words.isEmpty else { return nil }
        self.init(checked: Self.quoted(words.joined(separator: " ")) + "*")
    }

    /// A pattern written in the FTS5 query syntax
    /// (<https://www.sqlite.org/fts5.html#full_text_query_syntax>), checked
    /// by SQLite on a temporary in-memory table.
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: "NEAR(old sea, 5) OR whale*")
    /// let filtered = try FTS5Pattern(rawPattern: "title: sea", allowedColumns: ["title", "body"])
    /// try FTS5Pattern(rawPattern: "AND")   // throws: fts5: syntax error near "AND"
    /// ```
    ///
    /// Never build a raw pattern from user input: use the failable
    /// initializers for that. ``Database/makeFTS5Pattern(rawPattern:forTable:)``
    /// allows the columns of a given table.
    ///
    /// - parameters:
    ///   - rawPattern: the pattern.
    ///   - allowedColumns: the columns the pattern may filter on (`title: sea`).
    /// - throws: a ``DatabaseError`` with SQLite's message if the pattern is
    ///   invalid. The error holds neither SQL nor arguments, so that logging
    ///   it does not log the pattern.
    public init(rawPattern: String, allowedColumns: [String] = []) throws {
        do {
            let queue = try DatabaseQueue()
            try queue.writeWithoutTransaction { db in
                let columns = allowedColumns.isEmpty ? ["quarry_pattern_check"] : allowedColumns
                try db.create(virtualTable: "pattern_check", using: FTS5()) { t in
                    for column in columns { t.column(column) }
                }
                // FTS5 parses the pattern when the statement runs.
                _ = try Row.fetchAll(db, sql: "SELECT rowid FROM pattern_check WHERE pattern_check MATCH ?", arguments: [rawPattern])
            }
        } catch let error as DatabaseError {
            throw DatabaseError(resultCode: error.extendedResultCode, message: error.message)
        }
        self.init(checked: rawPattern)
    }

    /// The pattern of the words of `string`, each quoted and followed by
    /// `suffix`, joined by `separator`; nil without words.
    private static func pattern(_ string: String, separator: String, suffix: String) -> String? {
        let words = words(in: string)
        guard !words.isEmpty else { return nil }
        return words.map { quoted($0) + suffix }.joined(separator: separator)
    }

    /// `"word"`: an FTS5 string, double quotes doubled
    /// (<https://www.sqlite.org/fts5.html#fts5_strings>).
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The runs of letters, numbers, marks and private-use characters of
    /// `string`; `package` for QuarryPostgres's text search patterns, which
    /// split user input the same way.
    package static func words(in string: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            if isWordScalar(scalar) {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .privateUse:
            return true
        default:
            return false
        }
    }
}

extension FTS5Pattern: DatabaseValueConvertible {
    /// The pattern as text, for binding it.
    public var databaseValue: DatabaseValue { .text(rawPattern) }

    /// A pattern from text that SQLite accepts as a pattern; nil otherwise.
    ///
    /// - parameter dbValue: a database value.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> FTS5Pattern? {
        guard case .text(let text) = dbValue else { return nil }
        return try? FTS5Pattern(rawPattern: text)
    }
}
