// Filtering an enum record by case: `Media.filter(case: Media.book)` is
// `WHERE "kind" = 'book'`, and `Media.filter(case: Media.book, \.pages > 300)`
// adds a condition on the columns of the case's value, named by its key paths.
//
// The case's name is learned by encoding a made-up value of that case
// (EnumRecordColumns.caseName), so that renamed cases (custom CodingKeys) are
// what the discriminator column holds.

extension QueryRequest where Root: TableRecord & EncodableRecord & Encodable & Decodable {
    /// Keeps the rows of one case of an enum record (see <doc:ColumnGroupsAndEnumRecords>).
    ///
    /// ```swift
    /// enum Media: Codable, FetchableRecord, PersistableRecord {
    ///     case book(Book)
    ///     case film(Film)
    /// }
    /// let books = try Media.filter(case: Media.book).fetchAll(db)
    /// // SELECT * FROM "media" WHERE "kind" = ?     -- 'book'
    /// ```
    ///
    /// A case with several associated values works the same way
    /// (`Media.filter(case: Media.podcast)` for `case podcast(id: Int64, title: String)`).
    ///
    /// - Parameter makeCase: The case, as its constructor (`Media.book`).
    @_disfavoredOverload
    public func filter<each Payload: Decodable>(case makeCase: (repeat each Payload) -> Root) -> QueryRequest {
        filter(QueryExpression(EnumRecordColumns.caseCondition(Root.self, makeCase)))
    }

    /// Keeps the rows of one case of an enum record whose value matches
    /// `predicate`, written with the key paths of the case's value.
    ///
    /// ```swift
    /// let longBooks = try Media.filter(case: Media.book, \.pages > 300).fetchAll(db)
    /// // SELECT * FROM "media" WHERE ("kind" = ?) AND ("pages" > ?)
    /// ```
    ///
    /// - Parameters:
    ///   - makeCase: The case, as its constructor (`Media.book`).
    ///   - predicate: A condition on the columns of the case's value.
    public func filter<Payload: Decodable>(
        case makeCase: (Payload) -> Root, _ predicate: QueryExpression<Payload, Bool>
    ) -> QueryRequest {
        filter(case: makeCase).filter(QueryExpression(predicate.sqlExpression))
    }

    /// Keeps the rows of a case without associated values.
    ///
    /// ```swift
    /// let unknown = try Media.filter(case: .unknown).fetchAll(db)   // WHERE "kind" = ?   -- 'unknown'
    /// ```
    ///
    /// - Parameter value: The case.
    @_disfavoredOverload
    public func filter(case value: Root) -> QueryRequest {
        filter(QueryExpression(EnumRecordColumns.caseCondition(value)))
    }
}

extension TableRecord where Self: EncodableRecord & Encodable & Decodable {
    /// A request for the rows of one case of an enum record: see `QueryRequest.filter(case:)`.
    ///
    /// - Parameter makeCase: The case, as its constructor (`Media.book`).
    @_disfavoredOverload
    public static func filter<each Payload: Decodable>(case makeCase: (repeat each Payload) -> Self) -> QueryRequest<Self, Self> {
        all().filter(case: makeCase)
    }

    /// A request for the rows of one case of an enum record whose value
    /// matches `predicate`: see `QueryRequest.filter(case:_:)`.
    ///
    /// - Parameters:
    ///   - makeCase: The case, as its constructor (`Media.book`).
    ///   - predicate: A condition on the columns of the case's value.
    public static func filter<Payload: Decodable>(
        case makeCase: (Payload) -> Self, _ predicate: QueryExpression<Payload, Bool>
    ) -> QueryRequest<Self, Self> {
        all().filter(case: makeCase, predicate)
    }

    /// A request for the rows of a case without associated values.
    ///
    /// - Parameter value: The case.
    @_disfavoredOverload
    public static func filter(case value: Self) -> QueryRequest<Self, Self> {
        all().filter(case: value)
    }
}

extension EnumRecordColumns {
    /// `"kind" = ?` for the case that `makeCase` builds.
    static func caseCondition<Record: TableRecord & EncodableRecord & Encodable, each Payload: Decodable>(
        _ type: Record.Type, _ makeCase: (repeat each Payload) -> Record
    ) -> SQLExpression {
        var lastError: (any Error)?
        for choice in 0..<ProbeValues.choiceCount {
            do {
                let value = makeCase(repeat try ProbeValues.make((each Payload).self, bit: false, choice: choice, depth: 0))
                return caseCondition(value)
            } catch {
                lastError = error
            }
        }
        return SQLExpression(.invalid(DatabaseError.misuse(
            "filter(case:) could not make the associated values of a case of \(Record.self) to learn its name: \(lastError.map { "\($0)" } ?? "")")))
    }

    /// `"kind" = ?` for the case of `value`.
    static func caseCondition<Record: TableRecord & EncodableRecord & Encodable>(_ value: Record) -> SQLExpression {
        let column = Record.databaseColumnEncodingStrategy.columnName(for: Record.databaseDiscriminatorColumn)
        do {
            var container = PersistenceContainer()
            try PersistenceEncoder.encode(value, into: &container, canonicalEnumOrder: false)
            guard isEnumRecord(Record.self), let name = container.databaseValue(forColumn: column) else {
                return SQLExpression(.invalid(DatabaseError.misuse(
                    "filter(case:) needs an enum record with associated values; \(Record.self) wrote no \"\(column)\" column")))
            }
            return SQLExpression(.infix("=", .column(column), .value(name)))
        } catch {
            return SQLExpression(.invalid(error))
        }
    }
}
