// BookImportController: POST /books/import, a bulk import of books with
// insertAll, all or nothing.

import Hummingbird
import Quarry

/// The `/books/import` route.
struct BookImportController: Sendable {
    let database: any DatabaseWriter

    /// The most books one import takes (more: 413).
    static let maximumBookCount = 1_000

    /// The largest body an import may have: 1 MiB, room for 1,000 books with
    /// long titles (other routes take 64 KiB).
    static let maximumBodySize = 1024 * 1024

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.post("import", use: importBooks)
    }

    /// `POST /books/import` with `{"books": [{"author_id": 1, "title": …,
    /// "isbn": …, "published": …, "price_cents": …}, …]}` → 201 and
    /// `{"books": [...], "count": n}`, the inserted books with their ids, in
    /// the order of the request.
    ///
    /// The books are validated as `POST /books` does (422, naming the book:
    /// `books[3]: …`), then inserted with `Book.insertAll`, a few multi-row
    /// INSERTs in a savepoint: a duplicate ISBN (within the import or with a
    /// stored book) or an unknown author is a 409, and then no book is
    /// inserted.
    @Sendable func importBooks(_ request: Request, context: BookshelfRequestContext) async throws -> EditedResponse<BulkBooksResult> {
        let input = try await request.decodeJSON(BookImportInput.self, context: context, maximumSize: Self.maximumBodySize)
        let books = try input.records(maximumCount: Self.maximumBookCount)
        let inserted = try await database.write { db -> [Book] in
            do {
                return try Book.insertAll(db, books)
            } catch let error as DatabaseError where error.isUniqueConstraintViolation {
                // insertAll rolled its savepoint back: the database is as before the import.
                throw APIError.conflict(try Self.duplicateISBNMessage(books, db))
            } catch let error as DatabaseError where error.isForeignKeyViolation {
                throw APIError.conflict(try Self.unknownAuthorMessage(books, db))
            }
        }
        return EditedResponse(status: .created, response: BulkBooksResult(books: inserted, count: inserted.count))
    }

    /// The message of a unique violation: the first ISBN that appears twice
    /// in `books`, else the first that a stored book has.
    static func duplicateISBNMessage(_ books: [Book], _ db: Database) throws -> String {
        var seen: Set<String> = []
        for book in books where !seen.insert(book.isbn).inserted {
            return "ISBN '\(book.isbn)' appears more than once in the import"
        }
        let taken = Set(try Book.filter(books.map(\.isbn).contains(\.isbn)).select(\.isbn).fetchAll(db))
        guard let clash = books.first(where: { taken.contains($0.isbn) }) else {
            return "a book of the import has an ISBN that already exists"
        }
        return "a book with ISBN '\(clash.isbn)' already exists"
    }

    /// The message of a foreign key violation: the first author of `books`
    /// that does not exist, worded as `POST /books` words it.
    static func unknownAuthorMessage(_ books: [Book], _ db: Database) throws -> String {
        let known = Set(try Author.filter(keys: Set(books.map(\.authorID))).fetchAll(db).compactMap(\.id))
        guard let orphan = books.first(where: { !known.contains($0.authorID) }) else {
            return "an author of the import does not exist"
        }
        return "no author with id \(orphan.authorID)"
    }
}
