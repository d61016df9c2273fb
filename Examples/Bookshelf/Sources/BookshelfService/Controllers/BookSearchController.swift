// BookSearchController: GET /books/search, full-text search of book titles
// and author names in the FTS5 table `book_search`, ranked by bm25, with the
// matched words highlighted. SQLite only: 501 on PostgreSQL (no FTS5 there).

import Hummingbird
import Quarry

/// The `/books/search` route.
struct BookSearchController: Sendable {
    let database: any DatabaseWriter
    /// Picks the PostgreSQL variant of the queries that differ.
    let backend: DatabaseBackend

    /// How much more a word in the title counts than one in the author's
    /// name, in the bm25 ranking.
    static let titleWeight = 10.0

    /// The markers `highlight` wraps matched words in: two private-use
    /// characters, turned into `<b>` and `</b>` once the text is escaped for
    /// HTML (see ``BookSearchHit``). A title that holds these characters
    /// itself shows them as tags.
    static let openMarker = "\u{E000}"
    static let closeMarker = "\u{E001}"

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.get("search", use: search)
    }

    /// `GET /books/search?q=…&page=…&per_page=…`: the books whose title and
    /// author's name hold all the words of `q`, best first, paged like the
    /// other lists (`{"items": [...], "page", "per_page", "total"}`).
    ///
    /// - `q` is read as plain text, never as FTS5 syntax
    ///   (`FTS5Pattern(matchingAllTokensIn:)`): its words are runs of
    ///   letters, digits and marks, matched in any order, ignoring case and
    ///   diacritics; quotes, `*`, `^`, `:`, parentheses, `AND`/`OR`/`NOT`/`NEAR`
    ///   are separators or plain words.
    /// - A missing or empty `q` is a 400. A `q` without any word (only
    ///   punctuation, symbols, emoji or spaces) finds nothing: 200 with no items.
    /// - Ranking: bm25, a title word weighing ``titleWeight`` times an author
    ///   word; equal ranks by book id.
    /// - Each item is a ``BookSearchHit``: the book, the author's name, and
    ///   the title and name escaped for HTML with the matches in `<b>…</b>`.
    /// - On PostgreSQL: 501 (the FTS5 table is not created there).
    @Sendable func search(_ request: Request, context: BookshelfRequestContext) async throws -> Page<BookSearchHit> {
        guard backend == .sqlite else { throw APIError.notAvailableOnPostgreSQL("full-text search (FTS5)") }
        guard let text = request.queryString("q"), !text.isEmpty else {
            throw APIError.badRequest("query parameter `q` is required and must not be empty")
        }
        let page = try PageRequest(request: request)
        // nil for text without a word: `matching` then matches nothing.
        let pattern = FTS5Pattern(matchingAllTokensIn: text)
        let matches = Book.matching(pattern, in: BookSearch.self)
        let authors = TableAlias()
        let ranked = matches
            .joining(required: Book.author.aliased(authors))
            .annotated(
                with: (authors[\Author.name] as QueryExpression<Book, String>).forKey("author_name"),
                (highlight(\BookSearch.title, open: Self.openMarker, close: Self.closeMarker) as QueryExpression<Book, String>)
                    .forKey("highlighted_title"),
                (highlight(\BookSearch.author, open: Self.openMarker, close: Self.closeMarker) as QueryExpression<Book, String>)
                    .forKey("highlighted_author"))
            .order(.asc(bm25(BookSearch.self, weights: ["title": Self.titleWeight])), .asc(\.id))
            .limit(page.perPage, offset: page.offset)
            .asRequest(of: BookSearchHit.self)
        let (hits, total) = try await database.read { db in
            (try ranked.fetchAll(db), try matches.fetchCount(db))
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
