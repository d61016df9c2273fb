// The static fetching forms that take a request, in GRDB's spelling:
// `Row.fetchAll(db, request)`, `String.fetchAll(db, request)`,
// `Int.fetchOne(db, request)`, `Player.fetchCursor(db, request)`, `fetchSet`.
// The type the method is called on decides how rows decode, whatever the
// request's own result type: the request is run as it is, re-typed.

extension QueryRequest {
    /// The same request, its rows decoded as `T`: a record, a row, or the
    /// value of the leftmost column (in the formats of the record `Root`).
    func retyped<T>(_ type: T.Type) -> QueryRequest<Root, T> {
        withDecoder(.natural(for: T.self, root: Root.self, tableName: query.tableName))
    }
}

extension SQLRequest {
    /// The same SQL, its rows decoded as `T`.
    func retyped<T>(_ type: T.Type) -> SQLRequest<T> {
        SQLRequest<T>(literal: literal)
    }

    /// The number of rows of the request, counted by the database:
    ///
    /// ```swift
    /// let request: SQLRequest<Player> = "SELECT * FROM player WHERE score > \(10)"
    /// try request.fetchCount(db)
    /// // SELECT COUNT(*) FROM (SELECT * FROM player WHERE score > ?) AS "counted"
    /// ```
    public func fetchCount(_ db: Database) throws -> Int {
        let counting = SQLRequest<Int>(literal: "SELECT COUNT(*) FROM (" + literal + ") AS \"counted\"")
        return try counting.fetchOne(db) ?? 0
    }
}

extension Row {
    /// A cursor over the rows of `request`, whatever its result type:
    /// `Row.fetchCursor(db, Player.filter(\.score > 10))`.
    public static func fetchCursor<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> StatementCursor<Row> {
        try request.retyped(Row.self).fetchCursor(db)
    }

    /// All the rows of `request`, whatever its result type:
    /// `Row.fetchAll(db, Player.filter(\.score > 10))`.
    public static func fetchAll<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> [Row] {
        try request.retyped(Row.self).fetchAll(db)
    }

    /// The first row of `request`, or nil.
    public static func fetchOne<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Row? {
        try request.retyped(Row.self).fetchOne(db)
    }

    /// The distinct rows of `request`.
    public static func fetchSet<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Set<Row> {
        try request.retyped(Row.self).fetchSet(db)
    }

    /// A cursor over the rows of an SQL request: `Row.fetchCursor(db, request)`.
    public static func fetchCursor<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> StatementCursor<Row> {
        try request.retyped(Row.self).fetchCursor(db)
    }

    /// All the rows of an SQL request: `Row.fetchAll(db, request)`.
    public static func fetchAll<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> [Row] {
        try request.retyped(Row.self).fetchAll(db)
    }

    /// The first row of an SQL request, or nil.
    public static func fetchOne<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Row? {
        try request.retyped(Row.self).fetchOne(db)
    }

    /// The distinct rows of an SQL request.
    public static func fetchSet<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Set<Row> {
        try request.retyped(Row.self).fetchSet(db)
    }
}

extension DatabaseValueConvertible {
    /// A cursor over the leftmost column of the rows of `request`:
    /// `String.fetchCursor(db, Player.select(\.name))`.
    public static func fetchCursor<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> StatementCursor<Self> {
        try request.retyped(Self.self).fetchCursor(db)
    }

    /// The leftmost column of the rows of `request`:
    /// `String.fetchAll(db, Player.select(\.name))`.
    public static func fetchAll<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> [Self] {
        try request.retyped(Self.self).fetchAll(db)
    }

    /// The leftmost column of the first row of `request`, or nil when there
    /// is no row: `Int.fetchOne(db, Player.select(max(\.score)))`.
    public static func fetchOne<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Self? {
        try request.retyped(Self.self).fetchOne(db)
    }

    /// The distinct values of the leftmost column of the rows of `request`.
    public static func fetchSet<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Set<Self>
    where Self: Hashable {
        try request.retyped(Self.self).fetchSet(db)
    }

    /// A cursor over the leftmost column of the rows of an SQL request.
    public static func fetchCursor<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> StatementCursor<Self> {
        try request.retyped(Self.self).fetchCursor(db)
    }

    /// The leftmost column of the rows of an SQL request: `String.fetchAll(db, request)`.
    public static func fetchAll<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> [Self] {
        try request.retyped(Self.self).fetchAll(db)
    }

    /// The leftmost column of the first row of an SQL request, or nil.
    public static func fetchOne<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Self? {
        try request.retyped(Self.self).fetchOne(db)
    }

    /// The distinct values of the leftmost column of the rows of an SQL request.
    public static func fetchSet<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Set<Self> where Self: Hashable {
        try request.retyped(Self.self).fetchSet(db)
    }
}

extension FetchableRecord {
    /// A cursor over the records of `request`, whatever its result type:
    /// `Player.fetchCursor(db, request)`.
    public static func fetchCursor<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> StatementCursor<Self> {
        try request.retyped(Self.self).fetchCursor(db)
    }

    /// The records of `request`, whatever its result type: `Player.fetchAll(db, request)`.
    public static func fetchAll<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> [Self] {
        try request.retyped(Self.self).fetchAll(db)
    }

    /// The first record of `request`, or nil.
    public static func fetchOne<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Self? {
        try request.retyped(Self.self).fetchOne(db)
    }

    /// The distinct records of `request`.
    public static func fetchSet<Root, Result>(_ db: Database, _ request: QueryRequest<Root, Result>) throws -> Set<Self>
    where Self: Hashable {
        try request.retyped(Self.self).fetchSet(db)
    }

    /// A cursor over the records of an SQL request: `Player.fetchCursor(db, request)`.
    public static func fetchCursor<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> StatementCursor<Self> {
        try request.retyped(Self.self).fetchCursor(db)
    }

    /// The records of an SQL request: `Player.fetchAll(db, request)`.
    public static func fetchAll<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> [Self] {
        try request.retyped(Self.self).fetchAll(db)
    }

    /// The first record of an SQL request, or nil.
    public static func fetchOne<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Self? {
        try request.retyped(Self.self).fetchOne(db)
    }

    /// The distinct records of an SQL request.
    public static func fetchSet<Result>(_ db: Database, _ request: SQLRequest<Result>) throws -> Set<Self> where Self: Hashable {
        try request.retyped(Self.self).fetchSet(db)
    }
}
