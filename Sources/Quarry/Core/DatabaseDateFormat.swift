// DatabaseDateFormat: the text format Quarry stores dates in, and its parser.
//
// Dates are stored as UTC text "YYYY-MM-DD HH:MM:SS.SSS", the format SQLite's
// date and time functions read (https://www.sqlite.org/lang_datefunc.html),
// which sorts chronologically as text for the years 0000 to 9999. The
// conversion is hand-written integer arithmetic: no DateFormatter, no locale,
// no shared mutable state, so it is fast and thread-safe.

import Foundation

/// Formats and parses the text form of dates in the database.
///
/// - Writing: `Date` is stored as `"YYYY-MM-DD HH:MM:SS.SSS"` in UTC, with
///   millisecond precision (sub-millisecond digits are rounded away). Years
///   outside 0000...9999 are written with a sign or more digits; such texts do
///   not sort chronologically and SQLite's date functions do not read them.
/// - Reading: the same format, and its variants `YYYY-MM-DD`,
///   `YYYY-MM-DD HH:MM`, `YYYY-MM-DDTHH:MM:SS`, any number of fractional digits,
///   and a trailing `Z` or `±HH:MM` offset; years of more than nine digits
///   are refused (nil). Integers and reals are read as
///   seconds since 1970-01-01 00:00:00 UTC (Unix time).
public enum DatabaseDateFormat {
    /// The text Quarry stores for `date`.
    public static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Dates beyond ±292 million years do not fit: clamp them.
        let limit = 9.2e18
        let total = milliseconds.isNaN ? 0 : Int64(min(max(milliseconds, -limit), limit))
        let millis = Int(total.modulo(1000))
        let seconds = total.floorDivided(by: 1000)
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = Int(seconds.modulo(86_400))
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        var text = ""
        text.reserveCapacity(23)
        if year < 0 { text += "-" }
        text += pad(Int(year.magnitude), 4)
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += " " + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        text += "." + pad(millis, 3)
        return text
    }

    /// The date in `string`, or nil if it is not in one of the accepted formats.
    public static func date(from string: String) -> Date? {
        var parser = Parser(Array(string.utf8))
        return parser.parseDate()
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
    /// The algorithm is the classic "civil from days" era computation.
    static func civilDate(fromDaysSinceEpoch days: Int64) -> (year: Int64, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// A proleptic Gregorian (year, month, day) to days since 1970-01-01.
    static func daysSinceEpoch(year: Int64, month: Int, day: Int) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = adjustedYear.floorDivided(by: 400)
        let yearOfEra = adjustedYear - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// A small cursor over the UTF-8 bytes of a date text.
    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { position >= bytes.count }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard !isAtEnd, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Reads exactly `count` digits, or at least `count` if `orMore`.
        mutating func number(digits count: Int, orMore: Bool = false) -> Int64? {
            var value: Int64 = 0
            var read = 0
            while !isAtEnd, bytes[position] >= 48, bytes[position] <= 57, orMore || read < count {
                guard read < 18 else { return nil }
                value = value * 10 + Int64(bytes[position] - 48)
                position += 1
                read += 1
            }
            return read >= count ? value : nil
        }

        mutating func parseDate() -> Date? {
            let negative = consume(UInt8(ascii: "-"))
            guard let rawYear = number(digits: 4, orMore: true),
                consume(UInt8(ascii: "-")), let month = number(digits: 2), (1...12).contains(month),
                consume(UInt8(ascii: "-")), let day = number(digits: 2), (1...31).contains(day)
            else { return nil }
            // Quarry writes years up to about ±292 million; larger ones would
            // overflow the arithmetic below.
            guard rawYear <= 999_999_999 else { return nil }
            let year = negative ? -rawYear : rawYear
            var seconds = DatabaseDateFormat.daysSinceEpoch(year: year, month: Int(month), day: Int(day)) * 86_400
            var fraction = 0.0
            if consume(UInt8(ascii: " ")) || consume(UInt8(ascii: "T")) {
                guard let hour = number(digits: 2), hour < 24,
                    consume(UInt8(ascii: ":")), let minute = number(digits: 2), minute < 60
                else { return nil }
                seconds += hour * 3600 + minute * 60
                if consume(UInt8(ascii: ":")) {
                    guard let second = number(digits: 2), second < 61 else { return nil }
                    seconds += second
                    if consume(UInt8(ascii: ".")) {
                        let start = position
                        guard number(digits: 1, orMore: true) != nil || position - start > 0 else { return nil }
                        var scale = 0.1
                        for byte in bytes[start..<position] {
                            fraction += Double(byte - 48) * scale
                            scale /= 10
                        }
                    }
                }
                if consume(UInt8(ascii: "Z")) {
                    // UTC
                } else if !isAtEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    let sign: Int64 = bytes[position] == UInt8(ascii: "+") ? 1 : -1
                    position += 1
                    guard let offsetHours = number(digits: 2), consume(UInt8(ascii: ":")),
                        let offsetMinutes = number(digits: 2)
                    else { return nil }
                    seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60)
                }
            }
            guard isAtEnd else { return nil }
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDivided(by:)``, always in `0..<divisor`.
    fileprivate func modulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
