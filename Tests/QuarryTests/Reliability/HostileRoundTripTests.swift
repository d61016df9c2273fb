// Property-based round trips of hostile values (quotes, NUL, emoji, combining
// marks, Int64 and Double edges, far dates, UUIDs, tens of MB) through records,
// raw SQL arguments and the query interface's filters. Values come from a seeded
// generator: set QUARRY_TEST_SEED to replay a failure, QUARRY_LONG_TESTS=1 for more.

import Foundation
import Quarry
import Testing

struct HostileItem: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64?
    var text: String
    var optionalText: String?
    var data: Data
    var integer: Int64
    var real: Double
    var date: Date
    var uuid: UUID
    static let databaseTableName = "hostileItem"

    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("text", .text).notNull()
            t.column("optionalText", .text)
            t.column("data", .blob).notNull()
            t.column("integer", .integer).notNull()
            t.column("real", .double)
            t.column("date", .datetime).notNull()
            t.column("uuid", .blob).notNull()
        }
    }

    static func random(using generator: inout HostileRandom) -> HostileItem {
        HostileItem(
            id: nil, text: generator.nastyString(),
            optionalText: Bool.random(using: &generator) ? nil : generator.nastyString(),
            data: generator.blob(), integer: generator.int64(), real: generator.finiteDouble(),
            date: generator.date(), uuid: generator.uuid())
    }
}

/// The UTF-8 bytes of a string: SQLite compares text byte by byte (the BINARY
/// collation), while Swift's `==` on strings uses canonical equivalence
/// ("é" == "e\u{301}"), so the tests' oracles compare bytes.
func utf8Bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A text's UTF-8 bytes with ASCII letters lowercased, as SQLite's LIKE folds case.
func asciiFolded(_ text: String) -> [UInt8] {
    text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
}

@Suite("Hostile values round trip")
struct HostileRoundTripTests {
    /// Compares two records field by field, with the documented precisions:
    /// text and blobs byte for byte, doubles bit for bit, dates to the millisecond.
    func mismatches(_ stored: HostileItem, _ read: HostileItem) -> [String] {
        var problems: [String] = []
        if utf8Bytes(stored.text) != utf8Bytes(read.text) { problems.append("text \(stored.text.debugDescription) became \(read.text.debugDescription)") }
        if stored.optionalText.map(utf8Bytes) != read.optionalText.map(utf8Bytes) {
            problems.append("optionalText \(String(describing: stored.optionalText)) became \(String(describing: read.optionalText))")
        }
        if stored.data != read.data { problems.append("data \(stored.data as NSData) became \(read.data as NSData)") }
        if stored.integer != read.integer { problems.append("integer \(stored.integer) became \(read.integer)") }
        // -0.0 is compared with ==: see negativeZeroLosesItsSignInARealColumn.
        // Dates: rounded to the millisecond (up to 0.5 ms, plus the Double
        // representation error of the seconds, about 30 µs in year 9999).
        if stored.real != read.real || (stored.real != 0 && stored.real.bitPattern != read.real.bitPattern) {
            problems.append("real \(stored.real) became \(read.real)")
        }
        if DatabaseDateFormat.string(from: stored.date) != DatabaseDateFormat.string(from: read.date)
            || abs(stored.date.timeIntervalSince1970 - read.date.timeIntervalSince1970) > 0.000_6
        {
            problems.append("date \(stored.date.timeIntervalSince1970) became \(read.date.timeIntervalSince1970)")
        }
        if stored.uuid != read.uuid { problems.append("uuid \(stored.uuid) became \(read.uuid)") }
        return problems
    }

    @Test(arguments: WriterKind.allCases)
    func recordsRoundTripGeneratedValues(kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        var generator = HostileRandom.forProperty("records-\(kind.rawValue)")
        try writer.write { db in try HostileItem.createTable(db) }
        var insertedCount = 0
        try writer.write { db in
            try runProperty(300) { iteration in
                var item = HostileItem.random(using: &generator)
                try item.insert(db)
                insertedCount += 1
                let id = try #require(item.id, "no id after insert — \(HostileTestSettings.replay)")
                let read = try #require(try HostileItem.fetchOne(db, key: id), "row \(id) not found — \(HostileTestSettings.replay)")
                let problems = mismatches(item, read)
                #expect(problems.isEmpty, "iteration \(iteration): \(problems) — \(HostileTestSettings.replay)")

                // An update with fresh values round-trips too.
                var changed = HostileItem.random(using: &generator)
                changed.id = id
                try changed.update(db)
                let reread = try #require(try HostileItem.fetchOne(db, key: id))
                let updateProblems = mismatches(changed, reread)
                #expect(updateProblems.isEmpty, "iteration \(iteration) (update): \(updateProblems) — \(HostileTestSettings.replay)")
            }
        }
        let count = try writer.read { db in try HostileItem.fetchCount(db) }
        #expect(count == insertedCount)
    }

    @Test func rawSQLArgumentsArriveByteForByte() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("raw-arguments")
        try dbQueue.read { db in
            try runProperty(300) { iteration in
                let text = generator.nastyString()
                let blob = generator.blob()
                let integer = generator.int64()
                let real = generator.finiteDouble()
                let context = "iteration \(iteration), text \(text.debugDescription) — \(HostileTestSettings.replay)"

                // Positional: the value and what SQLite measured of it.
                let row = try #require(try Row.fetchOne(
                    db, sql: "SELECT ?, length(CAST(? AS BLOB)), typeof(?), ?, ?, ?",
                    arguments: [text, text, text, blob, integer, real]))
                let readText: String = try row[0]
                #expect(utf8Bytes(readText) == utf8Bytes(text), "\(context)")
                #expect(try row[1] as Int == text.utf8.count, "\(context)")
                #expect(try row[2] as String == "text", "\(context)")
                #expect(try row[3] as DatabaseValue == .blob(blob), "\(context)")
                #expect(try row[4] as Int64 == integer, "\(context)")
                #expect((try row[5] as Double).bitPattern == real.bitPattern, "\(context)")

                // Named: the same name twice, and names that look like SQL.
                let named = try #require(try Row.fetchOne(
                    db, sql: "SELECT :value, @value = :value, $other",
                    arguments: ["value": text, "other": integer]))
                #expect(utf8Bytes(try named[0] as String) == utf8Bytes(text), "\(context)")
                #expect(try named[1] as Int == 1, "\(context)")
                #expect(try named[2] as Int64 == integer, "\(context)")
            }
        }
    }

    @Test func equalityFilterFindsExactlyTheRowsWithThoseBytes() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("equality-filter")
        let rowCount = HostileTestSettings.isLong ? 2000 : 200
        let items = try dbQueue.write { db in
            try HostileItem.createTable(db)
            var items: [HostileItem] = []
            for _ in 0..<rowCount {
                var item = HostileItem.random(using: &generator)
                // Some duplicates and canonically-equivalent twins ("é" vs "e\u{301}").
                if let previous = items.randomElement(using: &generator), Int.random(in: 0..<8, using: &generator) == 0 {
                    item.text = previous.text
                }
                try item.insert(db)
                items.append(item)
            }
            var twinA = HostileItem.random(using: &generator)
            twinA.text = "caf\u{E9}"
            try twinA.insert(db)
            var twinB = HostileItem.random(using: &generator)
            twinB.text = "cafe\u{301}"
            try twinB.insert(db)
            return items + [twinA, twinB]
        }
        try dbQueue.read { db in
            try runProperty(200) { iteration in
                let probe = Bool.random(using: &generator)
                    ? (items.randomElement(using: &generator)?.text ?? "")
                    : generator.nastyString()
                let expected = Set(items.filter { utf8Bytes($0.text) == utf8Bytes(probe) }.compactMap(\.id))
                let found = Set(try HostileItem.filter(\.text == probe).fetchAll(db).compactMap(\.id))
                #expect(found == expected, "iteration \(iteration), probe \(probe.debugDescription) — \(HostileTestSettings.replay)")
                let notEqual = try HostileItem.filter(\.text != probe).fetchCount(db)
                #expect(notEqual == items.count - expected.count, "iteration \(iteration) (!=) — \(HostileTestSettings.replay)")
                let inList = Set(try HostileItem.filter([probe, "\u{0}"].contains(\.text)).fetchAll(db).compactMap(\.id))
                let expectedIn = Set(items.filter { utf8Bytes($0.text) == utf8Bytes(probe) || utf8Bytes($0.text) == [0] }.compactMap(\.id))
                #expect(inList == expectedIn, "iteration \(iteration) (IN) — \(HostileTestSettings.replay)")
            }
            // Canonical equivalence is not byte equality: each twin finds itself only.
            #expect(try HostileItem.filter(\.text == "caf\u{E9}").fetchCount(db) == 1)
            #expect(try HostileItem.filter(\.text == "cafe\u{301}").fetchCount(db) == 1)
        }
    }

    /// A random slice of a text, by Unicode scalars (never splitting a scalar).
    func slice(of text: String, using generator: inout HostileRandom) -> (prefix: String, suffix: String, middle: String) {
        let scalars = Array(text.unicodeScalars)
        func string(_ part: ArraySlice<Unicode.Scalar>) -> String {
            var result = ""
            result.unicodeScalars.append(contentsOf: part)
            return result
        }
        let cut = Int.random(in: 0...scalars.count, using: &generator)
        let start = Int.random(in: 0...scalars.count, using: &generator)
        let end = Int.random(in: start...scalars.count, using: &generator)
        return (string(scalars[..<cut]), string(scalars[cut...]), string(scalars[start..<end]))
    }

    @Test func prefixSuffixAndContainsMatchWildcardsLiterally() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("text-matching")
        let rowCount = HostileTestSettings.isLong ? 1000 : 150
        let items = try dbQueue.write { db in
            try HostileItem.createTable(db)
            var items: [HostileItem] = []
            for _ in 0..<rowCount {
                var item = HostileItem.random(using: &generator)
                // NUL is covered by textMatchingWithNULCharacters.
                item.text = generator.nastyString(allowNUL: false)
                try item.insert(db)
                items.append(item)
            }
            return items
        }
        func ids(_ items: [HostileItem]) -> Set<Int64> { Set(items.compactMap(\.id)) }
        try dbQueue.read { db in
            try runProperty(150) { iteration in
                let source = Bool.random(using: &generator)
                    ? (items.randomElement(using: &generator)?.text ?? "")
                    : generator.nastyString(maxPieces: 3, allowNUL: false)
                let (prefix, suffix, middle) = slice(of: source, using: &generator)
                let context = "iteration \(iteration), source \(source.debugDescription) — \(HostileTestSettings.replay)"

                let byPrefix = ids(try HostileItem.filter { $0.text.hasPrefix(prefix) }.fetchAll(db))
                #expect(byPrefix == ids(items.filter { utf8Bytes($0.text).starts(with: utf8Bytes(prefix)) }),
                        "hasPrefix(\(prefix.debugDescription)), \(context)")

                let bySuffix = ids(try HostileItem.filter { $0.text.hasSuffix(suffix) }.fetchAll(db))
                #expect(bySuffix == ids(items.filter { utf8Bytes($0.text).reversed().starts(with: utf8Bytes(suffix).reversed()) }),
                        "hasSuffix(\(suffix.debugDescription)), \(context)")

                let byContains = ids(try HostileItem.filter { $0.text.contains(middle) }.fetchAll(db))
                let middleBytes = utf8Bytes(middle)
                #expect(byContains == ids(items.filter { middleBytes.isEmpty || utf8Bytes($0.text).firstRange(of: middleBytes) != nil }),
                        "contains(\(middle.debugDescription)), \(context)")

                // LIKE with an escape character: `%`, `_` and `\` made literal,
                // then a trailing `%`. LIKE folds the case of ASCII letters only.
                // Scalar by scalar: "\\\u{365}" (a backslash and a combining
                // mark) is one Character, but two scalars for LIKE.
                var pattern = String.UnicodeScalarView()
                for scalar in prefix.unicodeScalars {
                    if scalar == "%" || scalar == "_" || scalar == "\\" { pattern.append("\\") }
                    pattern.append(scalar)
                }
                let byLike = ids(try HostileItem.filter { $0.text.like(String(pattern) + "%", escape: "\\") }.fetchAll(db))
                #expect(byLike == ids(items.filter { asciiFolded($0.text).starts(with: asciiFolded(prefix)) }),
                        "like(\(pattern.debugDescription)), \(context)")
            }
        }
    }

    @Test func textMatchingWithNULCharacters() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var generator = HostileRandom.forProperty("nul")
            for text in ["a\u{0}b", "a", "a\u{0}c", "ab", "\u{0}", "", "x\u{0}"] {
                var item = HostileItem.random(using: &generator)
                item.text = text
                try item.insert(db)
            }
            func texts(_ request: QueryRequest<HostileItem, HostileItem>) throws -> Set<[UInt8]> {
                Set(try request.fetchAll(db).map { utf8Bytes($0.text) })
            }
            // Equality, IN and ordering compare all the bytes, NUL included.
            #expect(try texts(HostileItem.filter(\.text == "a\u{0}b")) == [utf8Bytes("a\u{0}b")])
            #expect(try texts(HostileItem.filter(\.text == "\u{0}")) == [[0]])
            #expect(try texts(HostileItem.filter(["a\u{0}c", "x\u{0}"].contains(\.text))) == [utf8Bytes("a\u{0}c"), utf8Bytes("x\u{0}")])
            let ordered = try HostileItem.order(\.text).fetchAll(db).map { utf8Bytes($0.text) }
            #expect(ordered == ordered.sorted { $0.lexicographicallyPrecedes($1) })
            #expect(ordered.count == 7)
            // Text matching (hasPrefix, hasSuffix, contains) sees every byte too.
            #expect(try texts(HostileItem.filter { $0.text.hasPrefix("a\u{0}") }) == [utf8Bytes("a\u{0}b"), utf8Bytes("a\u{0}c")])
            #expect(try texts(HostileItem.filter { $0.text.hasSuffix("\u{0}b") }) == [utf8Bytes("a\u{0}b")])
            #expect(try texts(HostileItem.filter { $0.text.contains("\u{0}") }) == [utf8Bytes("a\u{0}b"), utf8Bytes("a\u{0}c"), [0], utf8Bytes("x\u{0}")])
            #expect(try texts(HostileItem.filter { $0.text.hasSuffix("b") }) == [utf8Bytes("a\u{0}b"), utf8Bytes("ab")])
            #expect(try texts(HostileItem.filter { $0.text.hasPrefix("ab") }) == [utf8Bytes("ab")])
        }
    }

    /// Documented behavior: text matching compares Unicode scalars, as SQLite
    /// does, not grapheme clusters as `String.hasPrefix` does.
    @Test func textMatchingComparesUnicodeScalarsNotCharacters() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var generator = HostileRandom.forProperty("scalars")
            for text in ["e\u{301}t\u{E9}", "\u{1F1EB}\u{1F1F7}\u{1F1E9}\u{1F1EA}", "👩‍👩‍👧", "[\u{301}]", "*\u{301}?\u{308}"] {
                var item = HostileItem.random(using: &generator)
                item.text = text
                try item.insert(db)
            }
            #expect(!"e\u{301}t\u{E9}".hasPrefix("e"))
            #expect(try HostileItem.filter { $0.text.hasPrefix("e") }.fetchCount(db) == 1)
            #expect(try HostileItem.filter { $0.text.hasSuffix("e\u{301}") }.fetchCount(db) == 0)
            #expect(try HostileItem.filter { $0.text.contains("\u{1F1F7}\u{1F1E9}") }.fetchCount(db) == 1)  // across two flags
            #expect(try HostileItem.filter { $0.text.hasPrefix("👩") }.fetchCount(db) == 1)  // part of a ZWJ family
            #expect(try HostileItem.filter { $0.text.length == 4 }.fetchCount(db) == 3)  // length() counts scalars
            // A GLOB wildcard followed by a combining mark is one Character but
            // two scalars: it is still escaped (it used to stay a wildcard).
            #expect(try HostileItem.filter { $0.text.hasPrefix("[\u{301}") }.fetchCount(db) == 1)
            #expect(try HostileItem.filter { $0.text.hasPrefix("*\u{301}?\u{308}") }.fetchCount(db) == 1)
            #expect(try HostileItem.filter { $0.text.hasPrefix("?\u{301}") }.fetchCount(db) == 0)
        }
    }

    struct HostileNested: Codable, Equatable {
        var text: String
        var list: [String]
        var map: [String: String]
        var number: Double
    }

    struct HostileDocument: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: Int64?
        var nested: HostileNested
        var optionalNested: HostileNested?
        static let databaseTableName = "hostileDocument"
    }

    /// Nested Codable values are stored as JSON text: nasty strings, NUL and
    /// nasty dictionary keys survive the JSON round trip.
    @Test func nestedJSONValuesRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("json")
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE hostileDocument (id INTEGER PRIMARY KEY, nested TEXT NOT NULL, optionalNested TEXT)")
            func nested() -> HostileNested {
                var map: [String: String] = [:]
                for _ in 0..<Int.random(in: 0...4, using: &generator) { map[generator.nastyString(maxPieces: 4)] = generator.nastyString() }
                return HostileNested(
                    text: generator.nastyString(), list: (0..<Int.random(in: 0...4, using: &generator)).map { _ in generator.nastyString() },
                    map: map, number: generator.finiteDouble())
            }
            try runProperty(150) { iteration in
                var document = HostileDocument(id: nil, nested: nested(), optionalNested: Bool.random(using: &generator) ? nil : nested())
                try document.insert(db)
                let read = try #require(try HostileDocument.fetchOne(db, key: document.id))
                // JSON keeps every scalar; Swift's == on the strings is enough
                // here since the bytes are compared below too.
                #expect(read == document, "iteration \(iteration) — \(HostileTestSettings.replay)")
                #expect(utf8Bytes(read.nested.text) == utf8Bytes(document.nested.text), "iteration \(iteration) — \(HostileTestSettings.replay)")
                #expect(read.nested.list.map(utf8Bytes) == document.nested.list.map(utf8Bytes), "iteration \(iteration) — \(HostileTestSettings.replay)")
            }
        }
    }

    @Test func datesRoundTripToTheMillisecondAcrossTheYears() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("dates")
        try dbQueue.read { db in
            try runProperty(300) { iteration in
                let date = generator.date()
                let read = try #require(try Date.fetchOne(db, sql: "SELECT ?", arguments: [date]))
                let milliseconds = (date.timeIntervalSince1970 * 1000).rounded() / 1000
                // Within two units in the last place of the seconds (30 µs in year 9999).
                #expect(abs(read.timeIntervalSince1970 - milliseconds) <= max(0.000_001, 2 * milliseconds.ulp),
                        "iteration \(iteration): \(date.timeIntervalSince1970) read as \(read.timeIntervalSince1970) — \(HostileTestSettings.replay)")
                // Years 0001...9999 sort chronologically as text.
                let other = generator.date()
                let textOrder = try Int.fetchOne(db, sql: "SELECT ? < ?", arguments: [date, other]) == 1
                #expect(textOrder == (DatabaseDateFormat.string(from: date) < DatabaseDateFormat.string(from: other)))
                if abs(date.timeIntervalSince(other)) >= 0.001 {
                    #expect(textOrder == (date < other), "iteration \(iteration) — \(HostileTestSettings.replay)")
                }
            }
        }
        // Far past and future, beyond 0001...9999: written with a sign or more
        // digits, and read back.
        let far: [(Double, String)] = [
            (-62_135_596_800.0, "0001-01-01 00:00:00.000"),
            (-62_167_219_200.0, "0000-01-01 00:00:00.000"),
            (-62_198_755_200.0, "-0001-01-01 00:00:00.000"),
            (-210_866_803_200.0, "-4713-11-24 00:00:00.000"),
            (253_402_300_800.0, "10000-01-01 00:00:00.000"),
            (32_503_680_000_000.5, "1031970-08-14 00:00:00.500"),
            (Date.distantPast.timeIntervalSince1970, "0000-12-30 00:00:00.000"),
            (Date.distantFuture.timeIntervalSince1970, "4001-01-01 00:00:00.000"),
        ]
        for (seconds, text) in far {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(DatabaseDateFormat.string(from: date) == text)
            let read = try dbQueue.read { db in try Date.fetchOne(db, sql: "SELECT ?", arguments: [date]) }
            #expect(read?.timeIntervalSince1970 == seconds, "\(text)")
        }
    }

    @Test func uuidsRoundTripAndFilter() throws {
        let dbQueue = try DatabaseQueue()
        var generator = HostileRandom.forProperty("uuids")
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var uuids: [UUID] = []
            for _ in 0..<50 {
                var item = HostileItem.random(using: &generator)
                try item.insert(db)
                uuids.append(item.uuid)
            }
            for uuid in uuids {
                #expect(try HostileItem.filter(\.uuid == uuid).fetchOne(db)?.uuid == uuid, "\(HostileTestSettings.replay)")
                #expect(try UUID.fetchOne(db, sql: "SELECT ?", arguments: [uuid]) == uuid)
                #expect(try UUID.fetchOne(db, sql: "SELECT ?", arguments: [uuid.uuidString.lowercased()]) == uuid)
            }
        }
    }

    /// One 24 MiB string and one 24 MiB blob, through a record and a filter.
    @Test func veryLongStringAndBlobRoundTrip() throws {
        let dbQueue = try DatabaseQueue()
        let size = 24 << 20
        var generator = HostileRandom.forProperty("long")
        var piece = ""
        while piece.utf8.count < 4096 { piece += generator.nastyString() }
        var text = String(repeating: piece, count: size / piece.utf8.count)
        text += "end'\u{0}😀"
        var bytes = [UInt8](repeating: 0, count: size)
        for index in stride(from: 0, to: size, by: 4093) { bytes[index] = UInt8(truncatingIfNeeded: index) }
        let data = Data(bytes)
        try dbQueue.write { db in
            try HostileItem.createTable(db)
            var item = HostileItem.random(using: &generator)
            item.text = text
            item.data = data
            try item.insert(db)
            let read = try #require(try HostileItem.fetchOne(db, key: item.id))
            #expect(read.text.utf8.count == text.utf8.count)
            #expect(read.text.utf8.elementsEqual(text.utf8))
            #expect(read.data == data)
            #expect(try Int.fetchOne(db, sql: "SELECT length(data) FROM hostileItem") == size)
            #expect(try HostileItem.filter(\.text == text).fetchCount(db) == 1)
            #expect(try HostileItem.filter { $0.text.hasSuffix("end'") }.fetchCount(db) == 0)
        }
    }
}

