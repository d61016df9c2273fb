// SelectionLayout: which columns of a result row belong to the main table and
// which to each table included through an association.

/// The column ranges of a row produced by a request with `including` joins.
struct SelectionLayout: Sendable {
    /// How many leading columns belong to the main table; nil: all of them.
    var mainColumnCount: Int?
    /// The included associations, in column order.
    var scopes: [SelectionScope] = []

    /// The layout of a request without includes.
    static let plain = SelectionLayout(mainColumnCount: nil)
}

/// The columns of one included association, and of the associations it includes.
struct SelectionScope: Sendable {
    var key: String
    var range: Range<Int>
    var children: [SelectionScope]
}

extension SQLGenerationContext {
    /// The layout of the rows of `query`: the main table's columns, then each
    /// selected join's `"alias".*` columns, depth first.
    func selectionLayout(of query: SQLSelectQuery) throws -> SelectionLayout {
        guard containsSelectedJoin(query.joins) else { return .plain }
        guard let db else {
            throw DatabaseError.misuse("the layout of a request with included associations needs a database connection")
        }
        let mainCount: Int
        if let selection = query.selection {
            mainCount = selection.count
        } else if let table = query.tableName {
            mainCount = try SQLSchemaLookup.selectedColumnCount(db, table: table)
        } else {
            throw DatabaseError.misuse("included associations need a request on a table")
        }
        var offset = mainCount
        let scopes = try scopes(of: query.joins, db: db, offset: &offset)
        return SelectionLayout(mainColumnCount: mainCount, scopes: scopes)
    }

    private func containsSelectedJoin(_ joins: [SQLJoin]) -> Bool {
        joins.contains { $0.isSelected || containsSelectedJoin($0.joins) }
    }

    private func scopes(of joins: [SQLJoin], db: Database, offset: inout Int) throws -> [SelectionScope] {
        var result: [SelectionScope] = []
        for join in joins {
            if join.isSelected {
                let count = try SQLSchemaLookup.selectedColumnCount(db, table: join.tableName)
                let range = offset..<(offset + count)
                offset += count
                result.append(SelectionScope(key: join.key, range: range, children: try scopes(of: join.joins, db: db, offset: &offset)))
            } else {
                // The selected joins of an unselected join belong to the current level.
                result += try scopes(of: join.joins, db: db, offset: &offset)
            }
        }
        return result
    }
}
