// BookSearch: a row of `book_search`, the FTS5 table that indexes each book's
// title and its author's name (rowid = book id), kept in sync by triggers.
// SQLite only: PostgreSQL searches the tables themselves (PostgresBookSearch).

import Quarry

/// A row of the `book_search` full-text table: the words a search looks in.
///
/// The table is a regular FTS5 table (it stores its text), not an external
/// content table of `book`, because the author's name lives in `author`. Its
/// rowid is the book's id; triggers on `book` and `author` (see
/// ``makeBookshelfMigrator()``, migration `createBookSearch`) keep it in step.
/// The service reads it only through `Book.matching(_:in:)` and the FTS5
/// functions (`bm25`, `highlight`), whose key paths name its columns.
public struct BookSearch: Codable, Sendable, Equatable, FetchableRecord, TableRecord {
    public static let databaseTableName = "book_search"

    /// The book's title.
    public var title: String
    /// The name of the book's author.
    public var author: String

    /// The hidden `rowid` column, the id of the indexed book.
    static let rowID = QueryExpression<BookSearch, Int64>(Column.rowID)
}
