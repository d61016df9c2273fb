// The `fluent` contender: Vapor's Fluent (fluent-kit 1.57, fluent-sqlite-driver
// 4.9) with class models and property wrappers, used the way its documentation
// shows, through its async API. The `fluent-postgres` contender of the
// PostgreSQL mode (fluent-postgres-driver 2.14) shares the models and the work.
//
// Fluent is asynchronous: the harness is synchronous, so each timed run
// blocks its thread on a Task (`blocking`, PostgresMode.swift) that does the
// whole workload. The NIOThreadPool (where sqlite-nio runs every libsqlite3
// call), the EventLoopGroup, the Databases and the one pooled connection are
// made, and the connection opened, before the timed region; they are shut
// down after it.
//
// Where Fluent cannot do exactly what the others do, the closest thing it
// offers (Benchmarks/README.md, "The fluent contenders"):
// - workload 5 writes the 10 columns of the others: Fluent's `update(on:)`
//   sends the fields assigned since the model was read, so the model is made
//   as Fluent makes one it has read (its id given as database output, which
//   keeps the id out of the SET list) and then every field is assigned.
// - workload 8: Fluent has no cursor; `all { row in }` hands over each model
//   as the driver reads it (`chunk(max:)` is built on it).
// - workload 9: `[FItem].create(on:)` is one multi-row INSERT per call, in
//   calls of `bulkRowsPerStatement` models; it does not write database-made
//   ids back into the models, so the checksum of ids reads
//   `last_insert_rowid()` after each call (raw reads the same after each
//   statement).

import Dispatch
import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import NIOCore
import NIOPosix
import QuarryPostgres

// MARK: Models

final class FCategory: Model, @unchecked Sendable {
    static let schema = "category"

    @ID(custom: "id", generatedBy: .user) var id: Int64?
    @Field(key: "name") var name: String

    init() {}
}

final class FItem: Model, @unchecked Sendable {
    static let schema = "item"

    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Field(key: "i1") var i1: Int
    @Field(key: "i2") var i2: Int
    @Field(key: "i3") var i3: Int
    @Field(key: "d1") var d1: Double
    @Field(key: "d2") var d2: Double
    @Field(key: "s1") var s1: String
    @Field(key: "s2") var s2: String
    @Field(key: "s3") var s3: String
    @Field(key: "b1") var b1: Bool
    /// Column category_id: the parent's id is its `@Field` (`$category.id`).
    @Parent(key: "category_id") var category: FCategory

    init() {}

    /// A new item with the values of row `k`, for `create(on:)`.
    convenience init(_ k: Int) {
        self.init()
        assign(k)
    }

    /// Assigns every column but the id the values of row `k`.
    func assign(_ k: Int) {
        i1 = ItemData.i1(k); i2 = ItemData.i2(k); i3 = ItemData.i3(k)
        d1 = ItemData.d1(k); d2 = ItemData.d2(k)
        s1 = ItemData.s1(k); s2 = ItemData.s2(k); s3 = ItemData.s3(k)
        b1 = ItemData.b1(k); $category.id = ItemData.categoryID(k)
    }

    /// Item `id` as Fluent holds one it has read, with nothing assigned
    /// yet: `update(on:)` then sends exactly the fields assigned afterwards.
    static func existing(id: Int64) throws -> FItem {
        let item = FItem()
        try item.$id.output(from: IDOutput(id: id))
        return item
    }

    var checksum: Int64 { Int64(i2) &+ Int64(d1) &+ Int64(s1.utf8.count) &+ (b1 ? 1 : 0) &+ $category.id }
}

/// A database output holding only an id column: what Fluent decodes a
/// model's id from after reading its row.
private struct IDOutput: DatabaseOutput {
    let id: Int64

    func schema(_ schema: String) -> any DatabaseOutput { self }
    func contains(_ key: FieldKey) -> Bool { key == .id }
    func decodeNil(_ key: FieldKey) throws -> Bool { false }
    func decode<T: Decodable>(_ key: FieldKey, as type: T.Type) throws -> T {
        guard key == .id, let id = id as? T else { throw BenchError("IDOutput: no \(key) as \(T.self)") }
        return id
    }
    var description: String { "id: \(id)" }
}

/// What a streamed read adds up on the driver's thread: the sum, or the first error.
private final class StreamSum: @unchecked Sendable {
    private let lock = NSLock()
    private var sum: Int64 = 0
    private var error: (any Error)?

    func add(_ result: Result<FItem, any Error>) {
        lock.withLock {
            switch result {
            case .success(let item): sum &+= Int64(item.i2)
            case .failure(let failure): if error == nil { error = failure }
            }
        }
    }

    func get() throws -> Int64 {
        try lock.withLock {
            if let error { throw error }
            return sum
        }
    }
}

// MARK: The work, shared by the SQLite and PostgreSQL modes

/// The Fluent side of every workload, on a database handle of either driver.
enum FItemWork {
    static func insertEach(_ db: any Database, count: Int) async throws -> Int64 {
        var checksum: Int64 = 0
        for k in 1...count {
            let item = FItem(k)
            try await item.create(on: db)
            checksum &+= item.id ?? 0
        }
        return checksum
    }

    /// Workload 9 (SQLite): multi-row inserts of `bulkRowsPerStatement` models.
    static func insertAll(_ db: any Database, count: Int) async throws -> Int64 {
        guard let sql = db as? any SQLDatabase else { throw BenchError("fluent: not an SQL database") }
        var checksum: Int64 = 0
        var k = 1
        while k <= count {
            let rows = min(bulkRowsPerStatement, count - k + 1)
            let items = (k..<(k + rows)).map { FItem($0) }
            try await items.create(on: db)
            guard let row = try await sql.raw("SELECT last_insert_rowid() AS id").first() else {
                throw BenchError("fluent: no last_insert_rowid()")
            }
            let last = try row.decode(column: "id", as: Int64.self)
            for id in (last - Int64(rows) + 1)...last { checksum &+= id }
            k += rows
        }
        return checksum
    }

    static func fetchAll(_ db: any Database) async throws -> Int64 {
        try await FItem.query(on: db).all().reduce(0) { $0 &+ $1.checksum }
    }

    static func fetchByKey(_ db: any Database, _ keys: [Int64]) async throws -> Int64 {
        var items: [FItem] = []
        for key in keys { if let item = try await FItem.find(key, on: db) { items.append(item) } }
        return items.reduce(0) { $0 &+ $1.checksum }
    }

    static func filterOrderLimit(_ db: any Database, _ sizes: Sizes) async throws -> Int64 {
        var total: Int64 = 0
        for query in 0..<sizes.filterQueries {
            let x = (query &* sizes.filterStep) % 990
            let items = try await FItem.query(on: db).filter(\.$i1 > x).sort(\.$d1).limit(100).all()
            total &+= items.reduce(0) { $0 &+ $1.checksum }
        }
        return total
    }

    /// Every column but the id written, as the others' full-record updates.
    static func updateAll(_ db: any Database, count: Int) async throws -> Int64 {
        for k in 1...count {
            let item = try FItem.existing(id: Int64(k))
            item.assign(k)
            item.i3 += 1
            try await item.update(on: db)
        }
        return Int64(count)
    }

    /// One DELETE by key each, without reading the row first (as the others).
    static func delete(_ db: any Database, count: Int) async throws -> Int64 {
        for k in stride(from: 1, through: count, by: 2) {
            try await FItem.query(on: db).filter(\.$id == Int64(k)).delete()
        }
        return Int64(count / 2)
    }

    static func eagerLoad(_ db: any Database) async throws -> Int64 {
        try await FItem.query(on: db).with(\.$category).all().reduce(0) {
            $0 &+ Int64($1.i2) &+ ($1.category.id ?? 0) &+ Int64($1.category.name.utf8.count)
        }
    }

    static func stream(_ db: any Database) async throws -> Int64 {
        let sum = StreamSum()
        try await FItem.query(on: db).all { sum.add($0) }
        return try sum.get()
    }
}

// MARK: Set-up

/// What Fluent needs outside Vapor: a thread pool, event loops, Databases.
final class FluentSession: Sendable {
    let threadPool: NIOThreadPool
    let group: MultiThreadedEventLoopGroup
    let databases: Databases
    /// The harness's other contenders log nothing: neither does Fluent.
    let logger = Logger(label: "quarry-bench.fluent", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `threads` event loops, and as many threads in the pool.
    init(threads: Int) {
        threadPool = NIOThreadPool(numberOfThreads: threads)
        threadPool.start()
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        databases = Databases(threadPool: threadPool, on: group)
    }

    /// The default database, on `eventLoop` (each event loop has a pool of one connection).
    func database(on eventLoop: any EventLoop) throws -> any Database {
        guard let db = databases.database(logger: logger, on: eventLoop) else { throw BenchError("fluent: no database") }
        return db
    }

    /// Runs `sql`, statement by statement, through SQLKit.
    static func execute(_ db: any Database, _ sql: String) async throws {
        guard let sqlDatabase = db as? any SQLDatabase else { throw BenchError("fluent: not an SQL database") }
        for statement in sql.split(separator: ";") {
            let text = statement.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { try await sqlDatabase.raw(SQLQueryString(text)).run() }
        }
    }

    func close() {
        databases.shutdown()
        try? group.syncShutdownGracefully()
        try? threadPool.syncShutdownGracefully()
    }
}

// MARK: SQLite

struct FluentContender: Contender {
    let name = "fluent"

    /// A session on the file at `path`, the pragmas of the others run on
    /// the connection of each of `eventLoops` event loops (which opens it).
    func open(path: String, pragmas: String, eventLoops: Int) throws -> (FluentSession, [any Database]) {
        let session = FluentSession(threads: eventLoops)
        do {
            session.databases.use(.sqlite(.file(path)), as: .sqlite)
            let databases = try session.group.makeIterator().map { try session.database(on: $0) }
            for db in databases { try blocking { try await FluentSession.execute(db, pragmas) } }
            return (session, databases)
        } catch {
            session.close()
            throw error
        }
    }

    func prepare(_ workload: Workload, path: String, sizes: Sizes) throws -> PreparedRun {
        let (session, databases) = try open(path: path, pragmas: sizes.connectionPragmas, eventLoops: 1)
        let db = databases[0]
        // Every workload in one transaction, as the others' write { } and read { }.
        let work: @Sendable (any Database) async throws -> Int64
        switch workload {
        case .insert: work = { try await FItemWork.insertEach($0, count: sizes.insert) }
        case .insertAll: work = { try await FItemWork.insertAll($0, count: sizes.insert) }
        case .fetchAll: work = { try await FItemWork.fetchAll($0) }
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            work = { try await FItemWork.fetchByKey($0, keys) }
        case .filterOrderLimit: work = { try await FItemWork.filterOrderLimit($0, sizes) }
        case .update: work = { try await FItemWork.updateAll($0, count: sizes.update) }
        case .delete: work = { try await FItemWork.delete($0, count: sizes.delete) }
        case .eagerLoad: work = { try await FItemWork.eagerLoad($0) }
        case .cursor: work = { try await FItemWork.stream($0) }
        }
        return PreparedRun(
            run: { try blocking { try await db.transaction { try await work($0) } } },
            close: { session.close() })
    }

    /// One event loop per reader, each with its connection (Fluent's SQLite
    /// pool has one per event loop), and as many threads for sqlite-nio.
    func prepareConcurrentReads(path: String, plan: ReadPlan) throws -> ConcurrentReads {
        let (session, databases) = try open(
            path: path, pragmas: pragmas(cacheSizeKiB: plan.cacheSizeKiB), eventLoops: plan.readers)
        return ConcurrentReads(
            warmUp: { reader, arrived in
                // Waiting for the others inside Fluent's transaction would
                // block a thread of Swift's concurrency pool (as many as
                // cores), and deadlock with more readers than cores: the
                // reader reads once in a transaction, which opens its
                // connection, then waits for the others.
                let db = databases[reader]
                _ = try blocking {
                    try await db.transaction { try await FItem.find(plan.key(reader: reader, batch: 0, fetch: 0), on: $0)?.checksum }
                }
                arrived()
            },
            run: { reader in
                let db = databases[reader]
                var checksum: Int64 = 0
                for batch in 0..<plan.batches {
                    checksum &+= try blocking {
                        try await db.transaction { db in
                            var sum: Int64 = 0
                            for fetch in 0..<plan.batchSize {
                                sum &+= try await FItem.find(plan.key(reader: reader, batch: batch, fetch: fetch), on: db)?.checksum ?? 0
                            }
                            return sum
                        }
                    }
                }
                return checksum
            },
            close: { session.close() })
    }
}

// MARK: PostgreSQL

struct FluentPostgresContender: PostgresContender {
    var name: String { "fluent-postgres" }

    func prepare(
        _ workload: Workload, server: QuarryPostgres.PostgresConfiguration, schema: String, sizes: Sizes
    ) throws -> PostgresPreparedRun {
        // The connection settings of raw-postgresnio and quarry-postgres
        // (UTF8, UTC), and the run's schema as Fluent's search path.
        let configuration = SQLPostgresConfiguration(
            coreConfiguration: try server.postgresNIOConfiguration(), searchPath: [schema])
        let session = FluentSession(threads: 1)
        let db: any Database
        do {
            session.databases.use(
                .postgres(configuration: configuration, encodingContext: .default, decodingContext: .default), as: .psql)
            db = try session.database(on: session.group.next())
            // Opens the pooled connection before the timed region.
            try blocking { try await FluentSession.execute(db, "SELECT 1") }
        } catch {
            session.close()
            throw error
        }
        let write: Bool
        let work: @Sendable (any Database) async throws -> Int64
        switch workload {
        case .insert: (write, work) = (true, { try await FItemWork.insertEach($0, count: sizes.insert) })
        case .fetchAll: (write, work) = (false, { try await FItemWork.fetchAll($0) })
        case .fetchByKey:
            let keys = ItemData.keys(count: sizes.byKey, rows: workload.seedCount(sizes))
            (write, work) = (false, { try await FItemWork.fetchByKey($0, keys) })
        case .filterOrderLimit: (write, work) = (false, { try await FItemWork.filterOrderLimit($0, sizes) })
        case .update: (write, work) = (true, { try await FItemWork.updateAll($0, count: sizes.update) })
        default:
            session.close()
            throw BenchError("--postgres: no workload \(workload.title)")
        }
        return PostgresPreparedRun(
            run: {
                // Timed inside the task, as raw-postgresnio.
                try blocking {
                    try await timed {
                        try await db.transaction { db in
                            // Fluent's transaction is a plain BEGIN: the reads get the
                            // others' read-only snapshot with one more statement.
                            if !write {
                                try await FluentSession.execute(
                                    db, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                            }
                            return try await work(db)
                        }
                    }
                }
            },
            close: { session.close() })
    }
}
