// A seeded random generator and generators of hostile values (nasty strings,
// blobs, integer and floating-point edges, dates, UUIDs) for the property-based
// tests in Reliability/. The seed is the run's (TestSeed: QUARRY_TEST_SEED, or
// a fresh one, printed once); every failure message of those tests prints it.

import Foundation
import Testing
import QuarryTestSupport

/// A deterministic random number generator: xoshiro256** seeded through
/// SplitMix64 (<https://prng.di.unimi.it>). Never use it for anything but tests.
struct HostileRandom: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// The seed this generator started from.
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
        var splitMix = SeededGenerator(state: seed)
        state = (splitMix.next(), splitMix.next(), splitMix.next(), splitMix.next())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A generator for one property: the run's seed mixed with the property's
    /// name, so that each property draws its own sequence and can be replayed alone.
    static func forProperty(_ name: String) -> HostileRandom {
        HostileRandom(seed: TestSeed.derived(name))
    }
}

/// The settings of the hostile-input tests, from the environment.
enum HostileTestSettings {
    /// The run's seed: `QUARRY_TEST_SEED`, or a fresh one (see `TestSeed`).
    static var seed: UInt64 { TestSeed.run }

    /// Whether `QUARRY_LONG_TESTS=1`.
    static let isLong = ProcessInfo.processInfo.environment["QUARRY_LONG_TESTS"] == "1"

    /// Iterations of one property: a few hundred in CI, more in long mode.
    static func iterations(_ ciCount: Int = 300) -> Int { isLong ? ciCount * 20 : ciCount }

    /// A note for failure messages: how to replay the run.
    static var replay: String { TestSeed.replay }

    /// The most time a property loop may take before it stops early. Each
    /// loop must still reach its CI count of iterations within it (a few
    /// seconds on an idle machine; generous for two busy cores under the
    /// sanitizers), or the test fails.
    static var timeCap: Duration { isLong ? .seconds(900) : .seconds(180) }
}

/// Generators of hostile values. Lone surrogates cannot be generated: a Swift
/// `String` always holds valid Unicode, so SQLite only ever receives valid UTF-8
/// from Quarry (invalid UTF-8 can only come from the database itself; see
/// GarbageDecodingTests).
extension HostileRandom {
    /// Pieces that nasty strings are assembled from.
    static let nastyPieces: [String] = [
        "a", "Z", "0", "9", " ", "  ", "\t", "\n", "\r\n",
        "'", "''", "\"", "`", "\\", "\\'", "\\\"", "%", "_", "%_", "*", "?", "[", "]", "[*]", "^", "!", "-",
        ";", "--", "/*", "*/", ":", "@", "$", "?1", ":name", "(", ")", ",", "=",
        "\u{0}", "\u{1}", "\u{7F}", "\u{80}", "\u{FFFD}", "\u{FEFF}", "\u{200B}",
        "é", "e\u{301}", "\u{301}", "a\u{308}\u{302}", "ß", "İ", "ǅ",
        "😀", "👍🏽", "👩‍👩‍👧‍👦", "🇫🇷", "🏳️‍🌈", "\u{1F468}\u{200D}\u{1F4BB}",
        "שלום", "مرحبا", "\u{202E}", "\u{200F}", "日本語", "한국어", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\u{10FFFF}",
        "NULL", "null", "SELECT", "DROP TABLE", "OR 1=1",
    ]

    /// A string of up to `maxPieces` random pieces and random scalars.
    mutating func nastyString(maxPieces: Int = 12, allowNUL: Bool = true) -> String {
        var text = ""
        let count = Int.random(in: 0...maxPieces, using: &self)
        for _ in 0..<count {
            if Int.random(in: 0..<5, using: &self) == 0 {
                text.unicodeScalars.append(randomScalar())
            } else {
                text += Self.nastyPieces.randomElement(using: &self) ?? ""
            }
        }
        if !allowNUL { text.removeAll { $0 == "\u{0}" } }
        return text
    }

    /// Any Unicode scalar value (never a surrogate: those are not scalars).
    mutating func randomScalar() -> Unicode.Scalar {
        let ranges: [ClosedRange<UInt32>] = [0x0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        let range = ranges.randomElement(using: &self) ?? 0x20...0x7E
        return Unicode.Scalar(UInt32.random(in: range, using: &self)) ?? "?"
    }

    /// Random bytes, sometimes empty, sometimes with runs of zeros.
    mutating func blob(maxCount: Int = 64) -> Data {
        let count = Int.random(in: 0...maxCount, using: &self)
        var bytes = [UInt8](repeating: 0, count: count)
        if Bool.random(using: &self) {
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &self) }
        }
        return Data(bytes)
    }

    /// An Int64 close to an edge half of the time.
    mutating func int64() -> Int64 {
        let edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max, Int64(Int32.min), Int64(Int32.max), 1 << 53, -(1 << 53) - 1]
        if Bool.random(using: &self) { return edges.randomElement(using: &self) ?? 0 }
        return Int64.random(in: .min ... .max, using: &self)
    }

    /// A finite Double, often an edge: ±0, subnormals, extremes, 2^53 + 1.
    mutating func finiteDouble() -> Double {
        let edges: [Double] = [
            0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1, 1e-300, 9_007_199_254_740_994, .pi, -1.5,
        ]
        if Bool.random(using: &self) { return edges.randomElement(using: &self) ?? 0 }
        // Random bit patterns cover every exponent; NaN and infinities are skipped.
        while true {
            let value = Double(bitPattern: next())
            if value.isFinite { return value }
        }
    }

    /// A date between the years 0001 and 9999, often an edge, with a random
    /// fractional second.
    mutating func date() -> Date {
        let edges: [Double] = [
            -62_135_596_800,  // 0001-01-01 00:00:00
            -2_208_988_800,  // 1900-01-01
            -0.001, 0, 0.0005, 951_782_400,  // 2000-02-29
            253_402_300_799.999,  // 9999-12-31 23:59:59.999
        ]
        if Int.random(in: 0..<3, using: &self) == 0 { return Date(timeIntervalSince1970: edges.randomElement(using: &self) ?? 0) }
        let seconds = Double(Int64.random(in: -62_135_596_800...253_402_300_799, using: &self))
        return Date(timeIntervalSince1970: seconds + Double.random(in: 0..<1, using: &self))
    }

    /// A random UUID (any bits, not only version 4).
    mutating func uuid() -> UUID {
        let a = next(), b = next()
        func byte(_ word: UInt64, _ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> (index * 8)) }
        return UUID(uuid: (
            byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5), byte(a, 6), byte(a, 7),
            byte(b, 0), byte(b, 1), byte(b, 2), byte(b, 3), byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)))
    }
}

/// Runs `body` `HostileTestSettings.iterations(minimum)` times (`minimum`
/// in CI, 20 times more in long mode) or until the time cap, and returns how
/// many iterations ran. Fails the test unless at least `minimum` ran: a loop
/// stopped early by the cap must not pass on a handful of iterations.
@discardableResult
func runProperty(
    _ minimum: Int = 300, sourceLocation: SourceLocation = #_sourceLocation, _ body: (Int) throws -> Void
) rethrows -> Int {
    let count = HostileTestSettings.iterations(minimum)
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = start + HostileTestSettings.timeCap
    var done = 0
    while done < count, clock.now < deadline {
        try body(done)
        done += 1
    }
    if done < minimum {
        Issue.record(
            """
            the property ran \(done) of its \(minimum) required iterations before the \(HostileTestSettings.timeCap) time cap \
            (\(clock.now - start)) — \(HostileTestSettings.replay)
            """, sourceLocation: sourceLocation)
    }
    return done
}
