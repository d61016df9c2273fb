// Tests of the SQLite date and time functions of the query interface: date(),
// time(), dateTime(), julianDay(), strftime() and unixEpoch(), with
// SQLDateModifier (https://www.sqlite.org/lang_datefunc.html), on SQLite and
// on PostgreSQL, where Quarry writes them with to_char, extract,
// make_interval and date_trunc
// (QuarryPostgres/PostgreSQLDialect+DateFunctions.swift).
//
// Each query's SQL and arguments are pinned per backend, and its result is
// compared with the same query written by hand in each backend's SQL, on
// Chinook (dates stored as text on SQLite, TIMESTAMPTZ on PostgreSQL) and on a
// small table read through one record type per date strategy (text, ISO 8601,
// seconds and milliseconds since 1970), and with the known values, which are
// the same on both backends but where the test says otherwise.

import Foundation
import Quarry
import QuarryTestSupport
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
    /// The type of the column on PostgreSQL.
    static var postgresType: String { get }
    /// The time value of the column in hand-written PostgreSQL SQL.
    static var postgresHandTimeValue: String { get }
    /// The time value of the column as Quarry writes it on PostgreSQL.
    static var postgresTimeValue: String { get }
}

extension TextStamp: StampRecord {
    static var idColumn: KeyPath<TextStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<TextStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<TextStamp, String?> { \.note }
    static let handTimeValue = "createdAt"
    static let strategyArguments: [String] = []
    static let quarryTimeValue = #""createdAt""#
    static let postgresType = "TIMESTAMPTZ"
    static let postgresHandTimeValue = #""createdAt""#
    static let postgresTimeValue = #"CAST("createdAt" AS TIMESTAMPTZ)"#
}

extension ISOStamp: StampRecord {
    static var idColumn: KeyPath<ISOStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<ISOStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<ISOStamp, String?> { \.note }
    static let handTimeValue = "createdAt"
    static let strategyArguments: [String] = []
    static let quarryTimeValue = #""createdAt""#
    // TIMESTAMPTZ would store the instant, and read it back in Quarry's
    // format, not ISO 8601: the text stays as the record wrote it.
    static let postgresType = "TEXT"
    static let postgresHandTimeValue = #""createdAt"::timestamptz"#
    static let postgresTimeValue = #"CAST("createdAt" AS TIMESTAMPTZ)"#
}

extension SecondsStamp: StampRecord {
    static var idColumn: KeyPath<SecondsStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<SecondsStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<SecondsStamp, String?> { \.note }
    static let handTimeValue = "createdAt, 'unixepoch'"
    static let strategyArguments = ["unixepoch"]
    static let quarryTimeValue = #""createdAt", ?"#
    static let postgresType = "DOUBLE PRECISION"
    static let postgresHandTimeValue = #"TIMESTAMPTZ 'epoch' + "createdAt" * INTERVAL '1 second'"#
    static let postgresTimeValue = #"to_timestamp("createdAt")"#
}

extension MillisecondsStamp: StampRecord {
    static var idColumn: KeyPath<MillisecondsStamp, Int64> { \.id }
    static var createdAtColumn: KeyPath<MillisecondsStamp, Date> { \.createdAt }
    static var noteColumn: KeyPath<MillisecondsStamp, String?> { \.note }
    static let handTimeValue = "createdAt / 1000.0, 'unixepoch'"
    static let strategyArguments = ["unixepoch"]
    static let quarryTimeValue = #""createdAt" / 1000.0, ?"#
    static let postgresType = "BIGINT"
    static let postgresHandTimeValue = #"TIMESTAMPTZ 'epoch' + "createdAt" * INTERVAL '1 millisecond'"#
    static let postgresTimeValue = #"to_timestamp("createdAt" / 1000.0)"#
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

/// Creates the table "stamp": its date column untyped on SQLite, of
/// `postgresType` on PostgreSQL.
private func createStampTable(_ db: Database, _ backend: Backend, postgresType: String = "TEXT") throws {
    if backend.isPostgreSQL {
        try db.execute(sql: #"CREATE TABLE stamp (id BIGINT PRIMARY KEY, "createdAt" \#(postgresType), note TEXT)"#)
    } else {
        try db.execute(sql: "CREATE TABLE stamp (id INTEGER PRIMARY KEY, createdAt, note TEXT)")
    }
}

// Quarry's PostgreSQL forms, for the pinned SQL.

/// Chinook's invoice date as a time value.
private let pgInvoiceDate = #"CAST("invoiceDate" AS TIMESTAMPTZ)"#

/// julianday() of the time value `time`.
private func pgJulianDay(_ time: String) -> String {
    "CAST(round(extract(epoch FROM \(time)) * 1000) + 210866760000000 AS DOUBLE PRECISION) / 86400000.0"
}

/// unixepoch() of the time value `time`.
private func pgUnixEpoch(_ time: String) -> String {
    "CAST(floor(extract(epoch FROM \(time))) AS BIGINT)"
}

@Suite("Date and time functions")
struct DateFunctionTests {
    // MARK: - Chinook: each function, against hand-written SQL

    @Test(arguments: Backend.all)
    func dateOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice.select(date(\.invoiceDate)).order(\.invoiceId).limit(5)
            if backend.isPostgreSQL {
                try expectSQL(
                    request, db, #"SELECT to_char(\#(pgInvoiceDate), 'YYYY-MM-DD') FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#, [5])
            } else {
                try expectSQL(request, db, #"SELECT date("invoiceDate") FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#, [5])
            }
            let expected = try String?.fetchAll(db, sql: backend.isPostgreSQL
                ? "SELECT to_char(InvoiceDate, 'YYYY-MM-DD') FROM Invoice ORDER BY InvoiceId LIMIT 5"
                : "SELECT date(InvoiceDate) FROM Invoice ORDER BY InvoiceId LIMIT 5")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.first == "2021-01-01")
        }
    }

    @Test(arguments: Backend.all)
    func timeOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice.select(time(\.invoiceDate, .hour(-3), .minute(15))).order(\.invoiceId).limit(3)
            if backend.isPostgreSQL {
                try expectSQL(
                    request, db,
                    #"SELECT to_char(\#(pgInvoiceDate) + make_interval(hours => ?) + make_interval(mins => ?), 'HH24:MI:SS') "#
                        + #"FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#,
                    [-3, 15, 3])
            } else {
                try expectSQL(
                    request, db, #"SELECT time("invoiceDate", ?, ?) FROM "Invoice" ORDER BY "invoiceId" LIMIT ?"#, ["-3 hours", "15 minutes", 3])
            }
            let expected = try String?.fetchAll(db, sql: backend.isPostgreSQL
                ? "SELECT to_char(InvoiceDate - INTERVAL '3 hours' + INTERVAL '15 minutes', 'HH24:MI:SS') FROM Invoice ORDER BY InvoiceId LIMIT 3"
                : "SELECT time(InvoiceDate, '-3 hours', '+15 minutes') FROM Invoice ORDER BY InvoiceId LIMIT 3")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == ["21:15:00", "21:15:00", "21:15:00"])
        }
    }

    @Test(arguments: Backend.all)
    func dateTimeOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice.select(dateTime(\.invoiceDate, .day(-1), .startOfMonth))
                .filter(\.invoiceId <= 3).order(\.invoiceId)
            if backend.isPostgreSQL {
                try expectSQL(
                    request, db,
                    #"SELECT to_char(date_trunc('month', \#(pgInvoiceDate) + make_interval(days => ?)), 'YYYY-MM-DD HH24:MI:SS') "#
                        + #"FROM "Invoice" WHERE "invoiceId" <= ? ORDER BY "invoiceId""#,
                    [-1, 3])
            } else {
                try expectSQL(
                    request, db, #"SELECT datetime("invoiceDate", ?, ?) FROM "Invoice" WHERE "invoiceId" <= ? ORDER BY "invoiceId""#,
                    ["-1 days", "start of month", 3])
            }
            let expected = try String?.fetchAll(db, sql: backend.isPostgreSQL
                ? """
                    SELECT to_char(date_trunc('month', InvoiceDate - INTERVAL '1 day'), 'YYYY-MM-DD HH24:MI:SS') FROM Invoice
                    WHERE InvoiceId <= 3 ORDER BY InvoiceId
                    """
                : "SELECT datetime(InvoiceDate, '-1 days', 'start of month') FROM Invoice WHERE InvoiceId <= 3 ORDER BY InvoiceId")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected.first == "2020-12-01 00:00:00")
        }
    }

    @Test(arguments: Backend.all)
    func julianDayOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            // The invoices up to the day before the 4th of January 2021, latest first.
            let january4 = Date(timeIntervalSince1970: 1_609_718_400)
            let request = Invoice.select(julianDay(\.invoiceDate))
                .filter(julianDay(\.invoiceDate) <= julianDay(january4, .day(-1)))
                .order(.desc(julianDay(\.invoiceDate)), .asc(\.invoiceId))
                .limit(4)
            if backend.isPostgreSQL {
                let julian = pgJulianDay(pgInvoiceDate)
                try expectSQL(
                    request, db,
                    #"SELECT \#(julian) FROM "Invoice" WHERE \#(julian) <= "#
                        + #"\#(pgJulianDay("CAST(? AS TIMESTAMPTZ) + make_interval(days => ?)")) "#
                        + #"ORDER BY \#(julian) DESC, "invoiceId" LIMIT ?"#,
                    ["2021-01-04 00:00:00.000", -1, 4])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT julianday("invoiceDate") FROM "Invoice" WHERE julianday("invoiceDate") <= julianday(?, ?) "#
                        + #"ORDER BY julianday("invoiceDate") DESC, "invoiceId" LIMIT ?"#,
                    ["2021-01-04 00:00:00.000", "-1 days", 4])
            }
            let expected = try Double?.fetchAll(db, sql: backend.isPostgreSQL
                ? """
                    SELECT CAST(extract(epoch FROM InvoiceDate) / 86400 + 2440587.5 AS DOUBLE PRECISION) FROM Invoice
                    WHERE InvoiceDate <= TIMESTAMPTZ '2021-01-04' - INTERVAL '1 day' ORDER BY InvoiceDate DESC, InvoiceId LIMIT 4
                    """
                : """
                    SELECT julianday(InvoiceDate) FROM Invoice WHERE julianday(InvoiceDate) <= julianday('2021-01-04', '-1 days')
                    ORDER BY julianday(InvoiceDate) DESC, InvoiceId LIMIT 4
                    """)
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == [2_459_217.5, 2_459_216.5, 2_459_215.5])
        }
    }

    @Test(arguments: Backend.all)
    func strftimeOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            // Sales by month, most recent first.
            let month = strftime("%Y-%m", \Invoice.invoiceDate)
            let request = Invoice.select(month, count(\.invoiceId), total(\.total)).group(month).order(month.desc).limit(3)
            if backend.isPostgreSQL {
                // The format is a bound to_char template. PostgreSQL sees
                // two parameters as two expressions: the grouped and ordered
                // month is the selected one, by its position.
                try expectSQL(
                    request, db,
                    #"SELECT to_char(\#(pgInvoiceDate), ?), COUNT("invoiceId"), CAST(COALESCE(SUM("total"), 0) AS DOUBLE PRECISION) "#
                        + #"FROM "Invoice" GROUP BY 1 ORDER BY 1 DESC LIMIT ?"#,
                    [#"YYYY"-"MM"#, 3])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT strftime(?, "invoiceDate"), COUNT("invoiceId"), TOTAL("total") FROM "Invoice" "#
                        + #"GROUP BY strftime(?, "invoiceDate") ORDER BY strftime(?, "invoiceDate") DESC LIMIT ?"#,
                    ["%Y-%m", "%Y-%m", "%Y-%m", 3])
            }
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1) \($0.2)" }
            let expected = try Row.fetchAll(db, sql: backend.isPostgreSQL
                ? """
                    SELECT to_char(InvoiceDate, 'YYYY-MM') AS m, COUNT(InvoiceId), CAST(SUM(Total) AS DOUBLE PRECISION) FROM Invoice
                    GROUP BY m ORDER BY m DESC LIMIT 3
                    """
                : """
                    SELECT strftime('%Y-%m', InvoiceDate) AS m, COUNT(InvoiceId), TOTAL(Total) FROM Invoice
                    GROUP BY m ORDER BY m DESC LIMIT 3
                    """).map { "\(try $0[0] as String) \(try $0[1] as Int) \(try $0[2] as Double)" }
            #expect(fetched == expected)
            #expect(fetched.first?.hasPrefix("2025-12 7 ") == true)
        }
    }

    @Test(arguments: Backend.all)
    func unixEpochOnChinook(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice.select(unixEpoch(\.invoiceDate)).filter(unixEpoch(\.invoiceDate) < 1_609_700_000).order(\.invoiceId)
            if backend.isPostgreSQL {
                let epoch = pgUnixEpoch(pgInvoiceDate)
                try expectSQL(request, db, #"SELECT \#(epoch) FROM "Invoice" WHERE \#(epoch) < ? ORDER BY "invoiceId""#, [1_609_700_000])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT unixepoch("invoiceDate") FROM "Invoice" WHERE unixepoch("invoiceDate") < ? ORDER BY "invoiceId""#, [1_609_700_000])
            }
            let expected = try Int?.fetchAll(db, sql: backend.isPostgreSQL
                ? "SELECT CAST(extract(epoch FROM InvoiceDate) AS BIGINT) FROM Invoice WHERE InvoiceDate < to_timestamp(1609700000) ORDER BY InvoiceId"
                : "SELECT unixepoch(InvoiceDate) FROM Invoice WHERE unixepoch(InvoiceDate) < 1609700000 ORDER BY InvoiceId")
            #expect(try request.fetchAll(db) == expected)
            #expect(expected == [1_609_459_200, 1_609_545_600, 1_609_632_000])
        }
    }

    /// "Orders of the last N days grouped by day", relative to the last invoice.
    @Test(arguments: Backend.all, [7, 30])
    func invoicesOfTheLastDaysGroupedByDay(backend: Backend, days: Int) throws {
        try backend.inChinook { db throws in
            let last = try #require(try Invoice.select(max(\.invoiceDate)).fetchOne(db) ?? nil)
            let day = date(\Invoice.invoiceDate)
            let request = Invoice
                .filter(dateTime(\.invoiceDate) > dateTime(last, .day(-days)))
                .select(day, count(\.invoiceId), total(\.total))
                .group(day)
                .order(day)
            if backend.isPostgreSQL {
                let pgDay = "to_char(\(pgInvoiceDate), 'YYYY-MM-DD')"
                try expectSQL(
                    request, db,
                    #"SELECT \#(pgDay), COUNT("invoiceId"), CAST(COALESCE(SUM("total"), 0) AS DOUBLE PRECISION) FROM "Invoice" "#
                        + #"WHERE to_char(\#(pgInvoiceDate), 'YYYY-MM-DD HH24:MI:SS') > "#
                        + #"to_char(CAST(? AS TIMESTAMPTZ) + make_interval(days => ?), 'YYYY-MM-DD HH24:MI:SS') "#
                        + #"GROUP BY \#(pgDay) ORDER BY \#(pgDay)"#,
                    ["2025-12-22 00:00:00.000", -days])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT date("invoiceDate"), COUNT("invoiceId"), TOTAL("total") FROM "Invoice" "#
                        + #"WHERE datetime("invoiceDate") > datetime(?, ?) GROUP BY date("invoiceDate") ORDER BY date("invoiceDate")"#,
                    ["2025-12-22 00:00:00.000", "\(-days) days"])
            }
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1) \($0.2)" }
            let expected = try (backend.isPostgreSQL
                ? Row.fetchAll(db, sql: """
                    SELECT to_char(InvoiceDate, 'YYYY-MM-DD') AS d, COUNT(InvoiceId), CAST(SUM(Total) AS DOUBLE PRECISION) FROM Invoice
                    WHERE InvoiceDate > (SELECT MAX(InvoiceDate) FROM Invoice) - CAST(? AS INTERVAL)
                    GROUP BY d ORDER BY d
                    """, arguments: ["\(days) days"])
                : Row.fetchAll(db, sql: """
                    SELECT date(InvoiceDate) AS d, COUNT(InvoiceId), TOTAL(Total) FROM Invoice
                    WHERE datetime(InvoiceDate) > datetime((SELECT MAX(InvoiceDate) FROM Invoice), ?)
                    GROUP BY d ORDER BY d
                    """, arguments: ["-\(days) days"])
            ).map { "\(try $0[0] as String) \(try $0[1] as Int) \(try $0[2] as Double)" }
            #expect(fetched == expected)
            #expect(fetched.last?.hasPrefix("2025-12-22 1 ") == true)
            #expect(fetched.count == (days == 7 ? 1 : 6))
        }
    }

    /// The functions take the columns of the closure forms, and other expressions.
    @Test(arguments: Backend.all)
    func expressionArguments(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice
                .select { (date($0.invoiceDate, .startOfYear), time($0.invoiceDate), dateTime($0.invoiceDate),
                           julianDay($0.invoiceDate), strftime("%w", $0.invoiceDate), unixEpoch($0.invoiceDate)) }
                .filter { strftime("%w", $0.invoiceDate) == "0" }
                .order { [julianDay($0.invoiceDate).desc] }
                .limit(2)
            if backend.isPostgreSQL {
                // %w is no to_char pattern: the format leaves no template to bind.
                let weekday = "CAST(CAST(extract(dow FROM \(pgInvoiceDate)) AS INTEGER) AS TEXT)"
                try expectSQL(
                    request, db,
                    #"SELECT to_char(date_trunc('year', \#(pgInvoiceDate)), 'YYYY-MM-DD'), to_char(\#(pgInvoiceDate), 'HH24:MI:SS'), "#
                        + #"to_char(\#(pgInvoiceDate), 'YYYY-MM-DD HH24:MI:SS'), \#(pgJulianDay(pgInvoiceDate)), "#
                        + #"\#(weekday), \#(pgUnixEpoch(pgInvoiceDate)) FROM "Invoice" WHERE \#(weekday) = ? "#
                        + #"ORDER BY \#(pgJulianDay(pgInvoiceDate)) DESC LIMIT ?"#,
                    ["0", 2])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT date("invoiceDate", ?), time("invoiceDate"), datetime("invoiceDate"), julianday("invoiceDate"), "#
                        + #"strftime(?, "invoiceDate"), unixepoch("invoiceDate") FROM "Invoice" WHERE strftime(?, "invoiceDate") = ? "#
                        + #"ORDER BY julianday("invoiceDate") DESC LIMIT ?"#,
                    ["start of year", "%w", "%w", "0", 2])
            }
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "") \($0.1 ?? "") \($0.2 ?? "") \($0.3 ?? 0) \($0.4 ?? "") \($0.5 ?? 0)" }
            let expected = try Row.fetchAll(db, sql: backend.isPostgreSQL
                ? """
                    SELECT to_char(date_trunc('year', InvoiceDate), 'YYYY-MM-DD'), to_char(InvoiceDate, 'HH24:MI:SS'),
                    to_char(InvoiceDate, 'YYYY-MM-DD HH24:MI:SS'), CAST(extract(epoch FROM InvoiceDate) / 86400 + 2440587.5 AS DOUBLE PRECISION),
                    to_char(InvoiceDate, 'D')::integer - 1 || '', CAST(extract(epoch FROM InvoiceDate) AS BIGINT) FROM Invoice
                    WHERE extract(dow FROM InvoiceDate) = 0 ORDER BY InvoiceDate DESC LIMIT 2
                    """
                : """
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
            if backend.isPostgreSQL {
                try expectSQL(
                    span, db,
                    #"SELECT to_char(CAST(MIN("invoiceDate") AS TIMESTAMPTZ), 'YYYY-MM-DD'), "#
                        + #"to_char(CAST(MAX("invoiceDate") AS TIMESTAMPTZ), 'YYYY-MM-DD') FROM "Invoice""#)
            } else {
                try expectSQL(span, db, #"SELECT date(MIN("invoiceDate")), date(MAX("invoiceDate")) FROM "Invoice""#)
            }
            let fetchedSpan = try #require(try span.fetchOne(db))
            #expect(fetchedSpan.0 == "2021-01-01")
            #expect(fetchedSpan.1 == "2025-12-22")
        }
    }

    /// In a join, the column is qualified like any other.
    @Test(arguments: Backend.all)
    func qualifiedInJoins(backend: Backend) throws {
        try backend.inChinook { db throws in
            let day = date(\Invoice.invoiceDate, .startOfMonth)
            let request = Invoice.joining(required: Invoice.invoiceLines)
                .select(day, count(\.invoiceId)).group(day).order(day.desc).limit(2)
            if backend.isPostgreSQL {
                let month = #"to_char(date_trunc('month', CAST("Invoice"."invoiceDate" AS TIMESTAMPTZ)), 'YYYY-MM-DD')"#
                try expectChinookSQL(
                    request, db,
                    #"SELECT \#(month), COUNT("Invoice"."invoiceId") FROM "Invoice" "#
                        + #"JOIN "InvoiceLine" "invoiceLines" ON "invoiceLines"."InvoiceId" = "Invoice"."InvoiceId" "#
                        + #"GROUP BY \#(month) ORDER BY \#(month) DESC LIMIT ?"#,
                    [2])
            } else {
                try expectChinookSQL(
                    request, db,
                    #"SELECT date("Invoice"."invoiceDate", ?), COUNT("Invoice"."invoiceId") FROM "Invoice" "#
                        + #"JOIN "InvoiceLine" "invoiceLines" ON "invoiceLines"."InvoiceId" = "Invoice"."InvoiceId" "#
                        + #"GROUP BY date("Invoice"."invoiceDate", ?) ORDER BY date("Invoice"."invoiceDate", ?) DESC LIMIT ?"#,
                    ["start of month", "start of month", "start of month", 2])
            }
            let fetched = try request.fetchAll(db).map { "\($0.0 ?? "?") \($0.1)" }
            let expected = try Row.fetchAll(db, sql: backend.isPostgreSQL
                ? """
                    SELECT to_char(date_trunc('month', i.InvoiceDate), 'YYYY-MM-DD') AS m, COUNT(i.InvoiceId) FROM Invoice i
                    JOIN InvoiceLine l ON l.InvoiceId = i.InvoiceId GROUP BY m ORDER BY m DESC LIMIT 2
                    """
                : """
                    SELECT date(i.InvoiceDate, 'start of month') AS m, COUNT(i.InvoiceId) FROM Invoice i
                    JOIN InvoiceLine l ON l.InvoiceId = i.InvoiceId GROUP BY m ORDER BY m DESC LIMIT 2
                    """).map { "\(try $0[0] as String) \(try $0[1] as Int)" }
            #expect(fetched == expected)
            #expect(fetched.count == 2)
        }
    }

    // MARK: - Values

    /// Values as time values: `"now"`, a number with `.unixEpoch`, a Julian
    /// day, and a Date, which is bound in the record's format.
    @Test(arguments: Backend.all)
    func valueArguments(backend: Backend) throws {
        try backend.inChinook { db throws in
            let request = Invoice.select(
                date("now"), dateTime(1_700_000_000, .unixEpoch), time(2_460_000.75), julianDay("2000-01-01 12:00:00"),
                strftime("%Y", Date(timeIntervalSince1970: 0)), unixEpoch(Date(timeIntervalSince1970: 86_400))
            ).limit(1)
            if backend.isPostgreSQL {
                try expectSQL(
                    request, db,
                    #"SELECT to_char(CAST(? AS TIMESTAMPTZ), 'YYYY-MM-DD'), to_char(to_timestamp(?), 'YYYY-MM-DD HH24:MI:SS'), "#
                        + #"to_char(to_timestamp((? - 2440587.5) * 86400.0), 'HH24:MI:SS'), \#(pgJulianDay("CAST(? AS TIMESTAMPTZ)")), "#
                        + #"to_char(CAST(? AS TIMESTAMPTZ), ?), \#(pgUnixEpoch("CAST(? AS TIMESTAMPTZ)")) FROM "Invoice" LIMIT ?"#,
                    ["now", 1_700_000_000, 2_460_000.75, "2000-01-01 12:00:00", "1970-01-01 00:00:00.000", "YYYY",
                     "1970-01-02 00:00:00.000", 1])
            } else {
                try expectSQL(
                    request, db,
                    #"SELECT date(?), datetime(?, ?), time(?), julianday(?), strftime(?, ?), unixepoch(?) FROM "Invoice" LIMIT ?"#,
                    ["now", 1_700_000_000, "unixepoch", 2_460_000.75, "2000-01-01 12:00:00", "%Y", "1970-01-01 00:00:00.000",
                     "1970-01-02 00:00:00.000", 1])
            }
            let fetched = try #require(try request.fetchOne(db))
            let today = try String.fetchOne(db, sql: backend.isPostgreSQL
                ? "SELECT to_char(CURRENT_TIMESTAMP, 'YYYY-MM-DD')"
                : "SELECT date('now')")
            #expect(fetched.0 == today)
            #expect(fetched.1 == "2023-11-14 22:13:20")
            #expect(fetched.2 == "06:00:00")
            #expect(fetched.3 == 2_451_545)
            #expect(fetched.4 == "1970")
            #expect(fetched.5 == 86_400)
        }
    }

    // MARK: - Modifiers

    /// Every modifier is a bound argument: in SQLite's spelling on SQLite,
    /// the number of an interval on PostgreSQL.
    @Test(arguments: Backend.all)
    func modifiersAreBound(backend: Backend) throws {
        try backend.inChinook { db throws in
            if backend.isPostgreSQL {
                // 'localtime' and 'utc' are SQLite-only (below).
                let request = Invoice.select(dateTime(
                    \.invoiceDate, .second(1.5), .minute(-2), .hour(3), .day(-7), .month(1), .year(-1),
                    .startOfDay, .startOfMonth, .startOfYear, .weekday(3)
                )).filter(\.invoiceId == 100)
                let shifted = pgInvoiceDate + " + make_interval(secs => ?) + make_interval(mins => ?) + make_interval(hours => ?)"
                    + " + make_interval(days => ?) + make_interval(months => ?) + make_interval(years => ?)"
                let truncated = "date_trunc('year', date_trunc('month', date_trunc('day', \(shifted))))"
                // The weekday reads the date twice, and binds its values twice.
                try expectSQL(
                    request, db,
                    #"SELECT to_char(\#(truncated) + make_interval(days => (? + 7 - CAST(extract(dow FROM \#(truncated)) AS INTEGER)) % 7), "#
                        + #"'YYYY-MM-DD HH24:MI:SS') FROM "Invoice" WHERE "invoiceId" = ?"#,
                    [1.5, -2, 3, -7, 1, -1, 3, 1.5, -2, 3, -7, 1, -1, 100])
                let expected = try String.fetchOne(db, sql: """
                    SELECT to_char(d + ((3 - extract(dow FROM d) + 7)::integer % 7) * INTERVAL '1 day', 'YYYY-MM-DD HH24:MI:SS')
                    FROM (SELECT date_trunc('year', InvoiceDate + INTERVAL '1.5 seconds' - INTERVAL '2 minutes' + INTERVAL '3 hours'
                    - INTERVAL '7 days' + INTERVAL '1 month' - INTERVAL '1 year') AS d FROM Invoice WHERE InvoiceId = 100) AS s
                    """)
                #expect(try request.fetchOne(db) == expected)
                #expect(expected != nil)
            } else {
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
            }

            // Each modifier alone, on a fixed date, gives SQLite's result;
            // but a year after February 29: SQLite carries the 29th into
            // March, PostgreSQL clamps it to the 28th.
            let modifiers: [(SQLDateModifier, String)] = [
                (.second(-0.5), "2024-02-29 23:59:29"), (.minute(1), "2024-03-01 00:00:30"), (.hour(-24), "2024-02-28 23:59:30"),
                (.day(1), "2024-03-01 23:59:30"), (.month(1), "2024-03-29 23:59:30"),
                (.year(1), backend.isPostgreSQL ? "2025-02-28 23:59:30" : "2025-03-01 23:59:30"),
                (.startOfDay, "2024-02-29 00:00:00"), (.startOfMonth, "2024-02-01 00:00:00"), (.startOfYear, "2024-01-01 00:00:00"),
                (.weekday(0), "2024-03-03 23:59:30"), (.weekday(4), "2024-02-29 23:59:30"), (.weekday(3), "2024-03-06 23:59:30"),
            ]
            for (modifier, result) in modifiers {
                let fetched = try Invoice.select(dateTime("2024-02-29 23:59:30.250", modifier)).limit(1).fetchOne(db) ?? nil
                #expect(fetched == result, "\(modifier)")
            }
            // A month after January 31: SQLite normalizes February 31 into
            // March 2, PostgreSQL clamps it to February 29.
            let afterJanuary31 = try Invoice.select(date("2024-01-31", .month(1))).limit(1).fetchOne(db) ?? nil
            #expect(afterJanuary31 == (backend.isPostgreSQL ? "2024-02-29" : "2024-03-02"))

            // 'localtime' and 'utc' depend on the time zone of the machine:
            // on SQLite they agree with SQLite's own result; on PostgreSQL,
            // whose connections run in UTC, they throw, naming the modifier.
            for (modifier, text) in [(SQLDateModifier.localTime, "localtime"), (.utc, "utc")] {
                let request = Invoice.select(dateTime("2024-02-29 23:59:30.250", modifier)).limit(1)
                if backend.isPostgreSQL {
                    let error = #expect(throws: DatabaseError.self) { try request.fetchOne(db) }
                    #expect(error?.message.contains("'\(text)' is SQLite-only") == true, "\(String(describing: error))")
                } else {
                    let fetched = try request.fetchOne(db) ?? nil
                    let expected = try String.fetchOne(db, sql: "SELECT datetime('2024-02-29 23:59:30.250', ?)", arguments: [text])
                    #expect(fetched != nil)
                    #expect(fetched == expected)
                }
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

    @Test(arguments: DateStrategyCase.allCases, Backend.all)
    func everyStrategy(_ strategy: DateStrategyCase, backend: Backend) throws {
        try backend.withWriter { writer in
            switch strategy {
            case .text: try Self.checkStrategy(TextStamp.self, writer, backend)
            case .iso8601: try Self.checkStrategy(ISOStamp.self, writer, backend)
            case .seconds: try Self.checkStrategy(SecondsStamp.self, writer, backend)
            case .milliseconds: try Self.checkStrategy(MillisecondsStamp.self, writer, backend)
            }
        }
    }

    private static func checkStrategy<R: StampRecord>(_ type: R.Type, _ writer: any DatabaseWriter, _ backend: Backend) throws {
        try writer.write { db throws in
            try createStampTable(db, backend, postgresType: R.postgresType)
            try R(id: 1, createdAt: leapEvening, note: "leap").insert(db)
            try R(id: 2, createdAt: marchNoon, note: "march").insert(db)
        }
        try writer.read { db throws in
            let postgres = backend.isPostgreSQL
            let timeSQL = postgres ? R.postgresTimeValue : R.quarryTimeValue
            let arguments = StatementArguments(postgres ? [] : R.strategyArguments)
            let hand = postgres ? R.postgresHandTimeValue : R.handTimeValue

            // Pinned SQL, then the result against hand-written SQL and the known value.
            let dates = R.select(date(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(
                dates, db,
                postgres ? "SELECT to_char(\(timeSQL), 'YYYY-MM-DD') FROM \"stamp\" ORDER BY \"id\"" : "SELECT date(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                arguments)
            let handDates = postgres ? "SELECT to_char(\(hand), 'YYYY-MM-DD') FROM stamp ORDER BY id" : "SELECT date(\(hand)) FROM stamp ORDER BY id"
            #expect(try dates.fetchAll(db) == String?.fetchAll(db, sql: handDates))
            #expect(try dates.fetchAll(db) == ["2024-02-29", "2024-03-10"])

            let times = R.select(time(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(
                times, db,
                postgres ? "SELECT to_char(\(timeSQL), 'HH24:MI:SS') FROM \"stamp\" ORDER BY \"id\"" : "SELECT time(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                arguments)
            #expect(try times.fetchAll(db) == ["23:59:30", "12:00:00"])

            let nextMinute = R.select(dateTime(R.createdAtColumn, .minute(1))).order(R.idColumn)
            if postgres {
                try expectSQL(
                    nextMinute, db, "SELECT to_char(\(timeSQL) + make_interval(mins => ?), 'YYYY-MM-DD HH24:MI:SS') FROM \"stamp\" ORDER BY \"id\"",
                    [1])
            } else {
                try expectSQL(
                    nextMinute, db, "SELECT datetime(\(timeSQL), ?) FROM \"stamp\" ORDER BY \"id\"",
                    StatementArguments(R.strategyArguments + ["1 minutes"]))
            }
            let handNextMinute = postgres
                ? "SELECT to_char(\(hand) + INTERVAL '1 minute', 'YYYY-MM-DD HH24:MI:SS') FROM stamp ORDER BY id"
                : "SELECT datetime(\(hand), '+1 minutes') FROM stamp ORDER BY id"
            #expect(try nextMinute.fetchAll(db) == String?.fetchAll(db, sql: handNextMinute))
            #expect(try nextMinute.fetchAll(db) == ["2024-03-01 00:00:30", "2024-03-10 12:01:00"])

            let julian = R.select(julianDay(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(
                julian, db,
                postgres ? "SELECT \(pgJulianDay(timeSQL)) FROM \"stamp\" ORDER BY \"id\"" : "SELECT julianday(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                arguments)
            let handJulian = postgres
                ? "SELECT CAST(extract(epoch FROM \(hand)) / 86400 + 2440587.5 AS DOUBLE PRECISION) FROM stamp ORDER BY id"
                : "SELECT julianday(\(hand)) FROM stamp ORDER BY id"
            #expect(try julian.fetchAll(db) == Double?.fetchAll(db, sql: handJulian))
            if !postgres {
                let expectedJulian = try Double?.fetchAll(
                    db, sql: "SELECT julianday('2024-02-29 23:59:30.250') UNION ALL SELECT julianday('2024-03-10 12:00:00')")
                #expect(try julian.fetchAll(db) == expectedJulian)
            }
            // The same Double on both backends: SQLite's value.
            #expect(try julian.fetchAll(db) == [2_460_370.499_655_671_4, 2_460_380])

            let stamps = R.select(strftime("%Y-%m-%d %H:%M:%f", R.createdAtColumn)).order(R.idColumn)
            if postgres {
                try expectSQL(
                    stamps, db, "SELECT to_char(\(timeSQL), ?) FROM \"stamp\" ORDER BY \"id\"",
                    [#"YYYY"-"MM"-"DD" "HH24":"MI":"SS"."MS"#])
            } else {
                try expectSQL(
                    stamps, db, "SELECT strftime(?, \(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                    StatementArguments(["%Y-%m-%d %H:%M:%f"] + R.strategyArguments))
            }
            #expect(try stamps.fetchAll(db) == ["2024-02-29 23:59:30.250", "2024-03-10 12:00:00.000"])

            let epochs = R.select(unixEpoch(R.createdAtColumn)).order(R.idColumn)
            try expectSQL(
                epochs, db,
                postgres ? "SELECT \(pgUnixEpoch(timeSQL)) FROM \"stamp\" ORDER BY \"id\"" : "SELECT unixepoch(\(timeSQL)) FROM \"stamp\" ORDER BY \"id\"",
                arguments)
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

            // Strftime's substitutions, each against the known value: %j is
            // the day of the year, %W the week (from Monday, 00 before the
            // first), %w the weekday (0 is Sunday), %s Unix time, %% a %.
            let substitutions = R.select(strftime("%j|%W|%w|%s|%%|%d%j|%S%S", R.createdAtColumn)).order(R.idColumn)
            #expect(try substitutions.fetchAll(db) == ["060|09|4|1709251170|%|29060|3030", "070|10|0|1710072000|%|10070|0000"])
        }
    }

    /// The column of a Date expression converts too; the milliseconds
    /// division keeps its operand whole.
    @Test(arguments: Backend.all)
    func millisecondsOfAnExpression(backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend, postgresType: "BIGINT")
                try MillisecondsStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
                try MillisecondsStamp(id: 2, createdAt: marchNoon, note: nil).insert(db)
            }
            try writer.read { db throws in
                let postgres = backend.isPostgreSQL
                let latest = MillisecondsStamp.select(dateTime(max(\.createdAt)))
                if postgres {
                    try expectSQL(latest, db, #"SELECT to_char(to_timestamp(MAX("createdAt") / 1000.0), 'YYYY-MM-DD HH24:MI:SS') FROM "stamp""#)
                } else {
                    try expectSQL(latest, db, #"SELECT datetime(MAX("createdAt") / 1000.0, ?) FROM "stamp""#, ["unixepoch"])
                }
                #expect(try latest.fetchOne(db) == "2024-03-10 12:00:00")

                let fallback = coalesce([QueryExpression<MillisecondsStamp, Date?>("createdAt")], default: marchNoon)
                let coalesced = MillisecondsStamp.select(dateTime(fallback)).order(\.id)
                if postgres {
                    try expectSQL(
                        coalesced, db,
                        #"SELECT to_char(to_timestamp(coalesce("createdAt", ?) / 1000.0), 'YYYY-MM-DD HH24:MI:SS') FROM "stamp" ORDER BY "id""#,
                        [1_710_072_000_000])
                } else {
                    try expectSQL(
                        coalesced, db, #"SELECT datetime(coalesce("createdAt", ?) / 1000.0, ?) FROM "stamp" ORDER BY "id""#,
                        [1_710_072_000_000, "unixepoch"])
                }
                #expect(try coalesced.fetchAll(db) == ["2024-02-29 23:59:30", "2024-03-10 12:00:00"])

                // An operation is parenthesized before the division.
                let shifted = QueryExpression<MillisecondsStamp, Date>(sql: #""createdAt" + ?"#, arguments: [60_000])
                let later = MillisecondsStamp.select(dateTime(shifted)).order(\.id)
                if postgres {
                    try expectSQL(
                        later, db,
                        #"SELECT to_char(to_timestamp(("createdAt" + ?) / 1000.0), 'YYYY-MM-DD HH24:MI:SS') FROM "stamp" ORDER BY "id""#,
                        [60_000])
                } else {
                    try expectSQL(
                        later, db, #"SELECT datetime(("createdAt" + ?) / 1000.0, ?) FROM "stamp" ORDER BY "id""#, [60_000, "unixepoch"])
                }
                #expect(try later.fetchAll(db) == ["2024-03-01 00:00:30", "2024-03-10 12:01:00"])
                let handWritten = try String?.fetchAll(db, sql: postgres
                    ? #"""
                        SELECT to_char(TIMESTAMPTZ 'epoch' + ("createdAt" + 60000) * INTERVAL '1 millisecond', 'YYYY-MM-DD HH24:MI:SS')
                        FROM stamp ORDER BY id
                        """#
                    : "SELECT datetime((createdAt + 60000) / 1000.0, 'unixepoch') FROM stamp ORDER BY id")
                #expect(try later.fetchAll(db) == handWritten)
            }
        }
    }

    // MARK: - Failures

    /// SQLite returns NULL for a time value it cannot read: every function
    /// gives nil, by key path, expression or value. PostgreSQL refuses such
    /// text instead, and the statement throws; NULL gives nil on both.
    @Test(arguments: Backend.all)
    func invalidTimeValuesGiveNil(backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend)
                try db.execute(sql: "INSERT INTO stamp VALUES (1, 'not a date', NULL), (2, NULL, NULL)")
            }
            let byKeyPath = RawStamp.select(
                date(\.createdAt), time(\.createdAt), dateTime(\.createdAt), julianDay(\.createdAt),
                strftime("%Y", \.createdAt), unixEpoch(\.createdAt))
            let byExpression = RawStamp.select {
                (date($0.createdAt), time($0.createdAt), dateTime($0.createdAt), julianDay($0.createdAt),
                 strftime("%Y", $0.createdAt), unixEpoch($0.createdAt))
            }
            if backend.isPostgreSQL {
                // Each failing statement in an access of its own: a failed
                // statement aborts PostgreSQL's transaction.
                try writer.read { db throws in
                    #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try byKeyPath.fetchAll(db) } }
                }
                try writer.read { db throws in
                    #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try byExpression.fetchAll(db) } }
                }
                try writer.read { db throws in
                    #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try RawStamp.select(date("2024-13-45")).fetchAll(db) } }
                }
                try writer.read { db throws in
                    #expect(throws: DatabaseError.self) { try db.failingInSavepoint { try TextStamp.select(date(\.createdAt)).fetchAll(db) } }
                }
                try writer.read { db throws in
                    for row in try byKeyPath.filter(\.id == 2).fetchAll(db) {
                        #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
                    }
                    for row in try byExpression.filter(\.id == 2).fetchAll(db) {
                        #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
                    }
                    #expect(try RawStamp.filter(\.id == 2).filter(date(\.createdAt).isNull).fetchCount(db) == 1)
                }
                return
            }
            try writer.read { db throws in
                for row in try byKeyPath.fetchAll(db) {
                    #expect(row.0 == nil && row.1 == nil && row.2 == nil && row.3 == nil && row.4 == nil && row.5 == nil)
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
    }

    /// The results are optional: decoding nil into a non-optional property throws.
    @Test(arguments: Backend.all)
    func nilIntoNonOptionalThrows(backend: Backend) throws {
        struct Day: Decodable { var day: String }
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend)
                // The date of NULL is nil on both backends (PostgreSQL
                // refuses the invalid text that SQLite reads as nil).
                try db.execute(sql: backend.isPostgreSQL
                    ? "INSERT INTO stamp VALUES (1, NULL, NULL)"
                    : "INSERT INTO stamp VALUES (1, 'not a date', NULL)")
            }
            try writer.read { db throws in
                let request = RawStamp.all().select(named: [date(\RawStamp.createdAt).forKey("day")]).asRequest(of: Day.self)
                // The day is nil: decoding it into a `String` fails.
                let error = #expect(throws: RowDecodingError.self) { try request.fetchAll(db) }
                #expect("\(error.map { "\($0)" } ?? "")".contains("day"), "\(String(describing: error))")
            }
        }
    }

    /// Modifiers SQLite refuses, and a second 'unixepoch' after the one a
    /// numeric strategy adds, give nil on SQLite; on PostgreSQL they throw,
    /// naming the modifier, before the statement runs.
    @Test(arguments: Backend.all)
    func invalidModifiersGiveNil(backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend, postgresType: "DOUBLE PRECISION")
                try SecondsStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
            }
            try writer.read { db throws in
                let doubled = SecondsStamp.select(date(\.createdAt, .unixEpoch))
                if backend.isPostgreSQL {
                    let invalid: [(QueryRequest<SecondsStamp, String?>, String)] = [
                        (SecondsStamp.select(date(\.createdAt, .weekday(7))), "'weekday 7' needs a weekday from 0"),
                        (SecondsStamp.select(date(\.createdAt, .second(.nan))), "'nan seconds' needs a finite number"),
                        (SecondsStamp.select(date(\.createdAt, .second(.infinity))), "'inf seconds' needs a finite number"),
                        (doubled, "'unixepoch' must come right after the time value"),
                    ]
                    for (request, message) in invalid {
                        let error = #expect(throws: DatabaseError.self) { try request.fetchOne(db) }
                        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
                    }
                } else {
                    #expect(try SecondsStamp.select(date(\.createdAt, .weekday(7))).fetchOne(db) == .some(nil))
                    #expect(try SecondsStamp.select(date(\.createdAt, .second(.nan))).fetchOne(db) == .some(nil))
                    #expect(try SecondsStamp.select(date(\.createdAt, .second(.infinity))).fetchOne(db) == .some(nil))
                    try expectSQL(doubled, db, #"SELECT date("createdAt", ?, ?) FROM "stamp""#, ["unixepoch", "unixepoch"])
                    #expect(try doubled.fetchOne(db) == .some(nil))
                }
            }
        }
    }

    /// A key path that names no column makes the request throw, for every function.
    @Test(arguments: Backend.all)
    func keyPathWithoutColumnThrows(backend: Backend) throws {
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend, postgresType: "TIMESTAMPTZ")
            }
            try writer.read { db throws in
                let requests: [(String, () throws -> Void)] = [
                    ("date", { _ = try TextStamp.select(date(\.createdTomorrow)).fetchAll(db) }),
                    ("time", { _ = try TextStamp.select(time(\.createdTomorrow)).fetchAll(db) }),
                    ("dateTime", { _ = try TextStamp.select(dateTime(\.createdTomorrow)).fetchAll(db) }),
                    ("julianDay", { _ = try TextStamp.select(julianDay(\.createdTomorrow)).fetchAll(db) }),
                    ("strftime", { _ = try TextStamp.select(strftime("%Y", \.createdTomorrow)).fetchAll(db) }),
                    ("unixEpoch", { _ = try TextStamp.select(unixEpoch(\.createdTomorrow)).fetchAll(db) }),
                    ("filter", { _ = try TextStamp.filter(date(\.createdTomorrow) == "2024-01-01").fetchCount(db) }),
                ]
                for (function, request) in requests {
                    let error = #expect(throws: KeyPathColumnError.self, "\(function)") { try request() }
                    // A computed property (Swift prints no name for it).
                    #expect(error?.reason == "it is a computed property", "\(function): \(String(describing: error))")
                    #expect(error?.recordType == "TextStamp", "\(function): \(String(describing: error))")
                }
            }
        }
    }

    /// A strftime format is bound, never spliced: an injection payload is
    /// just text in the result, and the table survives. On PostgreSQL the
    /// bound to_char template quotes the text between substitutions.
    @Test(arguments: Backend.all)
    func strftimeFormatIsBound(backend: Backend) throws {
        let payload = #"%Y'); DROP TABLE stamp; --"\"#
        try backend.withWriter { writer in
            try writer.write { db throws in
                try createStampTable(db, backend, postgresType: "TIMESTAMPTZ")
                try TextStamp(id: 1, createdAt: leapEvening, note: nil).insert(db)
                let request = TextStamp.select(strftime(payload, \.createdAt)).filter(strftime(payload, \.createdAt) != "")
                if backend.isPostgreSQL {
                    let template = #"YYYY"'); DROP TABLE stamp; --\"\\""#
                    try expectSQL(
                        request, db,
                        #"SELECT to_char(CAST("createdAt" AS TIMESTAMPTZ), ?) FROM "stamp" WHERE to_char(CAST("createdAt" AS TIMESTAMPTZ), ?) <> ?"#,
                        [template, template, ""])
                } else {
                    try expectSQL(
                        request, db, #"SELECT strftime(?, "createdAt") FROM "stamp" WHERE strftime(?, "createdAt") <> ?"#,
                        [payload, payload, ""])
                }
                #expect(try request.fetchAll(db) == [#"2024'); DROP TABLE stamp; --"\"#])
                let valueRequest = TextStamp.select(strftime(payload, "2024-01-01"))
                #expect(try valueRequest.fetchAll(db) == [#"2024'); DROP TABLE stamp; --"\"#])
                #expect(try TextStamp.fetchCount(db) == 1)
                #expect(try db.tableExists("stamp"))
            }
        }
    }
}
