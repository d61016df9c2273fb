// SQLFullTextFunction: a call to an FTS5 auxiliary function (bm25, highlight,
// snippet) as a value, rendered by SQLGenerationContext. Its column arguments
// are names, turned into the column's index in the full-text table when SQL is
// generated, since the functions take indexes
// (https://www.sqlite.org/fts5.html#_auxiliary_functions_).

/// A call to an FTS5 auxiliary function on a full-text table.
package struct SQLFullTextFunction: Sendable {
    /// One argument after the table.
    enum Argument: Sendable {
        /// A bound value.
        case value(DatabaseValue)
        /// The index of a column of the table, bound.
        case column(String)
        /// One bound weight per column, up to the last weighted column, 1.0
        /// for the others (bm25's arguments).
        case weights([String: Double])

        /// Whether rendering the argument needs the table's columns.
        var needsColumns: Bool {
            switch self {
            case .value: return false
            case .column: return true
            case .weights(let weights): return !weights.isEmpty
            }
        }
    }

    /// The function: `bm25`, `highlight`, `snippet`.
    var name: String
    /// The full-text table, whose hidden column is the first argument.
    var table: String
    var arguments: [Argument]
}
