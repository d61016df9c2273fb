// Tests of the SQLite date and time functions of the query interface: date(),
// time(), dateTime(), julianDay(), strftime() and unixEpoch(), with
// SQLDateModifier (https://www.sqlite.org/lang_datefunc.html).
//
// Each query's SQL and arguments are pinned, and its result is compared with
// the same query written by hand in SQL, on Chinook (dates stored as text) and
// on a small table read through one record type per date strategy (text,
// ISO 8601, seconds and milliseconds since 1970).

import Foundation
import Quarry
import Testing

// MARK: - One record type per date strategy, all on the table "stamp"

/// Dates stored as "YYYY-MM-DD HH:MM:SS.SSS" text (the default strategy).
private struct TextStamp: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var createdAt: Date
    var note: String?
    /// Not a column: a key path to it names no column.
    var createdTomorrow: Date { createdAt.addingTimeInterval(86_400) }
    static let databaseTableName = "stamp"
}

/// Dates stored as ISO 8601 text: "YYYY-MM-DDTHH:MM:SS.SSSZ".
private struct ISOStamp: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var createdAt: Date
    var note: String?
    static let databaseTableName = "stamp"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.iso8601
}

/// Dates stored as a REAL number of seconds since 1970.
private struct SecondsStamp: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var createdAt: Date
    var note: String?
    static let databaseTableName = "stamp"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.secondsSince1970
}

/// Dates stored as an INTEGER number of milliseconds since 1970.
private struct MillisecondsStamp: Codable, FetchableRecord, PersistableRecord {
    var id: Int64
    var createdAt: Date
    var note: String?
    static let databaseTableName = "stamp"
    static let databaseDateEncodingStrategy = DatabaseDateEncodingStrategy.millisecondsSince1970
    static let databaseDateDecodingStrategy = DatabaseDateDecodingStrategy.millisecondsSince1970
}

/// The same table with its date read as raw text, for invalid dates.
private struct RawStamp: Codable, FetchableRecord, TableRecord {
    var id: Int64
    var createdAt: String?
    var note: String?
    static let databaseTableName = "stamp"
}

/// What each strategy test needs from its record type.
private protocol StampRecord: Codable, FetchableRecord, PersistableRecord {
    init(id: Int64, createdAt: Date, note: String?)
    // Key paths through protocol requirements name no column: each type
    // gives the key paths of its stored properties.
    static var idColumn: KeyPath<Self, Int64> { get }
    static var createdAtColumn: KeyPath<Self, Date> { get }
    static var noteColumn: KeyPath<Self, String?> { get }
    /// The time value SQLite reads for the column, in hand-written SQL.
    static var handTimeValue: String { get }
    /// The arguments Quarry adds after the column: `'unixepoch'` for numbers.
    static var strategyArguments: [String] { get }
    /// The column as Quarry writes it in a function call.
    static var quarryTimeValue: String { get }
}

extension TextStamp: StampRecord {
    static var idColumn: KeyPath<TextStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<TextStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<TextStamp, String?> { \.note }
    static let handTimeValue = "createdAt"
    static let strategyArguments: [String] = []
    static let quarryTimeValue = #""createdAt""#
}

extension ISOStamp: StampRecord {
    static var idColumn: KeyPath<ISOStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<ISOStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<ISOStamp, String?> { \.note }
    static let handTimeValue = "createdAt"
    static let strategyArguments: [String] = []
    static let quarryTimeValue = #""createdAt""#
}

extension SecondsStamp: StampRecord {
    static var idColumn: KeyPath<SecondsStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<SecondsStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<SecondsStamp, String?> { \.note }
    static let handTimeValue = "createdAt, 'unixepoch'"
    static let strategyArguments = ["unixepoch"]
    static let quarryTimeValue = #""createdAt", ?"#
}

extension MillisecondsStamp: StampRecord {
    static var idColumn: KeyPath<MillisecondsStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<MillisecondsStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<MillisecondsStamp, String?> { \.note }
    static let handTimeValue = "createdAt / 1000.0, 'unixepoch'"
    static let strategyArguments = ["unixepoch"]
    static let quarryTimeValue = #""createdAt" / 1000.0, ?"#
}

/// The strategies, as test arguments.
enum DateStrategyCase: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case text, iso8601, seconds, milliseconds
    var testDescription: String { rawValue }
}

/// 2024-02-29 23:59:30.250 UTC: one minute later is another day and month.
private let leapEvening = Date(timeIntervalSince1970: 1_709_251_170.25)
/// 2024-03-10 12:00:00 UTC.
private let marchNoon = Date(timeIntervalSince1970: 1_710_072_000)

@Suite("Date and time functions")
struct DateFunctionTests {
    // MARK: - Chinook: each function, against hand-written SQL


    @Test(arguments: WriterKind.allCases)
    func dateOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(date(\.invoiceDate)).order(\.invoiceId).limit(5)
            try expectSQL(request, db, #"SELECT date("invoiceDate") FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#, [5])
            let expected = try String?.fetchAll(db, sql: "SELECT date(InvoiceDate) FROM Invoice ORDER BY InvoiceId LIMIT 5")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.first == "2021-01-01")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func timeOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(time(\.invoiceDate, .hour(-3), .minute(15))).order(\.invoiceId).limit(3)
            try expectSQL(
                request, db, #"SELECT time("invoiceDate", ?, ?) FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#, ["-3 hours", "15 minutes", 3])
            let expected = try String?.fetchAll(
                db, sql: "SELECT time(InvoiceDate, '-3 hours', '+15 minutes') FROM Invoice ORDER BY InvoiceId LIMIT 3")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == ["21:15:00", "21:15:00", "21:15:00"])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func dateTimeOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(dateTime(\.invoiceDate, .day(-1), .startOfMonth))
                .filter(\.invoiceId <= 3).order(\.invoiceId)
            try expectSQL(
                request, db, #"SELECT datetime("invoiceDate", ?, ?) FROM "Invoice" WHERE "invoiceId" <= ? ORDER BY "invoiceId""#,
                ["-1 days", "start of month", 3])
            let expected = try String?.fetchAll(
                db, sql: "SELECT datetime(InvoiceDate, '-1 days', 'start of month') FROM Invoice WHERE InvoiceId <= 3 ORDER BY InvoiceId")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.first == "2020-12-01 00:00:00")
        }
    }

    @Test(arguments: WriterKind.allCases)
    func julianDayOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            // The invoices up to the day before the 4th of January 2021, latest first.
            let january4 = Date(timeIntervalSince1970: 1_609_718_400)
            let request = Invoice.select(julianDay(\.invoiceDate))
                .filter(julianDay(\.invoiceDate) <= julianDay(january4, .day(-1)))
                .order(.desc(julianDay(\.invoiceDate)), .asc(\.invoiceId))
                .limit(4)
            try expectSQL(
                request, db,
                #"SELECT julianday("invoiceDate") FROM "Invoice" WHERE julianday("invoiceDate") <= julianday(?, ?) "#
                    + #"ORDER BY julianday("invoiceDate") DESC, "invoiceId" LIMIT ?"#,
                ["2021-01-04 00:00:00.000", "-1 days", 4])
            let expected = try Double?.fetchAll(db, sql: """
                SELECT julianday(InvoiceDate) FROM Invoice WHERE julianday(InvoiceDate) <= julianday('2021-01-04', '-1 days')
                ORDER BY julianday(InvoiceDate) DESC, InvoiceId LIMIT 4
                """)
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == [2_459_217.5, 2_459_216.5, 2_459_215.5])
        }
    }

    @Test(arguments: WriterKind.allCases)
    func strftimeOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            // Sales by month, most recent first.
            let month = strftime("%Y-%m", \Invoice.invoiceDate)
            let request = Invoice.select(month, count(\.invoiceId), total(\.total)).group(month).order(month.desc).limit(3)
            try expectSQL(
                request, db,
                #"SELECT strftime(?, "invoiceDate"), COUNT("invoiceId"), TOTAL("total") FROM "Invoice" "#
                    + #"GROUP BY strftime(?, "invoiceDate") ORDER BY strftime(?, "invoiceDate") DESC LIMIT ?"#,
                ["%Y-%m", "%Y-%m", "%Y-%m", 3])
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1) \($0.2)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT strftime('%Y-%m', InvoiceDate) AS m, COUNT(InvoiceId), TOTAL(Total) FROM Invoice
                GROUP BY m ORDER BY m DESC LIMIT 3
                """).map { "\(try $0[0] as String) \(try $0[1] as Int) \(try $0[2] as Double)" }
            #expect(fetched == expected)
            #expect(fetched.first?.hasPrefix("2025-12 7 ") == true)
        }
    }

    @Test(arguments: WriterKind.allCases)
    func unixEpochOnChinook(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(unixEpoch(\.invoiceDate)).filter(unixEpoch(\.invoiceDate) < 1_609_700_000).order(\.invoiceId)
            try expectSQL(
                request, db,
                #"SELECT unixepoch("invoiceDate") FROM "Invoice" WHERE unixepoch("invoiceDate") < ? ORDER BY "invoiceId""#, [1_609_700_000])
            let expected = try Int?.fetchAll(
                db, sql: "SELECT unixepoch(InvoiceDate) FROM Invoice WHERE unixepoch(InvoiceDate) < 1609700000 ORDER BY InvoiceId")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == [1_609_459_200, 1_609_545_600, 1_609_632_000])
        }
    }

    /// "Orders of the last N days grouped by day", relative to the last invoice.
    @Test(arguments: WriterKind.allCases, [7, 30])
    func invoicesOfTheLastDaysGroupedByDay(_ kind: WriterKind, days: Int) throws {
        try inChinook(kind) { db throws in
            let last = try #require(try Invoice.select(max(\.invoiceDate)).fetchOne(db) ?? nil)
            let day = date(\Invoice.invoiceDate)
            let request = Invoice
                .filter(dateTime(\.invoiceDate) > dateTime(last, .day(-days)))
                .select(day, count(\.invoiceId), total(\.total))
                .group(day)
                .order(day)
            try expectSQL(
                request, db,
                #"SELECT date("invoiceDate"), COUNT("invoiceId"), TOTAL("total") FROM "Invoice" "#
                    + #"WHERE datetime("invoiceDate") > datetime(?, ?) GROUP BY date("invoiceDate") ORDER BY date("invoiceDate")"#,
                ["2025-12-22 00:00:00.000", "\(-days) days"])
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1) \($0.2)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT date(InvoiceDate) AS d, COUNT(InvoiceId), TOTAL(Total) FROM Invoice
                WHERE datetime(InvoiceDate) > datetime((SELECT MAX(InvoiceDate) FROM Invoice), ?)
                GROUP BY d ORDER BY d
                """, arguments: ["-\(days) days"]).map { "\(try $0[0] as String) \(try $0[1] as Int) \(try $0[2] as Double)" }
            #expect(fetched == expected)
            #expect(fetched.last?.hasPrefix("2025-12-22 1 ") == true)
            #expect(fetched.count == (days == 7 ? 1 : 6))
        }
    }

    /// The functions take the columns of the closure forms, and other expressions.
    @Test(arguments: WriterKind.allCases)
    func expressionArguments(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice
                .select { (date($0.invoiceDate, .startOfYear), time($0.invoiceDate), dateTime($0.invoiceDate),
                           julianDay($0.invoiceDate), strftime("%w", $0.invoiceDate), unixEpoch($0.invoiceDate)) }
                .filter { strftime("%w", $0.invoiceDate) == "0" }
                .order { [julianDay($0.invoiceDate).desc] }
                .limit(2)
            try expectSQL(
                request, db,
                #"SELECT date("invoiceDate", ?), time("invoiceDate"), datetime("invoiceDate"), julianday("invoiceDate"), "#
                    + #"strftime(?, "invoiceDate"), unixepoch("invoiceDate") FROM "Invoice" WHERE strftime(?, "invoiceDate") = ? "#
                    + #"ORDER BY julianday("invoiceDate") DESC LIMIT ?"#,
                ["start of year", "%w", "%w", "0", 2])
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "") \($0.1 ?? "") \($0.2 ?? "") \($0.3 ?? 0) \($0.4 ?? "") \($0.5 ?? 0)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT date(InvoiceDate, 'start of year'), time(InvoiceDate), datetime(InvoiceDate), julianday(InvoiceDate),
                strftime('%w', InvoiceDate), unixepoch(InvoiceDate) FROM Invoice WHERE strftime('%w', InvoiceDate) = '0'
                ORDER BY julianday(InvoiceDate) DESC LIMIT 2
                """).map {
                "\(try $0[0] as String) \(try $0[1] as String) \(try $0[2] as String) \(try $0[3] as Double) "
                    + "\(try $0[4] as String) \(try $0[5] as Int)"
            }
            #expect(fetched == expected)
            #expect(fetched.count == 2)

            // An aggregate as the time value: the first and last invoice days.
            let span = Invoice.select(date(min(\.invoiceDate)), date(max(\.invoiceDate)))
            try expectSQL(span, db, #"SELECT date(MIN("invoiceDate")), date(MAX("invoiceDate")) FROM "Invoice""#)
            let fetchedSpan = try #require(try span.fetchOne(db))
            #expect(fetchedSpan.0 == "2021-01-01")
            #expect(fetchedSpan.1 == "2025-12-22")
        }
    }

    /// In a join, the column is qualified like any other.
    @Test(arguments: WriterKind.allCases)
    func qualifiedInJoins(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let day = date(\Invoice.invoiceDate, .startOfMonth)
            let request = Invoice.joining(required: Invoice.invoiceLines)
                .select(day, count(\.invoiceId)).group(day).order(day.desc).limit(2)
            try expectSQL(
                request, db,
                #"SELECT date("Invoice"."invoiceDate", ?), COUNT("Invoice"."invoiceId") FROM "Invoice" "#
                    + #"JOIN "InvoiceLine" "invoiceLines" ON "invoiceLines"."InvoiceId" = "Invoice"."InvoiceId" "#
                    + #"GROUP BY date("Invoice"."invoiceDate", ?) ORDER BY date("Invoice"."invoiceDate", ?) DESC LIMIT ?"#,
                ["start of month", "start of month", "start of month", 2])
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1)" }
            let expected = try Row.fetchAll(db, sql: """
                SELECT date(i.InvoiceDate, 'start of month') AS m, COUNT(i.InvoiceId) FROM Invoice i
                JOIN InvoiceLine l ON l.InvoiceId = i.InvoiceId GROUP BY m ORDER BY m DESC LIMIT 2
                """).map { "\(try $0[0] as String) \(try $0[1] as Int)" }
            #expect(fetched == expected)
        }
    }

    // MARK: - Values

    /// Values as time values: `"now"`, a number with `.unixEpoch`, a Julian
    /// day, and a Date, which is bound in the record's format.
    @Test(arguments: WriterKind.allCases)
    func valueArguments(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(
                date("now"), dateTime(1_700_000_000, .unixEpoch), time(2_460_000.75), julianDay("2000-01-01 12:00:00"),
                strftime("%Y", Date(timeIntervalSince1970: 0)), unixEpoch(Date(timeIntervalSince1970: 86_400))
            ).limit(1)
            try expectSQL(
                request, db,
                #"SELECT date(?), datetime(?, ?), time(?), julianday(?), strftime(?, ?), unixepoch(?) FROM "Invoice" LIMIT ?"#,
                ["now", 1_700_000_000, "unixepoch", 2_460_000.75, "2000-01-01 12:00:00", "%Y", "1970-01-01 00:00:00.000",
                 "1970-01-02 00:00:00.000", 1])
            let fetched = try #require(try request.fetchOne(db))
            let expected = try #require(try Row.fetchOne(db, sql: """
                SELECT date('now'), datetime(1700000000, 'unixepoch'), time(2460000.75), julianday('2000-01-01 12:00:00'),
                strftime('%Y', '1970-01-01'), unixepoch('1970-01-02')
                """))
            #expect(fetched.0 == (try expected[0] as String))
            #expect(fetched.1 == "2023-11-14 22:13:20")
            #expect(fetched.2 == "06:00:00")
            #expect(fetched.3 == 2_451_545)
            #expect(fetched.4 == "1970")
            #expect(fetched.5 == 86_400)
        }
    }

    // MARK: - Modifiers

    /// Every modifier is a bound argument, in SQLite's spelling.
    @Test(arguments: WriterKind.allCases)
    func modifiersAreBound(_ kind: WriterKind) throws {
        try inChinook(kind) { db throws in
            let request = Invoice.select(dateTime(
                \.invoiceDate, .second(1.5), .minute(-2), .hour(3), .day(-7), .month(1), .year(-1),
                .startOfDay, .startOfMonth, .startOfYear, .weekday(3), .localTime, .utc
            )).filter(\.invoiceId == 100)
            try expectSQL(
                request, db,
                #"SELECT datetime("invoiceDate", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) FROM "Invoice" WHERE "invoiceId" = ?"#,
                ["1.5 seconds", "-2 minutes", "3 hours", "-7 days", "1 months", "-1 years",
                 "start of day", "start of month", "start of year", "weekday 3", "localtime", "utc", 100])
            let expected = try String.fetchOne(db, sql: """
                SELECT datetime(InvoiceDate, '+1.5 seconds', '-2 minutes', '+3 hours', '-7 days', '+1 months', '-1 years',
                'start of day', 'start of month', 'start of year', 'weekday 3', 'localtime', 'utc')
                FROM Invoice WHERE InvoiceId = 100
                """)
            #expect(try request.fetchOne(db) == expected)

            // Each modifier alone, on a fixed date, gives SQLite's result.
            let modifiers: [(SQLDateModifier, String)] = [
                (.second(-0.5), "2024-02-29 23:59:29"), (.minute(1), "2024-03-01 00:00:30"), (.hour(-24), "2024-02-28 23:59:30"),
                (.day(1), "2024-03-01 23:59:30"), (.month(1), "2024-03-29 23:59:30"), (.year(1), "2025-03-01 23:59:30"),
                (.startOfDay, "2024-02-29 00:00:00"), (.startOfMonth, "2024-02-01 00:00:00"), (.startOfYear, "2024-01-01 00:00:00"),
                (.weekday(0), "2024-03-03 23:59:30"),
            ]
            for (modifier, result) in modifiers {
                let fetched = try Invoice.select(dateTime("2024-02-29 23:59:30.250", modifier)).limit(1).fetchOne(db) ?? nil
                #expect(fetched == result, "\(modifier)")
            }
            // 'localtime' and 'utc' depend on the time zone of the machine:
            // they agree with SQLite's own result.
            for (modifier, text) in [(SQLDateModifier.localTime, "localtime"), (.utc, "utc")] {
                let fetched = try Invoice.select(dateTime("2024-02-29 23:59:30.250", modifier)).limit(1).fetchOne(db) ?? nil
                let expected = try String.fetchOne(db, sql: "SELECT datetime('2024-02-29 23:59:30.250', ?)", arguments: [text])
                #expect(fetched != nil)
                #expect(fetched == expected)
            }
        }
    }

    /// Quarry's `time` and `strftime` do not hide the C functions of the same name.
    @Test func cFunctionsStillResolve() {
        #expect(time(nil) > 1_700_000_000)
    }

    @Test func modifierValues() {
        #expect(SQLDateModifier.day(-7) == .day(-7))
        #expect(SQLDateModifier.day(-7) != .day(7))
        #expect(Set<SQLDateModifier>([.startOfDay, .startOfDay, .utc]).count == 2)
    }

    // MARK: - Date strategies

    @Test(arguments: DateStrategyCase.allCases, WriterKind.allCases)
    func everyStrategy(_ strategy: DateStrategyCase, _ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        switch strategy {
        case .text: try Self.checkStrategy(TextStamp.self, writer)
        case .iso8601: try Self.checkStrategy(ISOStamp.self, writer)
        case .seconds: try Self.checkStrategy(SecondsStamp.self, writer)
        case .milliseconds: try Self.checkStrategy(MillisecondsStamp.self, writer)
        }
    }

    private static func checkStrategy<R: StampRecord>(_ type: R.Type, _ writer: any DatabaseWriter) throws {
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try R(id: 1, createdAt: leapEvening, note: "leap").insert(db)
            try R(id: 2, createdAt: marchNoon, note: "march").insert(db)
        }
        try writer.read { db throws in
            let timeSQL = R.quarryTimeValue
            let arguments = StatementArguments(R.strategyArguments)
            let hand = R.handTimeValue

            // Pinned SQL, then the result against hand-written SQL and the known value.
            let dates = R.select(date(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(dates, db, "SELECT date(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"", arguments)
            #expect(try dates.fetchAll(db) == String?.fetchAll(db, sql: "SELECT date(\(hand)) FROM stamp ORDER BY id"))
            #expect(try dates.fetchAll(db) == ["2024-02-29", "2024-03-10"])

            let times = R.select(time(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(times, db, "SELECT time(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"", arguments)
            #expect(try times.fetchAll(db) == ["23:59:30", "12:00:00"])

            let nextMinute = R.select(dateTime(R.createdAtColumn, .minute(1))).order(R.idColumn)
            try expectSQL(
                nextMinute, db, "SELECT datetime(\(timeSQL), ?) FROM \"stamp\" ORDER BY \"id\"",
                StatementArguments(R.strategyArguments + ["1 minutes"]))
            #expect(try nextMinute.fetchAll(db) == String?.fetchAll(db, sql: "SELECT datetime(\(hand), '+1 minutes') FROM stamp ORDER BY id"))
            #expect(try nextMinute.fetchAll(db) == ["2024-03-01 00:00:30", "2024-03-10 12:01:00"])

            let julian = R.select(julianDay(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(julian, db, "SELECT julianday(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"", arguments)
            #expect(try julian.fetchAll(db) == Double?.fetchAll(db, sql: "SELECT julianday(\(hand)) FROM stamp ORDER BY id"))
            let expectedJulian = try Double?.fetchAll(
                db, sql: "SELECT julianday('2024-02-29 23:59:30.250') UNION ALL SELECT julianday('2024-03-10 12:00:00')")
            #expect(try julian.fetchAll(db) == expectedJulian)

            let stamps = R.select(strftime("%Y-%m-%d %H:%M:%f", R.createdAtColumn)).order(R.idColumn)
            try expectSQL(
                stamps, db, "SELECT strftime(?, \(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                StatementArguments(["%Y-%m-%d %H:%M:%f"] + R.strategyArguments))
            #expect(try stamps.fetchAll(db) == ["2024-02-29 23:59:30.250", "2024-03-10 12:00:00.000"])

            let epochs = R.select(unixEpoch(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(epochs, db, "SELECT unixepoch(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"", arguments)
            #expect(try epochs.fetchAll(db) == [1_709_251_170, 1_710_072_000])

            // Grouped by month.
            let month = date(R.createdAtColumn, .startOfMonth)
            let months = R.select(month, countAll()).group(month).order(month)
            #expect(try months.fetchAll(db).map { "\($0.0 ?? "?") \($0.1)" } == ["2024-02-01 1", "2024-03-01 1"])

            // A Date value is bound in the record's format, and read with the
            // same conversion: the leap evening plus one day, by day.
            let sameDay = R.filter(date(R.createdAtColumn) == date(leapEvening, .day(-1))).select(R.noteColumn)
            #expect(try sameDay.fetchAll(db).isEmpty)
            let laterThan = R.filter(dateTime(R.createdAtColumn) > dateTime(leapEvening, .day(1))).select(R.noteColumn)
            #expect(try laterThan.fetchAll(db) == ["march"])
            let generated = try laterThan.sql(db)
            let boundDate = try #require(generated.arguments.values.first(where: { $0 != .text("unixepoch") }))
            switch R.self {
            case is TextStamp.Type: #expect(boundDate == .text("2024-02-29 23:59:30.250"))
            case is ISOStamp.Type: #expect(boundDate == .text("2024-02-29T23:59:30.250Z"))
            case is SecondsStamp.Type: #expect(boundDate == .real(1_709_251_170.25))
            default: #expect(boundDate == .integer(1_709_251_170_250))
            }
            let sameDayToo = R.filter(date(R.createdAtColumn) == date(leapEvening)).select(R.noteColumn)
            #expect(try sameDayToo.fetchAll(db) == ["leap"])
        }
    }

    /// The column of a Date expression converts too; the milliseconds
    /// division keeps its operand whole.
    @Test(arguments: WriterKind.allCases)
    func millisecondsOfAnExpression(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try MillisecondsStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
            try MillisecondsStamp(id: 2, createdAt: marchNoon, note: nil).insert(db)
        }
        try writer.read { db throws in
            let latest = MillisecondsStamp.select(dateTime(max(\.createdAt)))
            try expectSQL(latest, db, #"SELECT datetime(MAX("createdAt") / 1000.0, ?) FROM "stamp""#, ["unixepoch"])
            #expect(try latest.fetchOne(db) == "2024-03-10 12:00:00")

            let fallback = coalesce([QueryExpression<MillisecondsStamp, Date?>("createdAt")], default: marchNoon)
            let coalesced = MillisecondsStamp.select(dateTime(fallback)).order(\.id)
            try expectSQL(
                coalesced, db, #"SELECT datetime(coalesce("createdAt", ?) / 1000.0, ?) FROM "stamp" ORDER BY "id""#,
                [1_710_072_000_000, "unixepoch"])
            #expect(try coalesced.fetchAll(db) == ["2024-02-29 23:59:30", "2024-03-10 12:00:00"])

            // An operation is parenthesized before the division.
            let shifted = QueryExpression<MillisecondsStamp, Date>(sql: #""createdAt" + ?"#, arguments: [60_000])
            let later = MillisecondsStamp.select(dateTime(shifted)).order(\.id)
            try expectSQL(later, db, #"SELECT datetime(("createdAt" + ?) / 1000.0, ?) FROM "stamp" ORDER BY "id""#, [60_000, "unixepoch"])
            #expect(try later.fetchAll(db) == ["2024-03-01 00:00:30", "2024-03-10 12:01:00"])
            let handWritten = try String?.fetchAll(
                db, sql: "SELECT datetime((createdAt + 60000) / 1000.0, 'unixepoch') FROM stamp ORDER BY id")
            #expect(try later.fetchAll(db) == handWritten)
        }
    }

    // MARK: - Failures

    /// SQLite returns NULL for a time value it cannot read: every function
    /// gives nil, by key path, expression or value.
    @Test(arguments: WriterKind.allCases)
    func invalidTimeValuesGiveNil(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try db.execute(sql: "INSERT INTO stamp VALUES (1, 'not a date', NULL), (2, NULL, NULL)")
        }
        try writer.read { db throws in
            let byKeyPath = RawStamp.select(
                date(\.createdAt), time(\.createdAt), dateTime(\.createdAt), julianDay(\.createdAt),
                strftime("%Y", \.createdAt), unixEpoch(\.createdAt))
            for row in try byKeyPath.fetchAll(db) {
                #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
            }
            let byExpression = RawStamp.select {
                (date($0.createdAt), time($0.createdAt), dateTime($0.createdAt), julianDay($0.createdAt),
                 strftime("%Y", $0.createdAt), unixEpoch($0.createdAt))
            }
            for row in try byExpression.fetchAll(db) {
                #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
            }
            let byValue = RawStamp.select(
                date("2024-13-45"), time("25:61"), dateTime("yesterday"), julianDay("2024-02-30x"),
                strftime("%Y", "someday"), unixEpoch("not a date")
            ).limit(1)
            let row = try #require(try byValue.fetchOne(db))
            #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
            #expect(try RawStamp.filter(date(\.createdAt).isNull).fetchCount(db) == 2)

            // A Date column whose text is invalid: nil, not a decoding error.
            #expect(try TextStamp.select(date(\.createdAt)).order(\.id).fetchAll(db) == [nil, nil])
        }
    }

    /// The results are optional: decoding nil into a non-optional property throws.
    @Test(arguments: WriterKind.allCases)
    func nilIntoNonOptionalThrows(_ kind: WriterKind) throws {
        struct Day: Decodable { var day: String }
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try db.execute(sql: "INSERT INTO stamp VALUES (1, 'not a date', NULL)")
        }
        try writer.read { db throws in
            let request = RawStamp.all().select(named: [date(\RawStamp.createdAt).forKey("day")]).asRequest(of: Day.self)
            #expect(throws: (any Error).self) { try request.fetchAll(db) }
        }
    }

    /// Modifiers SQLite refuses, and a second 'unixepoch' after the one a
    /// numeric strategy adds, give nil.
    @Test(arguments: WriterKind.allCases)
    func invalidModifiersGiveNil(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try SecondsStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
        }
        try writer.read { db throws in
            #expect(try SecondsStamp.select(date(\.createdAt, .weekday(7))).fetchOne(db) == .some(nil))
            #expect(try SecondsStamp.select(date(\.createdAt, .second(.nan))).fetchOne(db) == .some(nil))
            #expect(try SecondsStamp.select(date(\.createdAt, .second(.infinity))).fetchOne(db) == .some(nil))
            let doubled = SecondsStamp.select(date(\.createdAt, .unixEpoch))
            try expectSQL(doubled, db, #"SELECT date("createdAt", ?, ?) FROM "stamp""#, ["unixepoch", "unixepoch"])
            #expect(try doubled.fetchOne(db) == .some(nil))
        }
    }

    /// A key path that names no column makes the request throw, for every function.
    @Test(arguments: WriterKind.allCases)
    func keyPathWithoutColumnThrows(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
        }
        try writer.read { db throws in
            #expect(throws: (any Error).self) { try TextStamp.select(date(\.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.select(time(\.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.select(dateTime(\.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.select(julianDay(\.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.select(strftime("%Y", \.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.select(unixEpoch(\.createdTomorrow)).fetchAll(db) }
            #expect(throws: (any Error).self) { try TextStamp.filter(date(\.createdTomorrow) == "2024-01-01").fetchCount(db) }
        }
    }

    /// A strftime format is bound, never spliced: an injection payload is
    /// just text in the result, and the table survives.
    @Test(arguments: WriterKind.allCases)
    func strftimeFormatIsBound(_ kind: WriterKind) throws {
        let directory = try TemporaryDirectory()
        let writer = try kind.make(in: directory)
        let payload = "%Y'); DROP TABLE stamp; --"
        try writer.write { db throws in
            try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
            try TextStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
            let request = TextStamp.select(strftime(payload, \.createdAt)).filter(strftime(payload, \.createdAt) != "")
            try expectSQL(
                request, db, #"SELECT strftime(?, "createdAt") FROM "stamp" WHERE strftime(?, "createdAt") <> ?"#,
                [payload, payload, ""])
            #expect(try request.fetchAll(db) == ["2024'); DROP TABLE stamp; --"])
            let valueRequest = TextStamp.select(strftime(payload, "2024-01-01"))
            #expect(try valueRequest.fetchAll(db) == ["2024'); DROP TABLE stamp; --"])
            #expect(try TextStamp.fetchCount(db) == 1)
            #expect(try db.tableExists("stamp"))
        }
    }
}
