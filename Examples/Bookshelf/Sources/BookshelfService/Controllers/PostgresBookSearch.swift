// PostgresBookSearch: GET /books/search on PostgreSQL, with the server's own
// full-text search through QuarryPostgres — the words of `q` matched against
// each book's title and its author's name, ranked by ts_rank, highlighted by
// ts_headline — and the two GIN expression indexes it uses (migration
// `createPostgresBookSearchIndexes`). The SQLite variant (FTS5) is in
// BookSearchController.swift; both answer the same JSON.

import Quarry
import QuarryPostgres

/// The PostgreSQL search strategy of ``BookSearchStrategy``.
///
/// SQLite's FTS5 table `book_search` stores, per book, its title and its
/// author's name, kept in step by triggers. PostgreSQL needs no copy: an
/// index may not span two tables, so there are two GIN expression indexes,
/// `book_title_search` on `to_tsvector('simple', "title")` of `book` and
/// `author_name_search` on `to_tsvector('simple', "name")` of `author`, which
/// the server keeps up to date itself (a rename of the author is seen by all
/// their books, with no trigger). A search
///
/// 1. keeps the candidate books, whose title or whose author's name holds at
///    least one word of `q` — two `IN (SELECT …)` answered by the indexes;
/// 2. keeps those whose document, the title then the author's name, holds
///    all the words: `setweight(title, 'A') || setweight(name, 'D') @@ query`;
/// 3. orders them by `ts_rank` of that document, descending (its default
///    weights make a title word count 10 times an author word, as
///    ``BookSearchController/titleWeight`` does for bm25), then by id;
/// 4. highlights the title and the name with `ts_headline`.
///
/// The configuration is `simple`: lowercased words, no stemming, no stop
/// words, the closest to FTS5's `unicode61`. Unlike the SQLite table, it
/// keeps diacritics (`hugo` does not find `Hugó`), and the server's parser
/// reads `<word>` as an XML tag, not a word.
enum PostgresBookSearch {
    /// The text search configuration of the indexes and of every search.
    static let configuration = PostgresTextSearchConfiguration.simple

    /// The GIN index of ``titleVector`` on `book`.
    static let titleIndex = "book_title_search"

    /// The GIN index of ``authorNameVector`` on `author`.
    static let authorNameIndex = "author_name_search"

    /// `to_tsvector('simple', "title")`: the expression of ``titleIndex``.
    static var titleVector: QueryExpression<Book, PostgresTextSearchVector> {
        textSearchVector(\Book.title, configuration: configuration)
    }

    /// `to_tsvector('simple', "name")`: the expression of ``authorNameIndex``.
    static var authorNameVector: QueryExpression<Author, PostgresTextSearchVector> {
        textSearchVector(\Author.name, configuration: configuration)
    }

    /// Migration `createPostgresBookSearchIndexes`: the two GIN expression
    /// indexes. They hold the books and authors already stored, and the
    /// server maintains them: no trigger, no stored `tsvector` column
    /// (which Quarry could not decode with the records' `SELECT *`).
    static func createIndexes(_ db: Database) throws {
        try db.createTextSearchIndex(titleIndex, on: Book.databaseTableName, vector: titleVector)
        try db.createTextSearchIndex(authorNameIndex, on: Author.databaseTableName, vector: authorNameVector)
    }

    /// The requests of a search for the words of `text`; nil when `text` has
    /// no word. The words are quoted tsquery operands, bound with the
    /// configuration; the SQL text is constant.
    static func requests(for text: String, page: PageRequest) -> BookSearchRequests? {
        guard let allWords = PostgresTextSearchPattern(matchingAllTokensIn: text, configuration: configuration),
            let anyWord = PostgresTextSearchPattern(matchingAnyTokenIn: text, configuration: configuration)
        else { return nil }
        let authors = TableAlias()
        let authorName = authors["name"]
        let document = weightedDocument(authorName: authorName)
        // Step 1, through the indexes: the search expressions are those of
        // the indexes (the configuration is bound, and folded into a
        // constant when the server plans the statement).
        let candidates = Book.matching(anyWord, in: titleVector).select(\.id).contains(\Book.id)
            || Author.matching(anyWord, in: authorNameVector).select(\.id).contains(\Book.authorID)
        let matches = Book
            .joining(required: Book.author.aliased(authors))
            .filter(candidates && document.matches(allWords))
        let hits = matches
            .annotated(
                with: (authors[\Author.name] as QueryExpression<Book, String>).forKey("author_name"),
                tsHeadline(
                    \Book.title, allWords, startSelection: BookSearchController.openMarker,
                    stopSelection: BookSearchController.closeMarker, highlightAll: true
                ).forKey("highlighted_title"),
                headline(authorName, allWords).forKey("highlighted_author"))
            .order(tsRank(document, allWords).desc, QueryExpression(\Book.id).asc)
            .limit(page.perPage, offset: page.offset)
            .asRequest(of: BookSearchHit.self)
        return BookSearchRequests(hits: hits, matches: matches)
    }

    /// `CAST(? AS regconfig)`, the configuration's name bound.
    private static var configurationExpression: SQLExpression {
        SQLExpression(sql: "CAST(? AS regconfig)", arguments: [configuration.name])
    }

    /// The document of a book: its title (weight `A`) followed by its
    /// author's name (weight `D`),
    /// `setweight(to_tsvector(…, "title"), 'A') || setweight(to_tsvector(…, authorName), 'D')`.
    /// `authorName` is the name column of the joined author.
    private static func weightedDocument(authorName: SQLExpression) -> QueryExpression<Book, PostgresTextSearchVector> {
        let title = SQLExpression.function("setweight", [titleVector.sqlExpression, SQLExpression(sql: "'A'")])
        let name = SQLExpression.function("setweight", [
            .function("to_tsvector", [configurationExpression, authorName]), SQLExpression(sql: "'D'"),
        ])
        // `||` of two tsvectors: Quarry's `appending` writes the operator; the
        // text type only serves to reach it.
        let concatenated = QueryExpression<Book, String>(title).appending(QueryExpression<Book, String>(name))
        return QueryExpression(concatenated.sqlExpression)
    }

    /// `ts_headline` of the joined author's name, as `tsHeadline` writes it
    /// for a column of the searched table: the whole text (`HighlightAll`),
    /// matches between the service's markers, the options bound.
    private static func headline(_ text: SQLExpression, _ pattern: PostgresTextSearchPattern) -> QueryExpression<Book, String> {
        let options = "StartSel=\"" + BookSearchController.openMarker + "\", StopSel=\"" + BookSearchController.closeMarker
            + "\", HighlightAll=true"
        return QueryExpression(.function("ts_headline", [configurationExpression, text, pattern.sqlExpression, .value(.text(options))]))
    }
}
