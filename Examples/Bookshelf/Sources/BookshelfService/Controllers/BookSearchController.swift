// BookSearchController: GET /books/search, full-text search of book titles
// and author names, ranked, with the matched words highlighted. One contract,
// one query strategy per backend: the FTS5 table `book_search` and bm25 on
// SQLite (here), PostgreSQL's text search and ts_rank on PostgreSQL
// (PostgresBookSearch.swift).

import Hummingbird
import Quarry

/// The `/books/search` route.
struct BookSearchController: Sendable {
    let database: any DatabaseWriter
    /// Picks the search strategy (``BookSearchStrategy``).
    let backend: DatabaseBackend

    /// How much more a word in the title counts than one in the author's
    /// name, in the ranking (bm25's column weight on SQLite; on PostgreSQL,
    /// the ratio of `ts_rank`'s default weights of the labels `A` and `D`).
    static let titleWeight = 10.0

    /// The markers `highlight` (SQLite) and `ts_headline` (PostgreSQL) wrap
    /// matched words in: two private-use characters, turned into `<b>` and `</b>` once the text is escaped for
    /// HTML (see ``BookSearchHit``). A title that holds these characters
    /// itself shows them as tags.
    static let openMarker = "\u{E000}"
    static let closeMarker = "\u{E001}"

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.get("search", use: search)
    }

    /// `GET /books/search?q=…&page=…&per_page=…`: the books whose title and
    /// author's name hold all the words of `q`, best first, paged like the
    /// other lists (`{"items": [...], "page", "per_page", "total"}`). The same
    /// contract on both backends; ``BookSearchStrategy`` has the queries.
    ///
    /// - `q` is read as plain text, never as query syntax: its words are
    ///   runs of letters, digits and marks, matched in any order, ignoring
    ///   case; quotes, `*`, `^`, `:`, `&`, `|`, `!`, parentheses,
    ///   `AND`/`OR`/`NOT`/`NEAR` are separators or plain words
    ///   (`FTS5Pattern(matchingAllTokensIn:)` on SQLite,
    ///   `PostgresTextSearchPattern(matchingAllTokensIn:)` on PostgreSQL).
    /// - A missing or empty `q` is a 400. A `q` without any word (only
    ///   punctuation, symbols, emoji or spaces) finds nothing: 200 with no items.
    /// - Ranking: a title word weighs ``titleWeight`` times an author word
    ///   (bm25 on SQLite, `ts_rank` on PostgreSQL); equal ranks by book id.
    /// - Each item is a ``BookSearchHit``: the book, the author's name, and
    ///   the title and name escaped for HTML with the matches in `<b>…</b>`.
    @Sendable func search(_ request: Request, context: BookshelfRequestContext) async throws -> Page<BookSearchHit> {
        guard let text = request.queryString("q"), !text.isEmpty else {
            throw APIError.badRequest("query parameter `q` is required and must not be empty")
        }
        let page = try PageRequest(request: request)
        // nil for text without a word: nothing can match.
        guard let requests = BookSearchStrategy(backend: backend).requests(for: text, page: page) else {
            return Page(items: [], page: page.page, perPage: page.perPage, total: 0)
        }
        let (hits, total) = try await database.read { db in
            (try requests.hits.fetchAll(db), try requests.matches.fetchCount(db))
        }
        let items = hits.map { hit in
            var hit = hit
            hit.highlightedTitle = Self.html(hit.highlightedTitle)
            hit.highlightedAuthor = Self.html(hit.highlightedAuthor)
            return hit
        }
        return Page(items: items, page: page.page, perPage: page.perPage, total: total)
    }

    /// `text` escaped for HTML, its markers turned into `<b>` and `</b>`.
    static func html(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case openMarker.unicodeScalars.first: escaped += "<b>"
            case closeMarker.unicodeScalars.first: escaped += "</b>"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

/// The two requests of a search: one page of hits, best first, and all the
/// matching books (for the total).
struct BookSearchRequests: Sendable {
    let hits: QueryRequest<Book, BookSearchHit>
    let matches: QueryRequest<Book, Book>
}

/// How a backend finds, ranks and highlights books: the FTS5 table on SQLite,
/// PostgreSQL's text search (``PostgresBookSearch``) on PostgreSQL. Both read
/// `q` as words only, bound as statement arguments.
enum BookSearchStrategy: Sendable {
    /// FTS5: `book_search MATCH ?`, `bm25`, `highlight`.
    case fts5
    /// PostgreSQL: `to_tsvector(…) @@ to_tsquery(…)`, `ts_rank`, `ts_headline`.
    case postgresTextSearch

    init(backend: DatabaseBackend) {
        switch backend {
        case .sqlite: self = .fts5
        case .postgres: self = .postgresTextSearch
        }
    }

    /// The requests of a search for the words of `text`; nil when `text`
    /// has no word (nothing can match).
    func requests(for text: String, page: PageRequest) -> BookSearchRequests? {
        switch self {
        case .fts5: Self.fts5Requests(for: text, page: page)
        case .postgresTextSearch: PostgresBookSearch.requests(for: text, page: page)
        }
    }

    /// SQLite: the books whose row of the FTS5 table `book_search` matches
    /// all the words, ranked by bm25 (lower is better), highlighted by FTS5.
    private static func fts5Requests(for text: String, page: PageRequest) -> BookSearchRequests? {
        guard let pattern = FTS5Pattern(matchingAllTokensIn: text) else { return nil }
        let open = BookSearchController.openMarker
        let close = BookSearchController.closeMarker
        let matches = Book.matching(pattern, in: BookSearch.self)
        let authors = TableAlias()
        let hits = matches
            .joining(required: Book.author.aliased(authors))
            .annotated(
                with: (authors[\Author.name] as QueryExpression<Book, String>).forKey("author_name"),
                (highlight(\BookSearch.title, open: open, close: close) as QueryExpression<Book, String>)
                    .forKey("highlighted_title"),
                (highlight(\BookSearch.author, open: open, close: close) as QueryExpression<Book, String>)
                    .forKey("highlighted_author"))
            .order(.asc(bm25(BookSearch.self, weights: ["title": BookSearchController.titleWeight])), .asc(\.id))
            .limit(page.perPage, offset: page.offset)
            .asRequest(of: BookSearchHit.self)
        return BookSearchRequests(hits: hits, matches: matches)
    }
}
