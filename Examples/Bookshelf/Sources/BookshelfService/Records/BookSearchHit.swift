// BookSearchHit: one result of GET /books/search — the book, its author's
// name, and the title and name with the matched words marked for HTML.

/// One book found by `GET /books/search`:
/// `{"book": {...}, "author_name": "Victor Hugo", "highlighted_title": "Les <b>Misérables</b>", "highlighted_author": "Victor Hugo"}`.
///
/// The highlighted texts are HTML: the stored text is escaped (`&`, `<`, `>`,
/// `"`, `'`), and each matched word is wrapped in `<b>` and `</b>`.
public struct BookSearchHit: Codable, Sendable, Equatable {
    /// The book.
    public var book: Book
    /// The name of its author, as stored.
    public var authorName: String
    /// The title, escaped for HTML, the matched words in `<b>…</b>`.
    public var highlightedTitle: String
    /// The author's name, escaped for HTML, the matched words in `<b>…</b>`.
    public var highlightedAuthor: String

    enum CodingKeys: String, CodingKey {
        case book, authorName = "author_name", highlightedTitle = "highlighted_title", highlightedAuthor = "highlighted_author"
    }
}
