// SQLIdentifier: quoting of SQL identifiers (table and column names).
//
// Identifiers are always quoted with double quotes, embedded quotes doubled,
// as https://www.sqlite.org/lang_keywords.html describes. Values are never
// quoted into SQL: they are bound.

extension String {
    /// The string as a quoted SQL identifier: `player` gives `"player"`, and
    /// `a"b` gives `"a""b"` (<https://www.sqlite.org/lang_keywords.html>).
    public var quotedDatabaseIdentifier: String {
        quoted(by: "\"")
    }

    /// The string between two `quote`s, with each `quote` inside doubled.
    ///
    /// Scalar by scalar, as SQLite reads SQL: a quote followed by a combining
    /// mark (`"\u{301}`) is a single `Character` in Swift, which
    /// `replacingOccurrences(of:with:)` would not double, and the quoting
    /// would end there.
    func quoted(by quote: Unicode.Scalar) -> String {
        var result = String.UnicodeScalarView()
        result.append(quote)
        for scalar in unicodeScalars {
            if scalar == quote { result.append(quote) }
            result.append(scalar)
        }
        result.append(quote)
        return String(result)
    }
}

extension StringProtocol {
    /// The name with ASCII letters lowercased and every other character kept:
    /// the key under which SQLite compares identifiers, case-insensitively
    /// for ASCII letters only (`"Name"` and `"NAME"` match; `"É"` and `"é"`
    /// do not). Column and table names are compared through it.
    var asciiLowercased: String {
        let utf8 = self.utf8
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(self) }
        // Only ASCII bytes change, so the result is valid UTF-8.
        return String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
