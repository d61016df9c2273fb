// Sorting: the `sort` query parameter of list endpoints, mapped to Quarry orderings.

import Quarry

/// Parses `sort=field` / `sort=-field` (descending) into orderings, from a
/// table of the fields a list accepts. The primary key is always added last,
/// so that pages never overlap.
struct SortParameter<Root: Sendable> {
    /// The sortable fields: name in the query → ascending and descending ordering.
    let fields: [String: (asc: QueryOrdering<Root>, desc: QueryOrdering<Root>)]
    /// The tiebreaker (the primary key, ascending).
    let tiebreaker: QueryOrdering<Root>

    /// The orderings for the `sort` value `raw` (nil: the tiebreaker only).
    ///
    /// - throws: ``APIError`` 400 for an unknown field.
    func orderings(_ raw: String?) throws -> [QueryOrdering<Root>] {
        guard let raw, !raw.isEmpty else { return [tiebreaker] }
        let descending = raw.hasPrefix("-")
        let name = descending ? String(raw.dropFirst()) : raw
        guard let field = fields[name] else {
            let known = fields.keys.sorted().joined(separator: ", ")
            throw APIError.badRequest("cannot sort by '\(name)'; use one of: \(known) (prefix - for descending)")
        }
        return [descending ? field.desc : field.asc, tiebreaker]
    }
}
