// The `quarry-codable` contender: Codable records and the key-path query
// interface, used the way Quarry's README shows. No hand-tuned SQL.

import CoreMetrics
import Foundation
import Quarry
import Tracing

struct QItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64?
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double
    var s1: String, s2: String, s3: String
    var b1: Bool
    var categoryID: Int64

    enum CodingKeys: String, CodingKey {
        case id, i1, i2, i3, d1, d2, s1, s2, s3, b1, categoryID = "category_id"
    }

    static let category = belongsTo(QCategory.self, using: \.categoryID)

    init(_ k: Int, id: Int64? = nil) {
        self.id = id
        i1 = ItemData.i1(k); i2 = ItemData.i2(k); i3 = ItemData.i3(k)
        d1 = ItemData.d1(k); d2 = ItemData.d2(k)
        s1 = ItemData.s1(k); s2 = ItemData.s2(k); s3 = ItemData.s3(k)
        b1 = ItemData.b1(k); categoryID = ItemData.categoryID(k)
    }

    var checksum: Int64 { Int64(i2) &+ Int64(d1) &+ Int64(s1.utf8.count) &+ (b1 ? 1 : 0) &+ categoryID }
}

struct QCategory: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "category"
    var id: Int64
    var name: String
}

struct QItemWithCategory: Decodable, FetchableRecord {
    var item: QItem
    var category: QCategory
}

struct QuarryContender: Contender {
    var name = "quarry-codable"

    /// Spans and metrics turned on (Configuration.tracer, .metricsFactory):
    enum Instrumentation {
        case off
        /// `quarry-instrumented`: with the backends a service has before it
        /// bootstraps any (NoOpTracer, swift-metrics' NOOP handler): must cost nothing.
        case noBackend
        /// `quarry-traced` (on request only): with backends that take every
        /// span and metric and drop them: what Quarry's own instrumentation
        /// costs, without a real backend's work.
        case discardingBackend
    }

    var instrumentation = Instrumentation.off

    func makeConfiguration(pragmas: String) -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase = { db in try db.execute(sql: pragmas) }
        switch instrumentation {
        case .off: break
        case .noBackend:
            configuration.tracer = NoOpTracer()
            configuration.metricsFactory = NOOPMetricsHandler.instance
        case .discardingBackend:
            configuration.tracer = DiscardingTracer()
            configuration.metricsFactory = DiscardingMetrics()
        }
        return configuration
    }

    func prepare(_ workload: Workload, path: String, sizes: Sizes) throws -> PreparedRun {
        let pool = try DatabasePool(path: path, configuration: makeConfiguration(pragmas: sizes.connectionPragmas))
        let run: () throws -> Int64
        switch workload {
        case .insert:
            run = { try pool.write { db in try QItemWork.insertEach(db, count: sizes.insert) } }
        case .insertAll:
            run = {
                try pool.write { db in
                    let items = (1...sizes.insert).map { QItem($0) }
                    return try QItem.insertAll(db, items).reduce(0) { $0 &+ ($1.id ?? 0) }
                }
            }
        case .fetchAll:
            run = { try pool.read { db in try QItem.fetchAll(db).reduce(0) { $0 &+ $1.checksum } } }
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            run = { try pool.read { db in try QItemWork.fetchByKey(db, keys) } }
        case .filterOrderLimit:
            run = { try pool.read { db in try QItemWork.filterOrderLimit(db, sizes) } }
        case .update:
            run = { try pool.write { db in try QItemWork.updateAll(db, count: sizes.update) } }
        case .delete:
            run = {
                try pool.write { db in
                    for k in stride(from: 1, through: sizes.delete, by: 2) {
                        try QItem.deleteOne(db, key: Int64(k))
                    }
                    return Int64(sizes.delete / 2)
                }
            }
        case .eagerLoad:
            run = {
                try pool.read { db in
                    try QItem.including(required: QItem.category).asRequest(of: QItemWithCategory.self).fetchAll(db)
                        .reduce(0) { $0 &+ Int64($1.item.i2) &+ $1.category.id &+ Int64($1.category.name.utf8.count) }
                }
            }
        case .cursor:
            run = {
                try pool.read { db in
                    var sum: Int64 = 0
                    let cursor = try QItem.fetchCursor(db)
                    while let item = try cursor.next() { sum &+= Int64(item.i2) }
                    return sum
                }
            }
        }
        return PreparedRun(run: run, close: { pool.close() })
    }
}

/// The Quarry side of the workloads that the SQLite and PostgreSQL modes
/// share (`quarry-codable` and `quarry-postgres`), written once.
enum QItemWork {
    /// Inserts records 1 to `count` one by one; the checksum of their ids.
    static func insertEach(_ db: Database, count: Int) throws -> Int64 {
        var checksum: Int64 = 0
        for k in 1...count {
            var item = QItem(k)
            try item.insert(db)
            checksum &+= item.id ?? 0
        }
        return checksum
    }

    /// Fetches each key's record; the checksum of those found.
    static func fetchByKey(_ db: Database, _ keys: [Int64]) throws -> Int64 {
        var items: [QItem] = []
        for key in keys { if let item = try QItem.fetchOne(db, key: key) { items.append(item) } }
        return items.reduce(0) { $0 &+ $1.checksum }
    }

    /// The filter+order+limit queries; the checksum of their rows.
    static func filterOrderLimit(_ db: Database, _ sizes: Sizes) throws -> Int64 {
        var total: Int64 = 0
        for query in 0..<sizes.filterQueries {
            let x = (query &* sizes.filterStep) % 990
            let items = try QItem.filter(\.i1 > x).order(\.d1).limit(100).fetchAll(db)
            total &+= items.reduce(0) { $0 &+ $1.checksum }
        }
        return total
    }

    /// Updates records 1 to `count` one by one; returns `count`.
    static func updateAll(_ db: Database, count: Int) throws -> Int64 {
        for k in 1...count {
            var item = QItem(k, id: Int64(k))
            item.i3 += 1
            try item.update(db)
        }
        return Int64(count)
    }
}
