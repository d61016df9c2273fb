// Aggregate shortcuts on requests: fetchCount(distinct:), fetchSum, fetchTotal,
// fetchAverage, fetchMin and fetchMax — one aggregate of the request's rows,
// in one statement. See https://www.sqlite.org/lang_aggfunc.html.

extension QueryRequest where Root: Decodable {
    /// The number of distinct non-`NULL` values of a column among the request's rows.
    ///
    /// ```swift
    /// try Player.all().fetchCount(db, distinct: \.teamID)   // SELECT COUNT(DISTINCT "team_id") FROM "player"
    /// ```
    public func fetchCount<Value>(_ db: Database, distinct keyPath: KeyPath<Root, Value>) throws -> Int {
        try select(count(distinct: keyPath)).fetchOne(db) ?? 0
    }

    /// The sum of a column, or nil when there are no non-`NULL` values: `SUM()`.
    public func fetchSum<Value: Numeric>(_ db: Database, _ keyPath: KeyPath<Root, Value>) throws -> Value? {
        try select(sum(keyPath)).fetchOne(db) ?? nil
    }

    /// The sum of an optional column, or nil when all values are `NULL`: `SUM()`.
    public func fetchSum<Value: Numeric>(_ db: Database, _ keyPath: KeyPath<Root, Value?>) throws -> Value? {
        try select(sum(keyPath)).fetchOne(db) ?? nil
    }

    /// The sum of a column as a real number, 0 when there are no values: `TOTAL()`.
    public func fetchTotal<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value>) throws -> Double {
        try select(total(keyPath)).fetchOne(db) ?? 0
    }

    /// The average of a column, or nil when there are no values: `AVG()`.
    public func fetchAverage<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value>) throws -> Double? {
        try select(average(keyPath)).fetchOne(db) ?? nil
    }

    /// The smallest value of a column, or nil when there are no values: `MIN()`.
    public func fetchMin<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value>) throws -> Value? {
        try select(min(keyPath)).fetchOne(db) ?? nil
    }

    /// The smallest value of an optional column, or nil: `MIN()`.
    public func fetchMin<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value?>) throws -> Value? {
        try select(min(keyPath)).fetchOne(db) ?? nil
    }

    /// The largest value of a column, or nil when there are no values: `MAX()`.
    public func fetchMax<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value>) throws -> Value? {
        try select(max(keyPath)).fetchOne(db) ?? nil
    }

    /// The largest value of an optional column, or nil: `MAX()`.
    public func fetchMax<Value>(_ db: Database, _ keyPath: KeyPath<Root, Value?>) throws -> Value? {
        try select(max(keyPath)).fetchOne(db) ?? nil
    }
}
