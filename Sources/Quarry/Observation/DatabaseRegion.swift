// DatabaseRegion: the tables and columns a fetch read, recorded while it ran,
// so that a value observation re-fetches only after commits that touched them.

/// A set of tables, and of columns in them, of a database.
///
/// Value observation records the region of its fetch automatically (see
/// ``Database/recordingRegion(_:)``): the columns read by every statement the
/// fetch ran, as SQLite's authorizer reported them when it compiled each
/// statement (views and subqueries included, down to their tables).
///
/// ```swift
/// let (players, region) = try db.recordingRegion { try Player.filter(\.score > 10).fetchAll(db) }
/// region.description   // "player(id,name,score)"
/// ```
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
    /// Table name (lowercased) to the columns read, or nil for every column.
    private var tables: [String: Set<String>?]
    private var isFull: Bool

    /// An empty region: no table.
    public init() {
        tables = [:]
        isFull = false
    }

    /// Every table of the database.
    public static var fullDatabase: DatabaseRegion {
        var region = DatabaseRegion()
        region.isFull = true
        return region
    }

    /// The whole of `tableName`: every column.
    public init(table tableName: String) {
        self.init()
        tables[tableName.lowercased()] = .some(nil)
    }

    /// Whether the region contains no table.
    public var isEmpty: Bool { !isFull && tables.isEmpty }

    /// Whether the region is the whole database.
    public var isFullDatabase: Bool { isFull }

    /// The names of the tables in the region, lowercased (empty for the
    /// whole database).
    public var tableNames: Set<String> { Set(tables.keys) }

    /// Adds `column` of `table` to the region; an empty column name adds the
    /// whole table.
    mutating func insert(table: String, column: String) {
        let key = table.lowercased()
        if column.isEmpty {
            tables[key] = .some(nil)
            return
        }
        switch tables[key] {
        case .none: tables[key] = [column.lowercased()]
        case .some(.none): break  // already every column
        case .some(.some(var columns)):
            columns.insert(column.lowercased())
            tables[key] = .some(columns)
        }
    }

    /// Adds every table and column of `other`.
    public mutating func formUnion(_ other: DatabaseRegion) {
        if other.isFull { isFull = true }
        if isFull {
            tables = [:]
            return
        }
        for (table, columns) in other.tables {
            switch (tables[table], columns) {
            case (.none, _): tables[table] = columns
            case (.some(.none), _): break
            case (.some(.some), .none): tables[table] = .some(nil)
            case (.some(.some(let mine)), .some(let theirs)): tables[table] = .some(mine.union(theirs))
            }
        }
    }

    /// The union of this region and `other`.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        var result = self
        result.formUnion(other)
        return result
    }

    /// Whether changes of `kind` may change what the region contains: an
    /// insert or delete in one of its tables, or an update of one of its
    /// columns.
    public func isModified(byEventsOfKind kind: DatabaseEventKind) -> Bool {
        if isFull { return true }
        guard let columns = tables[kind.tableName.lowercased()] else { return false }
        guard case .update(_, let updated) = kind, let columns else { return true }
        return updated.contains { columns.contains($0.lowercased()) }
    }

    /// Whether `event` changed a table of the region (an update event does not
    /// say which columns changed, so any update of the table counts).
    public func isModified(by event: DatabaseEvent) -> Bool {
        isFull || tables[event.tableName.lowercased()] != nil
    }

    /// Whether the region contains `tableName`.
    func contains(tableName: String) -> Bool {
        isFull || tables[tableName.lowercased()] != nil
    }

    /// `player(id,name),team(*)`, sorted; `full database` for the whole database.
    public var description: String {
        if isFull { return "full database" }
        if tables.isEmpty { return "empty" }
        return tables.keys.sorted().map { table in
            guard let columns = tables[table] ?? nil else { return "\(table)(*)" }
            return "\(table)(\(columns.sorted().joined(separator: ",")))"
        }.joined(separator: ",")
    }
}

extension Database {
    /// Runs `fetch` and returns its result with the region of the database it
    /// read: the tables and columns of every statement it ran.
    ///
    /// Value observation uses it to know which commits may change a value.
    /// A statement that was already stepping when `fetch` began (a cursor
    /// opened before) is not part of the region.
    public func recordingRegion<T>(_ fetch: () throws -> T) throws -> (value: T, region: DatabaseRegion) {
        let broker = observationBroker
        let previous = broker.recordedRegion
        broker.recordedRegion = DatabaseRegion()
        updateStatementHooks()
        defer {
            if let previous, let inner = broker.recordedRegion {
                broker.recordedRegion = previous.union(inner)
            } else {
                broker.recordedRegion = previous
            }
            updateStatementHooks()
        }
        let value = try fetch()
        return (value, broker.recordedRegion ?? DatabaseRegion())
    }
}
