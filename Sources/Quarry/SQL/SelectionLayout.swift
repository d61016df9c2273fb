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
    /// The statement index of a column that identifies the joined row (the
    /// primary key of a belongs-to destination), so that rows joined to the
    /// same record decode it once; nil when there is none.
    var identityColumn: Int? = nil
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
        let scopes = try scopes(of: query.joins, parentTable: query.tableName ?? "", db: db, offset: &offset)
        return SelectionLayout(mainColumnCount: mainCount, scopes: scopes)
    }

    private func containsSelectedJoin(_ joins: [SQLJoin]) -> Bool {
        joins.contains { $0.isSelected || containsSelectedJoin($0.joins) }
    }

    private func scopes(of joins: [SQLJoin], parentTable: String, db: Database, offset: inout Int) throws -> [SelectionScope] {
        var result: [SelectionScope] = []
        for join in joins {
            if join.isSelected {
                let columns = try db.columns(in: join.tableName).map { $0.name.asciiLowercased }
                let range = offset..<(offset + columns.count)
                offset += columns.count
                var identityColumn: Int?
                if case .foreignKey(childHoldsForeignKey: false, _) = join.condition, join.joins.isEmpty,
                    let pairs = try? columnPairs(of: join, parentTable: parentTable), pairs.count == 1,
                    let position = columns.firstIndex(of: pairs[0].child.asciiLowercased)
                {
                    // A belongs-to join matches the destination's primary key.
                    identityColumn = range.lowerBound + position
                }
                result.append(SelectionScope(
                    key: join.key, range: range, children: try scopes(of: join.joins, parentTable: join.tableName, db: db, offset: &offset),
                    identityColumn: identityColumn))
            } else {
                // The selected joins of an unselected join belong to the current level.
                result += try scopes(of: join.joins, parentTable: join.tableName, db: db, offset: &offset)
            }
        }
        return result
    }
}
