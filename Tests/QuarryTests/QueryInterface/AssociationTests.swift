// Tests of associations: belongsTo, hasMany, hasOne, hasMany(through:),
// joining and including (required, optional, all), filters and orderings on
// joined tables, aliases, and foreign keys discovered from the schema.

import Foundation
import Quarry
import Testing

struct PlayerWithTeam: Decodable, FetchableRecord, Equatable {
    var player: QPlayer
    var team: QTeam
}

struct PlayerWithOptionalTeam: Decodable, FetchableRecord, Equatable {
    var player: QPlayer
    var team: QTeam?
}

struct TeamWithPlayers: Decodable, FetchableRecord, Equatable {
    var team: QTeam
    var players: [QPlayer]
}

/// A player, its team's name flattened next to the player's columns.
struct PlayerSummary: Decodable, FetchableRecord, Equatable {
    var name: String
    var score: Int
    var team: QTeam?
}

/// A property named after no association of the request.
private struct PlayerWithMisnamedTeam: Decodable, FetchableRecord {
    var player: QPlayer
    var club: QTeam
}

@Suite struct AssociationTests {
    @Test(arguments: Backend.all)
    func aRecordPropertyThatNamesNoAssociationThrowsInsteadOfReadingTheMainColumns(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db throws in
                // It once decoded a QTeam from the player's own columns (id, name).
                let request = QPlayer.including(required: QPlayer.team).asRequest(of: PlayerWithMisnamedTeam.self)
                let error = try #require(throws: RowDecodingError.self) { try request.fetchAll(db) }
                #expect("\(error)".contains("no association is named \"club\" (the row has \"team\")"))
                // Named after the association, it decodes.
                let renamed = QPlayer.including(required: QPlayer.team.forKey("club")).order(\.id).asRequest(of: PlayerWithMisnamedTeam.self)
                #expect(try renamed.fetchAll(db).map(\.club.name) == ["Reds", "Reds", "Blues"])
            }
        }
    }

    @Test(arguments: Backend.all)
    func belongsToJoinsAndIncludes(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db throws in
                let reds = QPlayer.joining(required: QPlayer.team.filter(\.name == "Reds")).order(\.id)
                try expectSQL(
                    reds, db,
                    "SELECT \"player\".* FROM \"player\" JOIN \"team\" ON \"team\".\"id\" = \"player\".\"team_id\" AND (\"team\".\"name\" = ?) ORDER BY \"player\".\"id\"",
                    ["Reds"])
                #expect(try reds.fetchAll(db).map(\.name) == ["Arthur", "Barbara"])

                let included = QPlayer.including(required: QPlayer.team).order(\.id).asRequest(of: PlayerWithTeam.self)
                try expectSQL(
                    included, db,
                    "SELECT \"player\".*, \"team\".* FROM \"player\" JOIN \"team\" ON \"team\".\"id\" = \"player\".\"team_id\" ORDER BY \"player\".\"id\"")
                let infos = try included.fetchAll(db)
                #expect(infos.map(\.player.name) == ["Arthur", "Barbara", "Cheng"])
                #expect(infos.map(\.team.name) == ["Reds", "Reds", "Blues"])

                let optional = try QPlayer.including(optional: QPlayer.team).order(\.id).asRequest(of: PlayerWithOptionalTeam.self).fetchAll(db)
                #expect(optional.map(\.player.name) == ["Arthur", "Barbara", "Cheng", "Dora", "Eve_%"])
                #expect(optional.map { $0.team?.name } == ["Reds", "Reds", "Blues", nil, nil])

                let summaries = try QPlayer.including(optional: QPlayer.team).filter(\.score >= 175).order(\.id)
                    .asRequest(of: PlayerSummary.self).fetchAll(db)
                #expect(summaries == [
                    PlayerSummary(name: "Barbara", score: 250, team: QTeam(id: 1, name: "Reds", color: "red")),
                    PlayerSummary(name: "Cheng", score: 175, team: QTeam(id: 2, name: "Blues", color: nil)),
                ])
                // Including without asRequest still decodes the main record.
                #expect(try QPlayer.including(required: QPlayer.team).order(\.id).fetchAll(db).map(\.name) == ["Arthur", "Barbara", "Cheng"])
            }
        }
    }

    @Test(arguments: Backend.all) func optionalJoinWithAliasFilter(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db throws in
                let team = TableAlias(name: "t")
                let request = QPlayer.joining(optional: QPlayer.team.aliased(team))
                    .filter(team[\QTeam.color] == nil).order(\.id)
                try expectSQL(
                    request, db,
                    "SELECT \"player\".* FROM \"player\" LEFT JOIN \"team\" \"t\" ON \"t\".\"id\" = \"player\".\"team_id\" WHERE \"t\".\"color\" IS NULL ORDER BY \"player\".\"id\"")
                #expect(try request.fetchAll(db).map(\.name) == ["Cheng", "Dora", "Eve_%"])
            }
        }
    }

    @Test(arguments: Backend.all) func hasManyPrefetchRunsOneQueryPerAssociation(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db throws in
                let request = QTeam.including(all: QTeam.players.order(\.name)).order(\.id).asRequest(of: TeamWithPlayers.self)
                var statements: [String] = []
                db.trace { event in
                    if case .statement(let sql) = event, !sql.hasPrefix("PRAGMA"), !sql.contains("pragma_"), !sql.contains("sqlite_master"),
                        !sql.contains("pg_catalog.")
                    {
                        statements.append(sql.replacingOccurrences(of: #"\$[0-9]+"#, with: "?", options: .regularExpression))
                    }
                }
                let teams = try request.fetchAll(db)
                db.trace(nil)
                #expect(teams.map(\.team.name) == ["Reds", "Blues", "Greens"])
                #expect(teams.map { $0.players.map(\.name) } == [["Arthur", "Barbara"], ["Cheng"], []])
                // SQLite receives the parent ids as one JSON array; a server, as an IN list.
                let parentIDs = backend.isPostgreSQL ? "(?, ?, ?)" : "(SELECT \"value\" FROM json_each(?))"
                #expect(statements == [
                    "SELECT * FROM \"team\" ORDER BY \"id\"",
                    "SELECT \"team\".\"id\" AS \"quarry_prefetch_key\", \"players\".* FROM \"team\" JOIN \"player\" \"players\" ON \"players\".\"team_id\" = \"team\".\"id\" WHERE \"team\".\"id\" IN \(parentIDs) ORDER BY \"players\".\"name\"",
                ])
                // Filtered associations prefetch only the matching records.
                let active = try QTeam.including(all: QTeam.players.filter(\.isActive)).order(\.id).asRequest(of: TeamWithPlayers.self).fetchAll(db)
                #expect(active.map { $0.players.map(\.name) } == [["Arthur", "Barbara"], [], []])
                // fetchOne and errors.
                #expect(try request.fetchOne(db)?.players.count == 2)
                #expect(throws: DatabaseError.self) { try QTeam.including(all: QTeam.players).fetchCursor(db) }
            }
        }
    }

    @Test(arguments: Backend.all) func hasOneAndJoinedFilterAndOrdering(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in try makeQueryFixtures(db) }
            try writer.read { db throws in
                let teams = try QTeam.joining(required: QTeam.captain.filter(\.score > 200)).fetchAll(db)
                #expect(teams.map(\.name) == ["Reds"])
                let ordered = QPlayer.including(required: QPlayer.team.order(\.name)).order(\.score)
                try expectSQL(
                    ordered, db,
                    "SELECT \"player\".*, \"team\".* FROM \"player\" JOIN \"team\" ON \"team\".\"id\" = \"player\".\"team_id\" ORDER BY \"player\".\"score\", \"team\".\"name\"")
            }
        }
    }

    @Test(arguments: Backend.all)
    func foreignKeysAreDiscoveredFromTheSchema(_ backend: Backend) throws {
        struct Book: Codable, FetchableRecord, TableRecord {
            var id: Int64
            var title: String
            var authorId: Int64
            static let author = belongsTo(Author.self)
        }
        struct Author: Codable, FetchableRecord, TableRecord {
            var id: Int64
            var name: String
            static let books = hasMany(Book.self)
        }
        struct AuthorWithBooks: Decodable, FetchableRecord {
            var author: Author
            var books: [Book]
        }
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, "authorId" INTEGER REFERENCES author);
                    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');
                    INSERT INTO book VALUES (1, 'A1', 1), (2, 'A2', 1), (3, 'B1', 2);
                    """)
            }
            try writer.read { db throws in
                try expectSQL(
                    Book.joining(required: Book.author.filter(\.name == "Bob")), db,
                    "SELECT \"book\".* FROM \"book\" JOIN \"author\" ON \"author\".\"id\" = \"book\".\"authorId\" AND (\"author\".\"name\" = ?)",
                    ["Bob"])
                #expect(try Book.joining(required: Book.author.filter(\.name == "Bob")).fetchAll(db).map(\.title) == ["B1"])
                let authors = try Author.including(all: Author.books).order(\.id).asRequest(of: AuthorWithBooks.self).fetchAll(db)
                #expect(authors.map { $0.books.map(\.title) } == [["A1", "A2"], ["B1"]])
            }
        }
    }

    @Test(arguments: Backend.all) func missingForeignKeyIsAClearError(_ backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
            }
            struct Loose: Codable, FetchableRecord, TableRecord {
                static let databaseTableName = "player"
                var id: Int64
                static let team = belongsTo(QTeam.self)
            }
            let error = try #require(throws: DatabaseError.self) {
                try writer.read { db in try Loose.joining(required: Loose.team).fetchAll(db) }
            }
            #expect(error.message.contains("no foreign key from player to team in the schema"))
        }
    }

    @Test(arguments: Backend.all)
    func hasManyThroughAndSelfJoin(_ backend: Backend) throws {
        struct Person: Codable, FetchableRecord, TableRecord, Equatable {
            var id: Int64
            var name: String
            var managerId: Int64?
            static let manager = belongsTo(Person.self, key: "manager", using: \.managerId)
            static let memberships = hasMany(Membership.self, using: \.personId)
            static let clubs = hasMany(Club.self, through: memberships, using: Membership.club)
        }
        struct Club: Codable, FetchableRecord, TableRecord, Equatable {
            var id: Int64
            var name: String
        }
        struct Membership: Codable, FetchableRecord, TableRecord {
            var personId: Int64
            var clubId: Int64
            static let club = belongsTo(Club.self, using: \.clubId)
        }
        struct PersonWithManager: Decodable, FetchableRecord {
            var person: Person
            var manager: Person?
        }
        struct PersonWithClubs: Decodable, FetchableRecord {
            var person: Person
            var clubs: [Club]
        }
        try backend.withWriter { writer in
            try writer.write { db in
                try db.execute(sql: """
                    CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, "managerId" INTEGER REFERENCES person(id));
                    CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE membership ("personId" INTEGER REFERENCES person(id), "clubId" INTEGER REFERENCES club(id));
                    INSERT INTO person VALUES (1, 'Boss', NULL), (2, 'Ann', 1), (3, 'Bob', 1);
                    INSERT INTO club VALUES (1, 'Chess'), (2, 'Golf');
                    INSERT INTO membership VALUES (2, 1), (2, 2), (3, 2);
                    """)
            }
            try writer.read { db throws in
                let withManager = Person.including(optional: Person.manager).order(\.id).asRequest(of: PersonWithManager.self)
                try expectSQL(
                    withManager, db,
                    "SELECT \"person\".*, \"manager\".* FROM \"person\" LEFT JOIN \"person\" \"manager\" ON \"manager\".\"id\" = \"person\".\"managerId\" ORDER BY \"person\".\"id\"")
                let people = try withManager.fetchAll(db)
                #expect(people.map(\.person.name) == ["Boss", "Ann", "Bob"])
                #expect(people.map { $0.manager?.name } == [nil, "Boss", "Boss"])

                let golfers = Person.joining(required: Person.clubs.filter(\.name == "Golf")).order(\.id)
                try expectSQL(
                    golfers, db,
                    "SELECT \"person\".* FROM \"person\" JOIN \"membership\" \"memberships\" ON \"memberships\".\"personId\" = \"person\".\"id\" JOIN \"club\" \"clubs\" ON \"clubs\".\"id\" = \"memberships\".\"clubId\" AND (\"clubs\".\"name\" = ?) ORDER BY \"person\".\"id\"",
                    ["Golf"])
                #expect(try golfers.fetchAll(db).map(\.name) == ["Ann", "Bob"])

                let withClubs = try Person.including(all: Person.clubs.order(\.name)).order(\.id).asRequest(of: PersonWithClubs.self).fetchAll(db)
                #expect(withClubs.map { $0.clubs.map(\.name) } == [[], ["Chess", "Golf"], ["Golf"]])
            }
        }
    }
}
