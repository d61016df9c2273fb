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
