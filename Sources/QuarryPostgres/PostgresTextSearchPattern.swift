// PostgresTextSearchPattern: the query side of PostgreSQL's full-text search
// (https://www.postgresql.org/docs/current/textsearch-controls.html), built
// safely from user input, or written in the tsquery syntax and checked by the
// server when the statement runs. The counterpart of Quarry's FTS5Pattern.
//
// User input is split into words as FTS5Pattern splits it (runs of Unicode
// letters, numbers, marks and private-use characters; everything else is
// dropped). Each word becomes a quoted tsquery operand, `'word'`, with `'`
// doubled and `\` escaped, so that nothing in the input is read as a tsquery
// operator (& | ! <-> : * ( )), and the words are joined by the operators the
// initializer chooses. The tsquery text and the configuration are bound as
// the arguments of `to_tsquery(CAST(? AS regconfig), ?)`: they never appear
// in the SQL text. The server then runs each quoted word through the
// configuration's parser and dictionaries, as it does the documents' text.

import Quarry

/// A PostgreSQL text search configuration (`regconfig`): the parser and
/// dictionaries that turn text into lexemes
/// (<https://www.postgresql.org/docs/current/textsearch-configuration.html>).
///
/// ```swift
/// PostgresTextSearchConfiguration.simple     // CAST('simple' AS regconfig): lowercased words, no stemming
/// PostgresTextSearchConfiguration.english    // CAST('english' AS regconfig): stemmed, stop words dropped
/// PostgresTextSearchConfiguration("french")  // any configuration the server has
/// ```
///
/// The name is bound as a statement argument, `CAST(? AS regconfig)`; in a
/// schema definition, which cannot hold parameters, it is written as the SQL
/// literal `'english'` (quotes doubled). A name the server does not know makes
/// the statement throw.
public struct PostgresTextSearchConfiguration: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The configuration's name, as `to_tsvector` and `to_tsquery` take it:
    /// `simple`, `english`, `pg_catalog.german`.
    public let name: String

    /// The configuration named `name`.
    ///
    /// - parameter name: a configuration of the server (`SELECT cfgname FROM pg_ts_config`).
    public init(_ name: String) {
        self.name = name
    }

    /// The configuration named by a string literal: `"english"`.
    ///
    /// - parameter value: the configuration's name.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// `simple`: words are lowercased, never stemmed, and no word is a stop
    /// word, the closest to FTS5's default `unicode61` tokenizer.
    ///
    /// Quarry's default: unlike the server's `default_text_search_config`
    /// (set by `initdb` from the locale, and per session), it gives the same
    /// lexemes on every server, and a generated column or an expression index
    /// must name its configuration anyway.
    public static let simple = PostgresTextSearchConfiguration("simple")

    /// `english`: English stemming (`running` and `runs` are `run`) and stop
    /// words (`the`, `and` are dropped).
    public static let english = PostgresTextSearchConfiguration("english")

    /// `CAST(? AS regconfig)`, the name bound.
    var expression: SQLExpression {
        SQLExpression(.function("CAST", [SQLExpression(.postfix(.value(.text(name)), "AS regconfig"))], distinct: false))
    }
}

/// A full-text query for PostgreSQL, the right operand of `@@`:
/// `to_tsquery(CAST(? AS regconfig), ?)`, its configuration and tsquery text
/// bound (<https://www.postgresql.org/docs/current/textsearch-controls.html#TEXTSEARCH-PARSING-QUERIES>).
///
/// Build one from what a user typed with the failable initializers. They keep
/// the words of the input and drop everything else, so the query is always
/// valid tsquery syntax and never carries an operator from the input. They
/// return nil when the input has no word:
///
/// ```swift
/// PostgresTextSearchPattern(matchingAllTokensIn: "old man, sea")  // 'old' & 'man' & 'sea'
/// PostgresTextSearchPattern(matchingAnyTokenIn: "old man")        // 'old' | 'man'
/// PostgresTextSearchPattern(matchingPhrase: "old man")            // 'old' <-> 'man'
/// PostgresTextSearchPattern(matchingAllPrefixesIn: "mob di")      // 'mob':* & 'di':*
/// PostgresTextSearchPattern(matchingAllTokensIn: "&|!<->:*()")    // nil
/// ```
///
/// Words are split as `FTS5Pattern` splits them: runs of Unicode letters,
/// numbers, combining marks and private-use characters. Each word is then
/// read by the configuration's parser and dictionaries, as document text is:
/// with ``PostgresTextSearchConfiguration/english``, `running` is the lexeme
/// `run` and the stop word `the` is dropped (a query of stop words only
/// matches nothing). A word the parser splits further (`a1-b`, not produced
/// here, or a mix of scripts) becomes a phrase of its parts.
///
/// For the full tsquery syntax (`!`, parentheses, `<N>`, weights), use
/// ``init(rawQuery:configuration:)``.
///
/// Match it with `QueryRequest.matching(_:in:)`
/// or `QueryExpression.matches(_:)`.
public struct PostgresTextSearchPattern: Sendable, Hashable {
    /// The query in the tsquery syntax, as `to_tsquery` reads it:
    /// `'old' & 'man'`.
    public let rawQuery: String

    /// The configuration that turns the query's words into lexemes.
    public let configuration: PostgresTextSearchConfiguration

    private init(checked rawQuery: String, configuration: PostgresTextSearchConfiguration) {
        self.rawQuery = rawQuery
        self.configuration = configuration
    }

    /// A pattern that matches documents holding all the words of `string`,
    /// in any order: `'old' & 'man'`.
    ///
    /// - parameters:
    ///   - string: any text, such as what a user typed.
    ///   - configuration: the text search configuration; use the one of the
    ///     searched vector.
    /// - returns: nil if `string` has no word.
    public init?(matchingAllTokensIn string: String, configuration: PostgresTextSearchConfiguration = .simple) {
        guard let query = Self.query(string, separator: " & ", suffix: "") else { return nil }
        self.init(checked: query, configuration: configuration)
    }

    /// A pattern that matches documents holding at least one word of
    /// `string`: `'old' | 'man'`.
    ///
    /// - parameters:
    ///   - string: any text, such as what a user typed.
    ///   - configuration: the text search configuration; use the one of the
    ///     searched vector.
    /// - returns: nil if `string` has no word.
    public init?(matchingAnyTokenIn string: String, configuration: PostgresTextSearchConfiguration = .simple) {
        guard let query = Self.query(string, separator: " | ", suffix: "") else { return nil }
        self.init(checked: query, configuration: configuration)
    }

    /// A pattern that matches documents holding the words of `string` next to
    /// each other, in order: `'old' <-> 'man'`. With a configuration that has
    /// stop words, a dropped stop word still counts as a position: "man of
    /// sea" with `english` is `'man' <2> 'sea'`.
    ///
    /// - parameters:
    ///   - string: any text, such as what a user typed.
    ///   - configuration: the text search configuration; use the one of the
    ///     searched vector.
    /// - returns: nil if `string` has no word.
    public init?(matchingPhrase string: String, configuration: PostgresTextSearchConfiguration = .simple) {
        guard let query = Self.query(string, separator: " <-> ", suffix: "") else { return nil }
        self.init(checked: query, configuration: configuration)
    }

    /// A pattern that matches documents holding, for each word of `string`, a
    /// word that starts with it: `'mob':* & 'di':*`. With `english`, the
    /// prefix is stemmed too (`running` looks for words starting with `run`).
    ///
    /// - parameters:
    ///   - string: any text, such as what a user typed.
    ///   - configuration: the text search configuration; use the one of the
    ///     searched vector.
    /// - returns: nil if `string` has no word.
    public init?(matchingAllPrefixesIn string: String, configuration: PostgresTextSearchConfiguration = .simple) {
        guard let query = Self.query(string, separator: " & ", suffix: ":*") else { return nil }
        self.init(checked: query, configuration: configuration)
    }

    /// A pattern written in the tsquery syntax
    /// (<https://www.postgresql.org/docs/current/datatype-textsearch.html#DATATYPE-TSQUERY>),
    /// read by `to_tsquery`:
    ///
    /// ```swift
    /// PostgresTextSearchPattern(rawQuery: "(whale | sea) & !old", configuration: .english)
    /// PostgresTextSearchPattern(rawQuery: "old <2> sea")
    /// ```
    ///
    /// The server checks the syntax when the statement runs: a query such as
    /// `"sea &"` makes the request throw a `DatabaseError` (SQLSTATE
    /// 42601, `syntax error in tsquery` or `no operand in tsquery`), whose
    /// SQL is the request's. The query is bound, so it never changes the SQL;
    /// still, never build a raw query from user input: use the failable
    /// initializers for that.
    ///
    /// - parameters:
    ///   - rawQuery: the query.
    ///   - configuration: the text search configuration.
    public init(rawQuery: String, configuration: PostgresTextSearchConfiguration = .simple) {
        self.init(checked: rawQuery, configuration: configuration)
    }

    /// `to_tsquery(CAST(? AS regconfig), ?)`, the configuration and the query
    /// bound.
    public var sqlExpression: SQLExpression {
        SQLExpression(.function("to_tsquery", [configuration.expression, .value(.text(rawQuery))], distinct: false))
    }

    /// The query of the words of `string`, each quoted and followed by
    /// `suffix`, joined by `separator`; nil without words.
    private static func query(_ string: String, separator: String, suffix: String) -> String? {
        let words = FTS5Pattern.words(in: string)
        guard !words.isEmpty else { return nil }
        return words.map { quotedOperand($0) + suffix }.joined(separator: separator)
    }

    /// `'word'`: a quoted tsquery operand, `'` doubled and `\` escaped, as
    /// tsquery's input reads quoted operands. (Words hold neither, being
    /// letters, numbers and marks; the escaping keeps the operand valid
    /// whatever splits the words.)
    static func quotedOperand(_ word: String) -> String {
        var result = "'"
        for scalar in word.unicodeScalars {
            switch scalar {
            case "'": result += "''"
            case "\\": result += "\\\\"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }
}
