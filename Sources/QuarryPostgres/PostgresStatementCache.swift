// PostgresStatementCache: the named prepared statements of one connection,
// by SQL and parameter types, bounded, least recently used first out.
//
// A statement leaves the cache when it is evicted, when a run of it failed
// for the first time (a preparation that failed is never kept), when the
// server says it is gone (26000) or that its plan no longer fits the table
// (0A000), and all leave when the connection itself changes the schema or
// discards its statements. A name is never used twice: PostgresNIO 1.33 keeps
// every name it prepared on a connection, with its outcome, for the life of
// the connection, so a name that left is "retired", and a connection that
// retired many names is replaced (`mustRetire`) instead of growing without
// bound. The names of statements that may still exist on the server are
// deallocated when an access ends (`takeDeallocations`).

import PostgresNIO
import Quarry
import Synchronization

struct PostgresStatementCache {
    /// What a statement is prepared for: its SQL, and which of its
    /// parameters are blobs (typed `bytea`; the others are inferred).
    struct Key: Hashable {
        var sql: String
        var blobParameters: [Int]

        init(sql: String, arguments: [DatabaseValue]) {
            self.sql = sql
            var blobs: [Int] = []
            for (index, argument) in arguments.enumerated() {
                if case .blob = argument { blobs.append(index) }
            }
            blobParameters = blobs
        }
    }

    private struct Entry {
        var name: String
        var lastUse: UInt64
        /// Whether the last run returned more than `bulkRowCount` rows.
        var isBulk = false
    }

    /// The most rows a run returns for the next run to stay prepared.
    ///
    /// PostgresNIO delivers a prepared statement's rows one async call at a
    /// time, which costs more per row than the unnamed statement's
    /// collected rows; at about 100 rows (a sorted query of 100 rows in
    /// `quarry-bench --postgres`, workload 4) that cost outweighs the
    /// planning it saves, so a query whose last run returned more than 64
    /// rows runs unnamed until a run returns fewer again.
    static let bulkRowCount = 64

    /// The most statements kept; 0 keeps none (every statement is unnamed).
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0
    /// Names that may still exist on the server, to deallocate.
    private var pendingDeallocations: [String] = []
    /// Names that left the cache, which PostgresNIO still keeps.
    private(set) var retiredCount = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { entries.count }

    /// Whether the connection retired so many names that PostgresNIO's own
    /// table of them outgrew its bound: 16 times the capacity, at least 1,024.
    var mustRetire: Bool { retiredCount > max(1_024, capacity * 16) }

    /// The name of the statement of `key`, whether it is new, and whether
    /// its last run returned so many rows that it should run unnamed: an
    /// existing one is marked used; a new one is added, evicting the least
    /// recently used statement when the cache is full.
    mutating func name(for key: Key) -> (name: String, isNew: Bool, isBulk: Bool) {
        clock &+= 1
        if let entry = entries[key] {
            entries[key]?.lastUse = clock
            return (entry.name, false, entry.isBulk)
        }
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
            retire(oldest.value.name, deallocate: true)
        }
        let name = Self.nextName()
        entries[key] = Entry(name: name, lastUse: clock)
        return (name, true, false)
    }

    /// Notes how many rows a run of the statement of `key` returned.
    mutating func noteRun(of key: Key, rowCount: Int) {
        entries[key]?.isBulk = rowCount > Self.bulkRowCount
    }

    /// Removes the statement of `key`; `deallocate` tells whether it may
    /// still exist on the server.
    mutating func remove(_ key: Key, deallocate: Bool) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        retire(entry.name, deallocate: deallocate)
    }

    /// Removes every statement; `deallocate` tells whether they may still
    /// exist on the server.
    mutating func removeAll(deallocate: Bool) {
        for entry in entries.values { retire(entry.name, deallocate: deallocate) }
        entries.removeAll()
    }

    /// The names to deallocate now, and forgets them.
    mutating func takeDeallocations() -> [String] {
        defer { pendingDeallocations.removeAll() }
        return pendingDeallocations
    }

    private mutating func retire(_ name: String, deallocate: Bool) {
        retiredCount += 1
        if deallocate { pendingDeallocations.append(name) }
    }

    private static let counter = Atomic<UInt64>(0)

    /// A name unique in the process, hence on every connection.
    private static func nextName() -> String {
        "quarry_\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
    }
}
