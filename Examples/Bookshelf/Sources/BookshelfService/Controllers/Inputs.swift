// The JSON bodies clients send to create or replace records, and their validation.

import Foundation

/// Validation rules shared by the inputs.
enum Validate {
    /// A trimmed, non-empty string of at most `maximumLength` characters.
    static func text(_ value: String, field: String, maximumLength: Int) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIError.unprocessable("`\(field)` must not be empty") }
        guard trimmed.count <= maximumLength else {
            throw APIError.unprocessable("`\(field)` must be at most \(maximumLength) characters")
        }
        return trimmed
    }

    /// An optional string, trimmed; empty becomes nil.
    static func optionalText(_ value: String?, field: String, maximumLength: Int) throws -> String? {
        guard let value, !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return try text(value, field: field, maximumLength: maximumLength)
    }

    /// An integer within `range`.
    static func int(_ value: Int, field: String, in range: ClosedRange<Int>) throws -> Int {
        guard range.contains(value) else {
            throw APIError.unprocessable("`\(field)` must be from \(range.lowerBound) to \(range.upperBound), got \(value)")
        }
        return value
    }

    /// A positive id.
    static func id(_ value: Int64, field: String) throws -> Int64 {
        guard value > 0 else { throw APIError.unprocessable("`\(field)` must be a positive id, got \(value)") }
        return value
    }
}

/// The body of `POST /authors` and `PUT /authors/:id`.
struct AuthorInput: Decodable, Sendable {
    var name: String
    var bio: String?

    /// The validated record, with the given id.
    func record(id: Int64?) throws -> Author {
        Author(
            id: id,
            name: try Validate.text(name, field: "name", maximumLength: 200),
            bio: try Validate.optionalText(bio, field: "bio", maximumLength: 5_000))
    }
}

/// The body of `POST /books` and `PUT /books/:id`.
struct BookInput: Decodable, Sendable {
    var authorID: Int64
    var title: String
    var isbn: String
    var published: Int
    var priceCents: Int

    enum CodingKeys: String, CodingKey {
        case authorID = "author_id", title, isbn, published, priceCents = "price_cents"
    }

    /// The validated record, with the given id.
    func record(id: Int64?) throws -> Book {
        Book(
            id: id,
            authorID: try Validate.id(authorID, field: "author_id"),
            title: try Validate.text(title, field: "title", maximumLength: 500),
            isbn: try Validate.text(isbn, field: "isbn", maximumLength: 32),
            published: try Validate.int(published, field: "published", in: 0...3000),
            priceCents: try Validate.int(priceCents, field: "price_cents", in: 0...100_000_000))
    }
}

/// The body of `POST /books/import`: `{"books": [{…}, …]}`, each book as
/// `POST /books` takes it.
struct BookImportInput: Decodable, Sendable {
    var books: [BookInput]

    /// The validated records, in order; the message of an invalid book starts
    /// with its place (`books[3]: …`).
    ///
    /// - throws: ``APIError`` 422 for no books or an invalid one, 413 for
    ///   more than `maximumCount`.
    func records(maximumCount: Int) throws -> [Book] {
        guard (1...maximumCount).contains(books.count) else {
            let message = "`books` must hold from 1 to \(maximumCount) books, got \(books.count)"
            throw books.isEmpty ? APIError.unprocessable(message) : APIError(.contentTooLarge, message)
        }
        return try books.enumerated().map { index, book in
            do {
                return try book.record(id: nil)
            } catch let error as APIError {
                throw APIError(error.status, "books[\(index)]: \(error.message)")
            }
        }
    }
}

/// The body of `POST /reviews` and `PUT /reviews/:id`.
struct ReviewInput: Decodable, Sendable {
    var bookID: Int64
    var reviewer: String
    var rating: Int
    var comment: String?

    enum CodingKeys: String, CodingKey {
        case bookID = "book_id", reviewer, rating, comment
    }

    /// The validated record, with the given id and creation date (clients
    /// do not send `created_at`: the service sets it).
    func record(id: Int64?, createdAt: Date? = nil) throws -> Review {
        Review(
            id: id,
            bookID: try Validate.id(bookID, field: "book_id"),
            reviewer: try Validate.text(reviewer, field: "reviewer", maximumLength: 200),
            rating: try Validate.int(rating, field: "rating", in: 1...5),
            comment: try Validate.optionalText(comment, field: "comment", maximumLength: 5_000),
            createdAt: createdAt)
    }
}

/// The body of `POST /books/discount`: lower the price of every book of an
/// author by a percentage.
struct DiscountInput: Decodable, Sendable {
    var authorID: Int64
    var percent: Int

    enum CodingKeys: String, CodingKey {
        case authorID = "author_id", percent
    }
}
