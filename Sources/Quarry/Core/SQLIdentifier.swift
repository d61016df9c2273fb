// SQLIdentifier: quoting of SQL identifiers (table and column names).
//
// Identifiers are always quoted with double quotes, embedded quotes doubled,
// as https://www.sqlite.org/lang_keywords.html describes. Values are never
// quoted into SQL: they are bound.

extension String {
    /// The string as a quoted SQL identifier: `player` gives `"player"`, and
    /// `a"b` gives `"a""b"` (<https://www.sqlite.org/lang_keywords.html>).
    public var quotedDatabaseIdentifier: String {
        "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
