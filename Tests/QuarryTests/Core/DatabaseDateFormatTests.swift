// Tests of the date text format: formatting, parsing variants, far dates, and refusals.

import Foundation
import Quarry
import Testing

@Suite struct DatabaseDateFormatTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(DatabaseDateFormat.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000")
        #expect(DatabaseDateFormat.string(from: Date(timeIntervalSince1970: -0.001)) == "1969-12-31 23:59:59.999")
        #expect(DatabaseDateFormat.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29 00:00:00.000")
        #expect(DatabaseDateFormat.string(from: Date(timeIntervalSince1970: 1.9996)) == "1970-01-01 00:00:02.000")
    }

    @Test func farPastAndFuture() throws {
        // Year 1 and year 9999 stay in the sortable four-digit form.
        let early = try #require(DatabaseDateFormat.date(from: "0001-01-01 00:00:00.000"))
        #expect(DatabaseDateFormat.string(from: early) == "0001-01-01 00:00:00.000")
        let late = try #require(DatabaseDateFormat.date(from: "9999-12-31 23:59:59.999"))
        #expect(DatabaseDateFormat.string(from: late) == "9999-12-31 23:59:59.999")
        #expect(DatabaseDateFormat.string(from: early) < DatabaseDateFormat.string(from: late))
        // Outside 0000...9999 the year gets a sign or more digits, and still round-trips.
        let beyond = Date(timeIntervalSince1970: 400_000_000_000)
        let text = DatabaseDateFormat.string(from: beyond)
        #expect(text.hasPrefix("14645-"))
        #expect(DatabaseDateFormat.date(from: text) == beyond)
        let before = Date(timeIntervalSince1970: -70_000_000_000)
        #expect(DatabaseDateFormat.string(from: before).hasPrefix("-0249-"))
        #expect(DatabaseDateFormat.date(from: DatabaseDateFormat.string(from: before)) == before)
    }

    @Test func parsesVariants() {
        let expected = Date(timeIntervalSince1970: 1_230_768_000)  // 2009-01-01 00:00:00 UTC
        #expect(DatabaseDateFormat.date(from: "2009-01-01") == expected)
        #expect(DatabaseDateFormat.date(from: "2009-01-01 00:00") == expected)
        #expect(DatabaseDateFormat.date(from: "2009-01-01T00:00:00Z") == expected)
        #expect(DatabaseDateFormat.date(from: "2009-01-01T02:00:00+02:00") == expected)
        #expect(DatabaseDateFormat.date(from: "2008-12-31T19:30:00-04:30") == expected)
        #expect(DatabaseDateFormat.date(from: "2009-01-01 00:00:00.5")?.timeIntervalSince1970 == 1_230_768_000.5)
    }

    @Test func refusesGarbage() {
        for text in ["", "2009", "2009-13-01", "2009-01-32", "2009-01-01 25:00", "2009-01-01 00:00:00 junk", "abc", "2009-01-01T"] {
            #expect(DatabaseDateFormat.date(from: text) == nil, "\(text) should not parse")
        }
    }
}
