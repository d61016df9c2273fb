// AuthorController: the /authors endpoints (CRUD, list, eager-loaded books,
// bulk delete of an author's books with RETURNING, titles as a JSON aggregate).

import Hummingbird
import Quarry

/// The `/authors` routes.
struct AuthorController: Sendable {
    let database: any DatabaseWriter
    /// Picks the PostgreSQL variant of the queries that differ.
    let backend: DatabaseBackend

    static let sort = SortParameter<Author>(
        fields: ["id": (.asc(\.id), .desc(\.id)), "name": (.asc(\.name), .desc(\.name))],
        tiebreaker: .asc(\.id))

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":id", use: show)
        group.put(":id", use: replace)
        group.delete(":id", use: delete)
        group.delete(":id/books", use: deleteBooks)
        group.get(":id/titles", use: titles)
    }

    /// `POST /authors` → 201 and the stored author.
    @Sendable func create(_ request: Request, context: BookshelfRequestContext) async throws -> EditedResponse<Author> {
        let author = try await request.decodeJSON(AuthorInput.self, context: context).record(id: nil)
        let stored = try await database.write { db in
            var author = author
            return try author.insertAndFetch(db)
        }
        return EditedResponse(status: .created, response: stored)
    }

    /// `GET /authors?name=…&sort=…&page=…&per_page=…`: `name` matches a part of the name.
    @Sendable func list(_ request: Request, context: BookshelfRequestContext) async throws -> Page<Author> {
        let page = try PageRequest(request: request)
        let orderings = try Self.sort.orderings(request.queryString("sort"))
        var filtered = Author.all()
        if let name = request.queryString("name"), !name.isEmpty {
            filtered = filtered.filter(backend.textContains(column: "name", name))
        }
        let query = filtered
        return try await database.read { db in
            let items = try query.order(orderings).limit(page.perPage, offset: page.offset).fetchAll(db)
            return Page(items: items, page: page.page, perPage: page.perPage, total: try query.fetchCount(db))
        }
    }

    /// `GET /authors/:id`, and with `?include=books` the author with all
    /// their books, eager-loaded (`including(all:)`).
    @Sendable func show(_ request: Request, context: BookshelfRequestContext) async throws -> Response {
        let id = try context.pathID()
        switch request.queryString("include") {
        case nil:
            let author = try await database.read { db in try Author.fetchOne(db, key: id) }
            guard let author else { throw APIError.notFound("no author with id \(id)") }
            return try author.response(from: request, context: context)
        case "books":
            let found = try await database.read { db in
                try Author.filter(\.id == id)
                    .including(all: Author.books.order(.asc(\.published), .asc(\.id)))
                    .asRequest(of: AuthorWithBooks.self)
                    .fetchOne(db)
            }
            guard let found else { throw APIError.notFound("no author with id \(id)") }
            return try found.response(from: request, context: context)
        case let other?:
            throw APIError.badRequest("cannot include '\(other)'; the only value is `books`")
        }
    }

    /// `PUT /authors/:id`: replaces the author.
    @Sendable func replace(_ request: Request, context: BookshelfRequestContext) async throws -> Author {
        let id = try context.pathID()
        let author = try await request.decodeJSON(AuthorInput.self, context: context).record(id: id)
        let stored = try await database.write { db -> Author? in
            guard try Author.exists(db, key: id) else { return nil }
            return try author.updateAndFetch(db)
        }
        guard let stored else { throw APIError.notFound("no author with id \(id)") }
        return stored
    }

    /// `DELETE /authors/:id` → 204; 409 while the author has books.
    @Sendable func delete(_ request: Request, context: BookshelfRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.pathID()
        enum Outcome: Sendable { case deleted, missing, hasBooks(Int) }
        let outcome = try await database.write { db -> Outcome in
            guard try Author.exists(db, key: id) else { return .missing }
            let books = try Book.filter(\.authorID == id).fetchCount(db)
            if books > 0 { return .hasBooks(books) }
            try Author.deleteOne(db, key: id)
            return .deleted
        }
        switch outcome {
        case .deleted: return .noContent
        case .missing: throw APIError.notFound("no author with id \(id)")
        case .hasBooks(let count):
            throw APIError.conflict("author \(id) still has \(count) book(s); delete them first (DELETE /authors/\(id)/books)")
        }
    }

    /// `DELETE /authors/:id/books`: deletes all the author's books (and their
    /// reviews, by cascade) and returns the deleted books (`DELETE … RETURNING *`).
    @Sendable func deleteBooks(_ request: Request, context: BookshelfRequestContext) async throws -> BulkBooksResult {
        let id = try context.pathID()
        let deleted = try await database.write { db -> [Book]? in
            guard try Author.exists(db, key: id) else { return nil }
            return try Book.filter(\.authorID == id).order(\.id).deleteAndFetchAll(db)
        }
        guard let deleted else { throw APIError.notFound("no author with id \(id)") }
        let books = deleted.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        return BulkBooksResult(books: books, count: books.count)
    }

    /// `GET /authors/:id/titles`: the author's name and the titles of their
    /// books, sorted, from one query that aggregates the titles with
    /// `json_group_array` (see ``titlesRequest(authorID:)``).
    @Sendable func titles(_ request: Request, context: BookshelfRequestContext) async throws -> AuthorTitles {
        let id = try context.pathID()
        let found = try await database.read { [backend] db in
            switch backend {
            case .sqlite: try Self.titlesRequest(authorID: id).fetchOne(db)
            case .postgres: try AuthorTitles.fetchOne(db, sql: Self.postgreSQLTitlesSQL, arguments: [id])
            }
        }
        guard var found else { throw APIError.notFound("no author with id \(id)") }
        // SQLite does not define the order in which an aggregate sees its rows.
        found.titles.sort()
        return found
    }

    /// The author with the JSON array of their titles:
    ///
    /// ```sql
    /// SELECT "author"."id" AS "author_id", "author"."name" AS "name",
    ///        json_group_array("books"."title") FILTER (WHERE "books"."id" IS NOT NULL) AS "titles"
    /// FROM "author" LEFT JOIN "book" "books" ON "books"."author_id" = "author"."id"
    /// WHERE "author"."id" = ? GROUP BY "author"."id"
    /// ```
    ///
    /// The LEFT JOIN gives an author without books one row of NULL book
    /// columns, which `json_group_array` alone would turn into `[null]`; the
    /// FILTER leaves that row out, so the array is `[]`.
    static func titlesRequest(authorID: Int64) -> QueryRequest<Author, AuthorTitles> {
        let books = TableAlias()
        let titles: QueryExpression<Author, String> = jsonGroupArray(books[\Book.title]).filter(books[\Book.id] != nil)
        return Author
            .filter(\.id == authorID)
            .joining(optional: Author.books.aliased(books))
            .select(named: [QueryExpression(\Author.id).forKey("author_id"), QueryExpression(\Author.name).forKey("name"), titles.forKey("titles")])
            .group(\.id)
            .asRequest(of: AuthorTitles.self)
    }

    /// The PostgreSQL variant of ``titlesRequest(authorID:)``, which has no
    /// `json_group_array`: `json_agg`, and `COALESCE` to `[]` since
    /// `json_agg` of no rows is NULL. One argument, the author's id.
    static let postgreSQLTitlesSQL = """
        SELECT "author"."id" AS "author_id", "author"."name" AS "name",
               COALESCE(json_agg("books"."title") FILTER (WHERE "books"."id" IS NOT NULL), '[]'::json) AS "titles"
        FROM "author" LEFT JOIN "book" "books" ON "books"."author_id" = "author"."id"
        WHERE "author"."id" = ? GROUP BY "author"."id"
        """
}
