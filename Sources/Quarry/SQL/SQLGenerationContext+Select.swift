// SQLGenerationContext, the SELECT statement: its clauses (WITH, the
// selection, FROM, joins and their conditions, WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT), compound queries, and the correlated subqueries of
// association aggregates. Expressions, placeholders and table alias names
// are in SQLGenerationContext.swift.

extension SQLGenerationContext {
    /// `"alias".*` for each selected join, depth first, in the order their
    /// columns appear in the result.
    private func selectedColumns(of joins: [SQLJoin]) -> [String] {
        joins.flatMap { join -> [String] in
            let own = join.isSelected ? [register(join.alias, preferred: join.alias.name ?? join.key).quotedDatabaseIdentifier + ".*"] : []
            return own + selectedColumns(of: join.joins)
        }
    }


    // MARK: - SELECT

    /// The SQL of a SELECT statement (or a compound one).
    func selectSQL(_ query: SQLSelectQuery) throws -> String {
        let savedQualifier = currentQualifier
        let savedSource = currentSource
        defer {
            currentQualifier = savedQualifier
            currentSource = savedSource
        }

        var text = try withClauseSQL(query.commonTableExpressions)

        // A bare compound query is written as is, without a wrapping SELECT.
        if case .compound(let op, let members) = query.source, query.isBare {
            return text + (try compoundSQL(op, members))
        }

        let qualify = !query.joins.isEmpty || query.alias != nil
        var mainName: String?
        if case .table(let tableName) = query.source, qualify {
            let alias = query.alias ?? TableAlias()
            mainName = register(alias, preferred: alias.name ?? tableName)
        }
        currentQualifier = mainName
        if let tableName = query.tableName {
            currentSource = (mainName ?? tableName, tableName)
        } else {
            currentSource = nil
        }
        registerAliases(of: query.joins)

        text += query.isDistinct ? "SELECT DISTINCT " : "SELECT "
        var selected: [String] = []
        // On PostgreSQL, the selected expressions of a grouped query, for
        // `positionalSQL(_:selection:)`.
        var groupedSelection: [SelectedExpression] = []
        let positionsGroupedExpressions = !query.groupBy.isEmpty && dialect.features.contains(.groupsBySelectionPosition)
        if let selection = query.selection {
            for item in selection {
                let start = arguments.count
                var entry = try sql(item.expression)
                if positionsGroupedExpressions { groupedSelection.append(SelectedExpression(sql: entry, arguments: arguments[start...])) }
                if let alias = item.alias { entry += " AS " + alias.quotedDatabaseIdentifier }
                selected.append(entry)
            }
        } else {
            selected.append(mainName.map { $0.quotedDatabaseIdentifier + ".*" } ?? "*")
        }
        selected += selectedColumns(of: query.joins)
        text += selected.joined(separator: ", ")
        // The FROM and JOIN clauses come after the selection in the text, so
        // their arguments are generated after the selection's.
        text += " FROM " + (try sourceSQL(query.source, name: mainName))
        let joinTexts = try joinsSQL(query.joins, parentName: mainName ?? query.tableName ?? "", parentTable: query.tableName ?? "")
        text += joinTexts.joins

        if let filter = query.filter {
            text += " WHERE " + (try sql(filter))
        }
        if !query.groupBy.isEmpty {
            text += " GROUP BY " + (try query.groupBy.map { try positionalSQL($0, selection: groupedSelection) }.joined(separator: ", "))
        }
        if let having = query.having {
            text += " HAVING " + (try sql(having))
        }
        var orderings = try query.ordering.map { try orderingSQL($0, selection: groupedSelection) }
        for (qualifier, ordering) in joinTexts.orderings {
            currentQualifier = qualifier
            orderings.append(try orderingSQL(ordering))
        }
        currentQualifier = mainName
        if !orderings.isEmpty {
            text += " ORDER BY " + orderings.joined(separator: ", ")
        }
        if let limit = query.limit {
            text += " LIMIT " + placeholder(.integer(Int64(limit)))
            if let offset = query.offset {
                text += " OFFSET " + placeholder(.integer(Int64(offset)))
            }
        } else if let offset = query.offset {
            // SQLite needs a LIMIT before OFFSET; PostgreSQL refuses a negative one.
            text += dialect.offsetWithoutLimit + placeholder(.integer(Int64(offset)))
        }
        return text
    }

    /// The FROM source: a table (with its alias name), a compound query, a
    /// subquery, or a table-valued function.
    private func sourceSQL(_ source: SQLSource, name: String?) throws -> String {
        switch source {
        case .table(let tableName):
            var text = tableName.quotedDatabaseIdentifier
            if let name, name != tableName { text += " " + name.quotedDatabaseIdentifier }
            return text
        case .compound(let op, let members):
            return "(" + (try compoundSQL(op, members)) + ")" + derivedTableAlias()
        case .subquery(let inner):
            return "(" + (try selectSQL(inner)) + ")" + derivedTableAlias()
        case .tableFunction(let name, let functionArguments):
            return name + "(" + (try functionArguments.map(sql).joined(separator: ", ")) + ")"
        }
    }

    /// On PostgreSQL, ` "name"`: a subquery in FROM must have a name there
    /// (SQLite needs none, and gets none, so that its SQL stays as written).
    private func derivedTableAlias() -> String {
        guard dialect.features.contains(.requiresDerivedTableAlias) else { return "" }
        return " " + register(TableAlias(), preferred: "subquery").quotedDatabaseIdentifier
    }

    /// `WITH [RECURSIVE] name(columns) AS (...), ... ` (with a trailing space),
    /// or an empty string.
    func withClauseSQL(_ commonTableExpressions: [SQLCommonTableExpression]) throws -> String {
        guard !commonTableExpressions.isEmpty else { return "" }
        var text = commonTableExpressions.contains(where: \.isRecursive) ? "WITH RECURSIVE " : "WITH "
        text += try commonTableExpressions.map { cte in
            var entry = cte.name.quotedDatabaseIdentifier
            if let columns = cte.columns {
                entry += "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
            }
            switch cte.body {
            case .query(let cteQuery): return entry + " AS (" + (try selectSQL(cteQuery)) + ")"
            case .literal(let literal): return entry + " AS (" + (try sql(literal)) + ")"
            }
        }.joined(separator: ", ")
        return text + " "
    }

    /// A selected expression: its SQL and the arguments it generated.
    struct SelectedExpression {
        var sql: String
        var arguments: ArraySlice<DatabaseValue>
    }

    /// The SQL of a GROUP BY or ORDER BY expression; or, when it has bound
    /// values and is one of the expressions of `selection` (with the same
    /// values), its position in the selection: `GROUP BY 1`. PostgreSQL
    /// sees two parameters as two expressions, and would refuse
    /// `SELECT to_char("day", $1) … GROUP BY to_char("day", $2)`.
    /// `selection` is empty (and this is `sql(_:)`) but for grouped queries
    /// on PostgreSQL.
    private func positionalSQL(_ expression: SQLExpression, selection: [SelectedExpression]) throws -> String {
        let start = arguments.count
        let text = try sql(expression)
        guard !selection.isEmpty, arguments.count > start else { return text }
        let generated = arguments[start...]
        guard let index = selection.firstIndex(where: { $0.sql == text && $0.arguments == generated }) else { return text }
        removeArguments(from: start)
        return String(index + 1)
    }

    func orderingSQL(_ ordering: SQLOrdering) throws -> String {
        try orderingSQL(ordering, selection: [])
    }

    private func orderingSQL(_ ordering: SQLOrdering, selection: [SelectedExpression]) throws -> String {
        var text = try positionalSQL(ordering.expression, selection: selection)
        if ordering.isDescending { text += " DESC" }
        if let nulls = ordering.nulls { text += " " + nulls.rawValue }
        return text
    }

    private func compoundSQL(_ op: SQLCompoundOperator, _ members: [SQLSelectQuery]) throws -> String {
        try members.map { member in
            // ORDER BY and LIMIT may only end a compound: wrap members that have them.
            if member.ordering.isEmpty && member.limit == nil && member.offset == nil {
                return try selectSQL(member)
            }
            return "SELECT * FROM (" + (try selectSQL(member)) + ")" + derivedTableAlias()
        }.joined(separator: " \(op.rawValue) ")
    }

    /// The JOIN clauses of `joins` (and their nested joins), appending the
    /// selected columns of `including` joins to `selected`.
    private func joinsSQL(
        _ joins: [SQLJoin], parentName: String, parentTable: String
    ) throws -> (joins: String, orderings: [(qualifier: String, ordering: SQLOrdering)]) {
        var text = ""
        var orderings: [(qualifier: String, ordering: SQLOrdering)] = []
        for join in joins {
            let name = register(join.alias, preferred: join.alias.name ?? join.key)
            text += " \(join.kind.rawValue) " + join.tableName.quotedDatabaseIdentifier
            if name != join.tableName { text += " " + name.quotedDatabaseIdentifier }
            let conditions = try joinConditions(join, name: name, parentName: parentName, parentTable: parentTable)
            orderings += join.ordering.map { (name, $0) }
            text += " ON " + conditions.joined(separator: " AND ")
            let nested = try joinsSQL(join.joins, parentName: name, parentTable: join.tableName)
            text += nested.joins
            orderings += nested.orderings
        }
        return (text, orderings)
    }

    /// The correlated subquery of an association aggregate (never inlined:
    /// see `sql(_:)`):
    /// `(SELECT <aggregate> FROM "book" "books" [JOIN ...] WHERE "books"."author_id" = "author"."id" [AND (filter)])`,
    /// or `NOT EXISTS (SELECT 1 FROM ...)`.
    @inline(never)
    func associationAggregateSQL(_ aggregate: SQLAssociationAggregate) throws -> String {
        guard let outer = currentSource else {
            throw DatabaseError.misuse(
                "the aggregate of association \(aggregate.join.key) must be used in a request on the table it starts from")
        }
        let savedQualifier = currentQualifier
        let savedSource = currentSource
        defer {
            currentQualifier = savedQualifier
            currentSource = savedSource
        }
        let join = aggregate.join
        // The outer name stays taken, so that the subquery's alias never hides it.
        usedNames.insert(outer.name.asciiLowercased)
        let name = register(join.alias, preferred: join.alias.name ?? join.key)
        registerAliases(of: join.joins)
        var text: String
        switch aggregate.kind {
        case .value(let expression):
            guard let destination = aliasNames[ObjectIdentifier(aggregate.destination)] else {
                throw DatabaseError.misuse("the aggregate of association \(join.key) has no destination table")
            }
            currentQualifier = destination
            currentSource = nil
            text = "(SELECT " + (try sql(expression))
        case .isEmpty:
            text = "NOT EXISTS (SELECT 1"
        }
        text += " FROM " + join.tableName.quotedDatabaseIdentifier
        if name != join.tableName { text += " " + name.quotedDatabaseIdentifier }
        text += try joinsSQL(join.joins, parentName: name, parentTable: join.tableName).joins
        currentSource = nil
        let conditions = try joinConditions(join, name: name, parentName: outer.name, parentTable: outer.table)
        return text + " WHERE " + conditions.joined(separator: " AND ") + ")"
    }

    // MARK: - Join conditions

    /// The conditions that link the joined table (named `name`) to its
    /// parent: column pairs, or the association's expression, then its filter.
    /// Unqualified columns in them belong to the joined table.
    private func joinConditions(_ join: SQLJoin, name: String, parentName: String, parentTable: String) throws -> [String] {
        var conditions = try columnPairs(of: join, parentTable: parentTable).map { pair in
            name.quotedDatabaseIdentifier + "." + pair.child.quotedDatabaseIdentifier + " = "
                + parentName.quotedDatabaseIdentifier + "." + pair.parent.quotedDatabaseIdentifier
        }
        let savedQualifier = currentQualifier
        defer { currentQualifier = savedQualifier }
        currentQualifier = name
        if case .expression(let condition, let parent, let child) = join.condition {
            // The aliases of the condition name the parent and this join.
            aliasNames[ObjectIdentifier(parent)] = parentName
            aliasNames[ObjectIdentifier(child)] = name
            conditions.append("(" + (try sql(condition)) + ")")
        }
        if let filter = join.filter { conditions.append("(" + (try sql(filter)) + ")") }
        return conditions
    }

    /// The (parent column, child column) pairs that link a joined table to its parent.
    func columnPairs(of join: SQLJoin, parentTable: String) throws -> [(parent: String, child: String)] {
        switch join.condition {
        case .columns(let pairs):
            return pairs
        case .expression:
            return []
        case .invalid(let error):
            throw error
        case .rowid:
            // https://www.sqlite.org/lang_createtable.html#rowid
            guard let db else {
                throw DatabaseError.misuse("generating the SQL of a join on \(join.tableName) needs a database connection")
            }
            return [(parent: try db.primaryKey(parentTable).rowIDColumn ?? "rowid", child: "rowid")]
        case .foreignKey(let childHoldsForeignKey, let foreignKeyColumns):
            guard let db else {
                throw DatabaseError.misuse("generating the SQL of a join on \(join.tableName) needs a database connection")
            }
            return try SQLSchemaLookup.joinColumns(
                db, parentTable: parentTable, childTable: join.tableName,
                childHoldsForeignKey: childHoldsForeignKey, foreignKeyColumns: foreignKeyColumns)
        }
    }
}

extension SQLSelectQuery {
    /// Whether the query only reads its source, with nothing to add around it.
    var isBare: Bool {
        selection == nil && !isDistinct && filter == nil && groupBy.isEmpty && having == nil
            && ordering.isEmpty && limit == nil && offset == nil && joins.isEmpty && alias == nil
    }
}
