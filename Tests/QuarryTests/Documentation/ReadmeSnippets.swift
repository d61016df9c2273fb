// The Swift snippets of README.md, compiled and run by ReadmeTests.
// They sit inside a namespace type, so that their type names do not clash
// with other tests'.
//
// Each snippet below is copied verbatim from README.md; ReadmeTests checks that
// every ```swift block of the README (except the Package.swift lines) appears
// here, so a README snippet that stops compiling fails the build.

import Quarry

/// Namespaces the snippets, whose type names (Player) are common in tests.
struct ReadmeSnippets {
    // README: the first screen ("A first look")
    struct Book: Codable, FetchableRecord, PersistableRecord {
        var id: Int64?
        var title: String
        var year: Int
    }

    func openLibrary(path: String) throws -> [Book] {
        let dbQueue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createBook") { db in
            try db.create(table: "book") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("year", .integer).notNull()
            }
        }
        try migrator.migrate(dbQueue)
        try dbQueue.write { db in try Book(id: nil, title: "Dune", year: 1965).insert(db) }
        return try dbQueue.read { db in try Book.filter(\.year < 2000).order(\.title).fetchAll(db) }
        // SELECT * FROM "book" WHERE "year" < ? ORDER BY "title"
    }

    // README: Getting started (records)
    struct Player: Codable, FetchableRecord, PersistableRecord {
        var id: Int64?
        var name: String
        var score: Int
        var teamID: Int64?
    }

    func playerBasics(_ dbQueue: DatabaseQueue) throws -> [Player] {
        try dbQueue.write { db in
            try db.execute(sql: """
                CREATE TABLE player (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, teamID INTEGER)
                """)
            var player = Player(id: nil, name: "Arthur", score: 100, teamID: nil)
            try player.insert(db)                       // player.id is now set
            player.score += 10
            try player.update(db)
            let fresh = try player.updateAndFetch(db)   // UPDATE ... RETURNING *
            print(fresh.score)                          // 110
            var other = Player(id: nil, name: "Barbara", score: 250, teamID: nil)
            try other.insert(db)
        }
        return try dbQueue.read { db in try Player.fetchAll(db) }
    }

    // README: Queries from key paths (insertAll and association aggregates)
    struct Team: Codable, FetchableRecord, PersistableRecord {
        var id: Int64?
        var name: String
        static let players = hasMany(Player.self, using: \.teamID)
    }

    struct TeamInfo: Decodable, FetchableRecord {
        var team: Team
        var playerCount: Int
        var averagePlayerScore: Double?
    }

    func teamReport(_ dbQueue: DatabaseQueue) throws -> [TeamInfo] {
        try dbQueue.write { db in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
            }
            // Multi-row INSERTs; the returned records have their ids.
            let teams = try Team.insertAll(db, [Team(id: nil, name: "Reds"), Team(id: nil, name: "Blues")])
            let players = teams.flatMap { team in
                (1...3).map { Player(id: nil, name: "\(team.name) \($0)", score: $0 * 10, teamID: team.id) }
            }
            try Player.insertAll(db, players)   // INSERT INTO "player" (...) VALUES (?, ?, ?, ?), (?, ?, ?, ?), ...

            return try Team
                .annotated(with: Team.players.count, Team.players.average(\.score))
                .filter(Team.players.count >= 3)
                .order(\.name)
                .asRequest(of: TeamInfo.self)
                .fetchAll(db)
            // SELECT *, (SELECT COUNT(*) FROM "player" "players" WHERE "players"."teamID" = "team"."id") AS "playerCount",
            //   (SELECT AVG("players2"."score") FROM ...) AS "averagePlayerScore" FROM "team" WHERE ... ORDER BY "name"
        }
    }

    // README: Modeling and search
    struct Address: Codable, ColumnGroup {
        var street: String
        var city: String
    }

    struct Customer: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var address: Address            // columns address_street, address_city
    }

    struct CustomerFT: TableRecord, Decodable {   // the full-text table, for ranking
        static let databaseTableName = "customer_ft"
        var name: String
    }

    func customerSearch(_ dbQueue: DatabaseQueue, query: String) throws -> [Customer] {
        try dbQueue.write { db in
            try db.create(table: "customer") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                try t.columns(of: Address.self, inGroup: "address")
            }
            // A full-text index that triggers keep in sync with the table.
            try db.create(virtualTable: "customer_ft", using: FTS5()) { t in
                t.synchronize(withTable: "customer")
                t.tokenizer = .unicode61(diacritics: .remove)
                t.column("name")
            }
            try Customer(id: 1, name: "Zoë Ångström", address: Address(street: "1 Main", city: "Oslo")).insert(db)
            try Customer(id: 2, name: "Zoe Berg", address: Address(street: "2 High", city: "Bergen")).insert(db)

            // Raw user input is never an FTS syntax error; "zoe" matches "Zoë".
            let pattern = FTS5Pattern(matchingAllTokensIn: query)
            return try Customer
                .matching(pattern, in: CustomerFT.self)
                .filter(\.address.city == "Oslo")
                .order(bm25(CustomerFT.self))
                .fetchAll(db)
            // SELECT "customer".* FROM "customer" JOIN "customer_ft" ON "customer_ft"."rowid" = "customer"."id"
            //   WHERE ("customer_ft" MATCH ?) AND ("customer"."address_city" = ?) ORDER BY bm25("customer_ft")
        }
    }

    // README: Queries from key paths
    func queryBasics(_ dbQueue: DatabaseQueue) throws -> (best: [Player], names: [String], count: Int) {
        try dbQueue.write { db in
            let best = try Player
                .filter(\.score >= 100 && \.teamID == nil)
                .order(\.score, .descending)
                .limit(10)
                .fetchAll(db)
            // SELECT * FROM "player" WHERE ("score" >= ?) AND ("teamID" IS NULL) ORDER BY "score" DESC LIMIT ?

            let names: [String] = try Player.select(\.name).order(\.name).fetchAll(db)
            let count = try Player.filter { $0.name.hasPrefix("A") }.fetchCount(db)

            try Player.filter(\.teamID == nil).updateAll(db, \.score += 1)   // UPDATE ... SET "score" = "score" + ?
            try Player.filter(\.score < 0).deleteAll(db)
            return (best, names, count)
        }
    }

    // README: Raw SQL, queues and pools
    func gettingStarted(path: String) async throws -> [String] {
        // A DatabasePool: WAL mode, parallel readers, one writer.
        let dbPool = try DatabasePool(path: path)

        try await dbPool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS player (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    score INTEGER NOT NULL DEFAULT 0)
                """)
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 100])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (:name, :score)",
                           arguments: ["name": "Barbara", "score": 250])
        }

        return try await dbPool.read { db in
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0
            var lines = ["\(count) players"]
            for row in try Row.fetchAll(db, sql: "SELECT name, score FROM player ORDER BY score DESC") {
                let name: String = try row["name"]
                let score: Int = try row["score"]
                lines.append("\(name): \(score)")
            }
            return lines
        }
    }

    // README: Observing changes
    /// The number of players in a team: now, then after each commit that changes it.
    func teamSize(_ dbPool: DatabasePool, teamID: Int64) -> AsyncValueObservation<Int> {
        ValueObservation
            .tracking { db in try Player.filter(\.teamID == teamID).fetchCount(db) }
            .removeDuplicates()
            .values(in: dbPool)
    }
    // for try await size in teamSize(dbPool, teamID: 1) { … }

    // README: Migrations
    /// Opens the database and brings its schema up to date: call it at startup.
    func openDatabase(path: String) async throws -> DatabasePool {
        let dbPool = try DatabasePool(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("createTeam") { db in
            try db.create(table: "team") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().unique()
            }
        }
        migrator.registerMigration("createPlayer") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("score", .integer).notNull().defaults(to: 0)
                t.belongsTo("team", onDelete: .setNull)  // team_id, a foreign key to team(id), indexed
            }
        }
        migrator.registerMigration("addPlayerEmail") { db in
            try db.alter(table: "player") { t in t.add(column: "email", .text) }
        }
        // Applies what the file lacks, each migration once, even when several
        // replicas start together.
        try await migrator.migrate(dbPool)
        return dbPool
    }
}
