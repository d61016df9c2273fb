// Association aggregates: `Author.books.count`, `Author.books.average(\.rating)`,
// `Author.books.isEmpty` — what the records an association links to each row
// amount to, as typed expressions usable in `annotated(with:)`, `filter`,
// `having` and `order`.
//
// Each aggregate is a correlated subquery, not a JOIN with GROUP BY as in
// GRDB: two aggregates of two to-many associations then never multiply each
// other's rows (a SUM over a join of books and awards would count each book
// once per award), and the request needs no GROUP BY.

extension Association {
    /// The number of linked records, named `"[key]Count"` in
    /// `annotated(with:)`
    /// (`Author.books.count` → `bookCount`).
    ///
    /// ```swift
    /// Author.annotated(with: Author.books.count)
    /// // SELECT *, (SELECT COUNT(*) FROM "book" "books" WHERE "books"."authorId" = "author"."id") AS "bookCount"
    /// // FROM "author"
    /// Author.filter(Author.books.count >= 2)
    /// // SELECT * FROM "author" WHERE (SELECT COUNT(*) FROM "book" "books" WHERE ...) >= ?
    /// ```
    public var count: QueryExpression<Origin, Int> {
        aggregate(.value(SQLExpression(.countAll)), key: singularKey + "Count")
    }

    /// Whether no record is linked, named `"hasNo[Key]"` (`Author.books.isEmpty` → `hasNoBook`).
    ///
    /// ```swift
    /// Author.having(Author.books.isEmpty)
    /// // SELECT * FROM "author" WHERE NOT EXISTS (SELECT 1 FROM "book" "books" WHERE "books"."authorId" = "author"."id")
    /// ```
    public var isEmpty: QueryExpression<Origin, Bool> {
        aggregate(.isEmpty, key: "hasNo" + singularKey.capitalizingFirstLetter)
    }

    /// The number of distinct non-`NULL` values of a column of the linked
    /// records, named `"[key][Column]DistinctCount"`.
    ///
    /// - parameter keyPath: the column of the destination records.
    public func count<Value>(distinct keyPath: KeyPath<Destination, Value>) -> QueryExpression<Origin, Int>
    where Destination: Decodable {
        aggregate(keyPath, "COUNT", distinct: true) { "\(self.singularKey)\($0)DistinctCount" }
    }

    /// The average of a column of the linked records, or nil when none is
    /// linked: SQL `AVG()`, named `"average[Key][Column]"`
    /// (`Author.books.average(\.rating)` → `averageBookRating`).
    ///
    /// ```swift
    /// Author.annotated(with: Author.books.average(\.rating).forKey("averageRating"))
    /// // SELECT *, (SELECT AVG("books"."rating") FROM "book" "books" WHERE ...) AS "averageRating" FROM "author"
    /// ```
    ///
    /// - parameter keyPath: the column of the destination records.
    public func average<Value>(_ keyPath: KeyPath<Destination, Value>) -> QueryExpression<Origin, Double?>
    where Destination: Decodable {
        aggregate(keyPath, "AVG") { "average\(self.singularKey.capitalizingFirstLetter)\($0)" }
    }

    /// The sum of a column of the linked records, or nil when none is linked:
    /// SQL `SUM()`, named `"[key][Column]Sum"`.
    ///
    /// - parameter keyPath: the column of the destination records.
    public func sum<Value: Numeric>(_ keyPath: KeyPath<Destination, Value>) -> QueryExpression<Origin, Value?>
    where Destination: Decodable {
        aggregate(keyPath, "SUM") { "\(self.singularKey)\($0)Sum" }
    }

    /// The smallest value of a column of the linked records, or nil when none
    /// is linked: SQL `MIN()`, named `"min[Key][Column]"`.
    ///
    /// - parameter keyPath: the column of the destination records.
    public func min<Value>(_ keyPath: KeyPath<Destination, Value>) -> QueryExpression<Origin, Value?>
    where Destination: Decodable {
        aggregate(keyPath, "MIN") { "min\(self.singularKey.capitalizingFirstLetter)\($0)" }
    }

    /// The largest value of a column of the linked records, or nil when none
    /// is linked: SQL `MAX()`, named `"max[Key][Column]"`.
    ///
    /// - parameter keyPath: the column of the destination records.
    public func max<Value>(_ keyPath: KeyPath<Destination, Value>) -> QueryExpression<Origin, Value?>
    where Destination: Decodable {
        aggregate(keyPath, "MAX") { "max\(self.singularKey.capitalizingFirstLetter)\($0)" }
    }

    /// The association key in the singular: `books` → `book`.
    private var singularKey: String { singularized(key) }

    /// `function(column)` of the destination, named by `name(Column)`.
    private func aggregate<Value, Result>(
        _ keyPath: KeyPath<Destination, Value>, _ function: String, distinct: Bool = false, name: (String) -> String
    ) -> QueryExpression<Origin, Result> where Destination: Decodable {
        let column = SQLExpression.column(keyPath)
        let columnName: String
        if case .column(let resolved, _) = column.node { columnName = resolved } else { columnName = "" }
        return aggregate(.value(SQLExpression(.function(function, [column], distinct: distinct))), key: name(columnName.capitalizingFirstLetter))
    }

    private func aggregate<Result>(_ kind: SQLAssociationAggregate.Kind, key: String) -> QueryExpression<Origin, Result> {
        let destination = steps.last?.alias ?? TableAlias()
        let join = aliased(destination).makeJoin(kind: .inner, selected: false)
        return QueryExpression(SQLExpression(.associationAggregate(
            SQLAssociationAggregate(join: join, destination: destination, kind: kind, key: key))))
    }
}

extension QueryRequest {
    /// Selects association aggregates after the request's columns, each
    /// under its default name, for decoding with ``asRequest(of:)`` into a
    /// type that holds the record and the aggregates.
    ///
    /// ```swift
    /// struct AuthorInfo: Decodable, FetchableRecord {
    ///     var author: Author
    ///     var bookCount: Int
    ///     var averageBookRating: Double?
    /// }
    /// let infos = try Author
    ///     .annotated(with: Author.books.count, Author.books.average(\.rating))
    ///     .asRequest(of: AuthorInfo.self)
    ///     .fetchAll(db)
    /// // SELECT *,
    /// //   (SELECT COUNT(*) FROM "book" "books" WHERE "books"."authorId" = "author"."id") AS "bookCount",
    /// //   (SELECT AVG("books"."rating") FROM "book" "books" WHERE "books"."authorId" = "author"."id") AS "averageBookRating"
    /// // FROM "author"
    /// ```
    ///
    /// An expression that is not an association aggregate has no default
    /// name: give it one with ``QueryExpression/forKey(_:)`` and use
    /// `annotated(with:)` with named expressions.
    ///
    /// - parameter aggregates: association aggregates of `Root`.
    public func annotated<each Value>(with aggregates: repeat QueryExpression<Root, each Value>) -> QueryRequest {
        var named: [SQLSelectable] = []
        for aggregate in repeat each aggregates {
            let expression = aggregate.sqlExpression
            guard case .associationAggregate(let association) = expression.node else {
                named.append(SQLSelectable(
                    expression: SQLExpression(.invalid(DatabaseError.misuse(
                        "annotated(with:) needs a name for an expression that is not an association aggregate: use forKey(_:)"))),
                    alias: nil))
                continue
            }
            named.append(SQLSelectable(expression: expression, alias: association.key))
        }
        return annotating(named)
    }

    /// Selects named expressions after the request's columns.
    ///
    /// ```swift
    /// Author.annotated(with: Author.books.average(\.rating).forKey("averageRating"))
    /// // SELECT *, (SELECT AVG("books"."rating") FROM "book" "books" WHERE ...) AS "averageRating" FROM "author"
    /// ```
    ///
    /// - parameter expressions: expressions named with ``QueryExpression/forKey(_:)``.
    public func annotated(with expressions: NamedExpression<Root>...) -> QueryRequest {
        annotating(expressions.map { SQLSelectable(expression: $0.expression, alias: $0.name) })
    }

    fileprivate func annotating(_ selection: [SQLSelectable]) -> QueryRequest {
        modified { query in
            query.selection = (query.selection ?? [SQLSelectable(expression: SQLExpression(.allColumns(.current)), alias: nil)])
                + selection
        }
    }
}

extension TableRecord {
    /// A request for all records, with association aggregates selected after
    /// their columns (see `annotated(with:)`).
    ///
    /// - parameter aggregates: association aggregates of `Self`.
    public static func annotated<each Value>(with aggregates: repeat QueryExpression<Self, each Value>) -> QueryRequest<Self, Self> {
        all().annotated(with: repeat each aggregates)
    }

    /// A request for all records, with named expressions selected after their columns.
    ///
    /// - parameter expressions: expressions named with ``QueryExpression/forKey(_:)``.
    public static func annotated(with expressions: NamedExpression<Self>...) -> QueryRequest<Self, Self> {
        all().annotating(expressions.map { SQLSelectable(expression: $0.expression, alias: $0.name) })
    }

    /// A request for the records that match a condition on their associations
    /// (see ``QueryRequest/having(_:)``).
    ///
    /// - parameter predicate: a condition, usually on association aggregates.
    public static func having(_ predicate: QueryExpression<Self, Bool>) -> QueryRequest<Self, Self> {
        all().having(predicate)
    }
}

/// The singular of an association key: `books` → `book`, `categories` →
/// `category`, `boxes` → `box` (the inverse of `pluralized`).
func singularized(_ name: String) -> String {
    let lower = name.lowercased()
    if lower.hasSuffix("ies"), name.count > 3 { return String(name.dropLast(3)) + "y" }
    if ["ses", "xes", "zes", "ches", "shes"].contains(where: lower.hasSuffix) { return String(name.dropLast(2)) }
    if lower.hasSuffix("s"), !lower.hasSuffix("ss") { return String(name.dropLast()) }
    return name
}

extension String {
    /// The string with its first letter uppercased: `book` → `Book`.
    var capitalizingFirstLetter: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
