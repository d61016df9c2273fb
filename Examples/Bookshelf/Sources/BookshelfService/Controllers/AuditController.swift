// AuditController: GET /audit, the changes of books recorded by the audit
// triggers, newest first.

import Hummingbird
import Quarry

/// The `/audit` route.
struct AuditController: Sendable {
    let database: any DatabaseWriter

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.get(use: list)
    }

    /// `GET /audit?row_id=…&page=…&per_page=…`: the ``AuditEntry`` rows,
    /// newest first, paged like the other lists; `row_id` keeps the changes
    /// of one book.
    @Sendable func list(_ request: Request, context: BookshelfRequestContext) async throws -> Page<AuditEntry> {
        let page = try PageRequest(request: request)
        var filtered = AuditEntry.all()
        if let rowID = try request.queryID("row_id") {
            filtered = filtered.filter(\.rowID == rowID)
        }
        let query = filtered
        return try await database.read { db in
            let items = try query.order(.desc(\.id)).limit(page.perPage, offset: page.offset).fetchAll(db)
            return Page(items: items, page: page.page, perPage: page.perPage, total: try query.fetchCount(db))
        }
    }
}
