// postgres-access: what one short access costs on PostgreSQL, per way of
// reaching the server — the measurement behind QuarryPostgres's choice of
// pool (Benchmarks/README.md, "PostgreSQL: the cost of an access").
//
// Every contender runs the same accesses against the same table: a read-only
// transaction (BEGIN … READ ONLY, one SELECT by primary key, COMMIT), by 1
// caller and by 8 concurrent callers, and the sum of the values read is
// checked equal across contenders:
//
// - `raw-connection`: PostgresNIO's PostgresConnection, one per caller, by hand.
// - `postgres-client`: PostgresNIO's PostgresClient (its own pool, run as a
//   service), `withConnection` per access.
// - `quarry-sync`: PostgresDatabasePool, the synchronous `read { }`, from threads.
// - `quarry-async`: PostgresDatabasePool, `await read { }`, from tasks.
//
//     bash scripts/postgres-server.sh start && eval "$(bash scripts/postgres-server.sh env)"
//     swift run -c release --package-path Benchmarks postgres-access [--accesses N] [--results FILE] [--commit HASH]

import Foundation
import Logging
import PostgresNIO
import Quarry
import QuarryPostgres

@main
struct PostgresAccess {
    static let beginRead: PostgresQuery = "BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    static let rows = 1_000

    /// The key that access `index` of caller `caller` reads.
    static func key(_ caller: Int, _ index: Int) -> Int64 { Int64((caller * 7_919 + index * 31) % rows + 1) }

    static func main() async throws {
        let arguments = CommandLine.arguments
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        let smoke = arguments.contains("--smoke")
        let accesses = Int(option("--accesses") ?? "") ?? (smoke ? 40 : 4_000)
        guard let url = ProcessInfo.processInfo.environment["QUARRY_POSTGRES_URL"], !url.isEmpty else {
            print("postgres-access: skipped, QUARRY_POSTGRES_URL is not set")
            return
        }
        let server = try PostgresConfiguration(url: url)
        let logger = PostgresSession.silentLogger
        let nio = try server.postgresNIOConfiguration()

        // The table, in a schema of its own.
        let schema = "bench_access_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try await PostgresSession.connect(to: server)
        try await admin.execute(sql: "CREATE SCHEMA \(schema)")
        try await admin.execute(sql: "CREATE TABLE \(schema).item (id BIGINT PRIMARY KEY, value BIGINT NOT NULL)")
        try await admin.execute(sql: "INSERT INTO \(schema).item SELECT n, n * 7 FROM generate_series(1, \(rows)) AS n")
        func dropSchema() async {
            _ = try? await admin.execute(sql: "DROP SCHEMA \(schema) CASCADE")
            try? await admin.close()
        }
        do {

            var configuration = Configuration()
            configuration.prepareDatabase = { db in try db.execute(sql: "SET search_path TO \(schema)") }
            let pool = try PostgresDatabasePool(server, maximumConnectionCount: 8, configuration: configuration)
            defer { pool.close() }

            var clientConfiguration = PostgresClient.Configuration(
                host: server.host, port: server.port, username: server.user, password: server.password,
                database: server.database, tls: .disable)
            clientConfiguration.options.maximumConnections = 8
            clientConfiguration.options.additionalStartupParameters = [("search_path", schema), ("TimeZone", "UTC")]
            let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
            let clientTask = Task { await client.run() }
            defer { clientTask.cancel() }

            let rawConnections = try await withThrowingTaskGroup(of: PostgresConnection.self) { group in
                for id in 0..<8 {
                    group.addTask {
                        let connection = try await PostgresConnection.connect(configuration: nio, id: id, logger: logger)
                        try await connection.query("SET search_path TO \(unescaped: schema)", logger: logger)
                        return connection
                    }
                }
                var connections: [PostgresConnection] = []
                for try await connection in group { connections.append(connection) }
                return connections
            }

            typealias Access = @Sendable (_ caller: Int, _ index: Int) async throws -> Int64
            let contenders: [(String, Access)] = [
                ("raw-connection", { caller, index in
                    try await readValue(on: rawConnections[caller], key: key(caller, index), logger: logger)
                }),
                ("postgres-client", { caller, index in
                    try await client.withConnection { connection in
                        try await readValue(on: connection, key: key(caller, index), logger: logger)
                    }
                }),
                ("quarry-async", { caller, index in
                    let id = key(caller, index)
                    return try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM item WHERE id = ?", arguments: [id]) ?? 0 }
                }),
            ]

            print("postgres-access: \(accesses) accesses per caller count (a read transaction with one SELECT by key), PostgreSQL at \(server), \(ProcessInfo.processInfo.activeProcessorCount) cores")
            // `--commit HASH` names the Quarry commit measured in the results file.
            let commit = option("--commit").map { ", Quarry commit \($0)" } ?? ""
            var csv = "# postgres-access run of \(ISO8601DateFormatter().string(from: Date())), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(accesses) accesses\(commit)\ncontender,callers,microseconds_per_access,accesses_per_second\n"
            print("| contender | callers | µs per access | accesses/s |")
            print("|---|---:|---:|---:|")
            for callers in [1, 8] {
                var expected: Int64?
                let perCaller = accesses / callers
                func report(_ name: String, _ sum: Int64, _ nanoseconds: UInt64) throws {
                    if let expected, expected != sum { throw BenchFailure("\(name) read \(sum), others \(expected)") }
                    expected = sum
                    let micro = Double(nanoseconds) / 1_000 / Double(perCaller * callers)
                    let rate = Double(perCaller * callers) / (Double(nanoseconds) / 1e9)
                    print("| \(name) | \(callers) | \(String(format: "%.1f", micro)) | \(String(format: "%.0f", rate)) |")
                    csv += "\(name),\(callers),\(String(format: "%.1f", micro)),\(String(format: "%.0f", rate))\n"
                }
                for (name, access) in contenders {
                    // A warm-up, then the timed round.
                    for round in 0..<2 {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let sum = try await withThrowingTaskGroup(of: Int64.self) { group in
                            for caller in 0..<callers {
                                group.addTask {
                                    var sum: Int64 = 0
                                    for index in 0..<perCaller { sum &+= try await access(caller, index) }
                                    return sum
                                }
                            }
                            var total: Int64 = 0
                            for try await sum in group { total &+= sum }
                            return total
                        }
                        if round == 1 { try report(name, sum, DispatchTime.now().uptimeNanoseconds - start) }
                    }
                }
                // quarry-sync: the synchronous API from threads of their own.
                for round in 0..<2 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let sums = SumBox()
                    let group = DispatchGroup()
                    for caller in 0..<callers {
                        group.enter()
                        Thread {
                            var sum: Int64 = 0
                            do {
                                for index in 0..<perCaller {
                                    let id = key(caller, index)
                                    sum &+= try pool.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM item WHERE id = ?", arguments: [id]) ?? 0 }
                                }
                            } catch {
                                sums.fail("\(error)")
                            }
                            sums.add(sum)
                            group.leave()
                        }.start()
                    }
                    group.wait()
                    if let failure = sums.failure { throw BenchFailure(failure) }
                    if round == 1 { try report("quarry-sync", sums.total, DispatchTime.now().uptimeNanoseconds - start) }
                }
            }
            for connection in rawConnections { try await connection.close() }
            if let path = option("--results") {
                try csv.write(toFile: path, atomically: true, encoding: .utf8)
                print("wrote \(path)")
            }
        } catch {
            await dropSchema()
            throw error
        }
        await dropSchema()
    }
}

/// One access by hand: a read-only transaction with one SELECT by key.
func readValue(on connection: PostgresConnection, key: Int64, logger: Logger) async throws -> Int64 {
    try await connection.query(PostgresAccess.beginRead, logger: logger)
    var value: Int64 = 0
    for try await row in try await connection.query("SELECT value FROM item WHERE id = \(key)", logger: logger) {
        value = try row.decode(Int64.self)
    }
    try await connection.query("COMMIT", logger: logger)
    return value
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class SumBox: @unchecked Sendable {
    private let lock = NSLock()
    private var sum: Int64 = 0
    private var error: String?
    func add(_ value: Int64) { lock.withLock { sum &+= value } }
    func fail(_ message: String) { lock.withLock { error = message } }
    var total: Int64 { lock.withLock { sum } }
    var failure: String? { lock.withLock { error } }
}
