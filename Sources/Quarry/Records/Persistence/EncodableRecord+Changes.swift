// Comparing records by what they store: databaseEquals, databaseChanges (as
// in GRDB), and the changed columns that updateChanges writes.

extension EncodableRecord {
    /// Whether this record and `record` store the same values: each column
    /// of this record has an equal value in `record` (`NULL` when `record`
    /// does not store the column).
    ///
    /// ```swift
    /// var player = Player(id: 1, name: "Arthur", score: 100)
    /// let copy = player
    /// player.score = 110
    /// try player.databaseEquals(copy)   // false
    /// ```
    ///
    /// Unlike GRDB's, it throws when either record fails to encode, instead
    /// of answering false.
    public func databaseEquals(_ record: Self) throws -> Bool {
        try changedColumns(from: record).isEmpty
    }

    /// The columns of this record whose values differ from those of
    /// `record`, with `record`'s values (`NULL` for a column it does not
    /// store). Only this record's columns are compared; `record` may be of
    /// another type.
    ///
    /// ```swift
    /// let old = player
    /// player.score = 110
    /// try player.databaseChanges(from: old)   // ["score": 100]
    /// ```
    public func databaseChanges(from record: some EncodableRecord) throws -> [String: DatabaseValue] {
        Dictionary(try changedColumns(from: record).map { ($0.column, $0.old) }, uniquingKeysWith: { _, last in last })
    }

    /// Modifies the record with `modify`, and returns the columns it changed,
    /// with their values before.
    ///
    /// ```swift
    /// let changes = try player.databaseChanges { $0.score = 110 }   // ["score": 100]
    /// ```
    public mutating func databaseChanges(modify: (inout Self) throws -> Void) throws -> [String: DatabaseValue] {
        let old = self
        try modify(&self)
        return try databaseChanges(from: old)
    }

    /// The columns of this record, in its order, whose values differ from
    /// `old`'s, with `old`'s values (`NULL` where `old` has no such column).
    func changedColumns(from old: some EncodableRecord) throws -> [(column: String, old: DatabaseValue)] {
        let new = try PersistenceContainer(self)
        let previous = try PersistenceContainer(old)
        var changes: [(column: String, old: DatabaseValue)] = []
        for (column, value) in zip(new.columns, new.databaseValues) {
            let oldValue = previous.databaseValue(forColumn: column) ?? .null
            if oldValue != value { changes.append((column, oldValue)) }
        }
        return changes
    }
}
