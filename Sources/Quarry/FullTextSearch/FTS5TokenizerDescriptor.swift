// FTS5TokenizerDescriptor: the `tokenize` option of an FTS5 table — a
// tokenizer name and its arguments (https://www.sqlite.org/fts5.html#tokenizers),
// rendered as one SQL string literal in the CREATE VIRTUAL TABLE statement.

/// The tokenizer of an FTS5 table: how its text, and the text of patterns, is
/// split into tokens (<https://www.sqlite.org/fts5.html#tokenizers>).
///
/// ```swift
/// t.tokenizer = .unicode61(diacritics: .remove)    // tokenize='unicode61 remove_diacritics 2'
/// t.tokenizer = .porter(wrapping: .unicode61())     // tokenize='porter unicode61'
/// t.tokenizer = .trigram()                          // tokenize='trigram'
/// ```
///
/// An unknown tokenizer makes ``Database/create(virtualTable:options:using:_:)``
/// throw SQLite's error.
public struct FTS5TokenizerDescriptor: Sendable, Hashable {
    /// The tokenizer name followed by its arguments: `["unicode61", "remove_diacritics", "2"]`.
    public let components: [String]

    /// A tokenizer from its name and arguments, for tokenizers and options
    /// that have no factory method.
    ///
    /// ```swift
    /// FTS5TokenizerDescriptor(components: ["unicode61", "categories", "L* N* Co Mn"])
    /// // tokenize='unicode61 categories ''L* N* Co Mn'''
    /// ```
    ///
    /// - parameter components: the tokenizer name, then its arguments. Each
    ///   is quoted as needed in the `tokenize` option.
    public init(components: [String]) {
        self.components = components
    }

    /// The `ascii` tokenizer (<https://www.sqlite.org/fts5.html#ascii_tokenizer>):
    /// ASCII letters and digits are token characters, every other ASCII
    /// character separates tokens, and non-ASCII characters are token characters.
    ///
    /// ```swift
    /// .ascii(separators: ["x"], tokenCharacters: ["."])
    /// // tokenize='ascii separators x tokenchars ''.'''
    /// ```
    ///
    /// - parameters:
    ///   - separators: characters that separate tokens (the `separators` option).
    ///   - tokenCharacters: characters that belong to tokens (the `tokenchars` option).
    public static func ascii(separators: Set<Character> = [], tokenCharacters: Set<Character> = []) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["ascii"] + characterOptions(separators, tokenCharacters))
    }

    /// The `porter` stemming tokenizer (<https://www.sqlite.org/fts5.html#porter_tokenizer>),
    /// which reduces English words to their stem ("fishing" matches "fish"),
    /// around another tokenizer.
    ///
    /// ```swift
    /// .porter(wrapping: .unicode61(diacritics: .remove))
    /// // tokenize='porter unicode61 remove_diacritics 2'
    /// ```
    ///
    /// - parameter base: the tokenizer whose tokens are stemmed; SQLite uses
    ///   `unicode61` without one.
    public static func porter(wrapping base: FTS5TokenizerDescriptor? = nil) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["porter"] + (base?.components ?? []))
    }

    /// The `unicode61` tokenizer, SQLite's default (<https://www.sqlite.org/fts5.html#unicode61_tokenizer>):
    /// letters, numbers and private-use characters are token characters, and
    /// case is folded.
    ///
    /// ```swift
    /// .unicode61(diacritics: .remove, separators: ["-"])
    /// // tokenize='unicode61 remove_diacritics 2 separators ''-'''
    /// ```
    ///
    /// - parameters:
    ///   - diacritics: whether diacritics are kept or removed; see ``FTS5/Diacritics``.
    ///   - categories: the Unicode general categories of token characters
    ///     (the `categories` option), such as `"L* N* Co Mn"`; empty for
    ///     SQLite's default, `"L* N* Co"`.
    ///   - separators: characters that separate tokens (the `separators` option).
    ///   - tokenCharacters: characters that belong to tokens (the `tokenchars` option).
    public static func unicode61(
        diacritics: FTS5.Diacritics = .removeLegacy, categories: String = "",
        separators: Set<Character> = [], tokenCharacters: Set<Character> = []
    ) -> FTS5TokenizerDescriptor {
        var components = ["unicode61"]
        switch diacritics {
        case .removeLegacy: break
        case .keep: components += ["remove_diacritics", "0"]
        case .remove: components += ["remove_diacritics", "2"]
        }
        if !categories.isEmpty { components += ["categories", categories] }
        return FTS5TokenizerDescriptor(components: components + characterOptions(separators, tokenCharacters))
    }

    /// The `trigram` tokenizer (<https://www.sqlite.org/fts5.html#the_trigram_tokenizer>):
    /// every sequence of three characters is a token, so that patterns match
    /// substrings. Patterns of fewer than three characters match nothing.
    ///
    /// ```swift
    /// .trigram(caseSensitive: true)   // tokenize='trigram case_sensitive 1'
    /// ```
    ///
    /// - parameter caseSensitive: whether matching is case-sensitive (the
    ///   `case_sensitive` option); nil for SQLite's default, case-insensitive.
    public static func trigram(caseSensitive: Bool? = nil) -> FTS5TokenizerDescriptor {
        var components = ["trigram"]
        if let caseSensitive { components += ["case_sensitive", caseSensitive ? "1" : "0"] }
        return FTS5TokenizerDescriptor(components: components)
    }

    /// The `separators` and `tokenchars` arguments, their characters sorted
    /// so that the rendered option does not depend on set order.
    private static func characterOptions(_ separators: Set<Character>, _ tokenCharacters: Set<Character>) -> [String] {
        var components: [String] = []
        if !separators.isEmpty { components += ["separators", String(separators.sorted())] }
        if !tokenCharacters.isEmpty { components += ["tokenchars", String(tokenCharacters.sorted())] }
        return components
    }

    /// The value of the `tokenize` option: the components separated by
    /// spaces, each one a bareword or quoted as FTS5 reads it
    /// (<https://www.sqlite.org/fts5.html#fts5_table_creation_and_initialization>).
    /// Throws for an empty descriptor, and for a NUL character, which no
    /// option can hold.
    func optionValue() throws -> String {
        guard !components.isEmpty else {
            throw DatabaseError.misuse("the FTS5 tokenizer has no name: its components are empty")
        }
        return try components.map { component in
            if component.unicodeScalars.contains("\u{0}") {
                throw DatabaseError.misuse("the FTS5 tokenizer argument \(component.debugDescription) contains a NUL character")
            }
            return FTS5TokenizerDescriptor.isBareword(component) ? component : DatabaseValue.text(component).sqlLiteral
        }.joined(separator: " ")
    }

    /// Whether FTS5 reads `word` as is, unquoted: ASCII letters, digits and
    /// underscores, and non-ASCII characters.
    private static func isBareword(_ word: String) -> Bool {
        !word.isEmpty && word.utf8.allSatisfy { byte in
            byte >= 0x80 || byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        }
    }
}
