// QuarryTestSupport, shared by the test targets (QuarryTests,
// QuarryPostgresTests): the one small seeded random generator of the tests (SplitMix64,
// <https://prng.di.unimi.it/splitmix64.c>): the same seed gives the same
// sequence, so that a run can be replayed. HostileRandom seeds itself from it;
// the generated-query, crash and concurrency tests draw from it directly.
//
// The seeds come from the run's seed (TestSeed): QUARRY_TEST_SEED when set,
// else a fresh one, printed once ("QUARRY_TEST_SEED=… replays this run"), so
// that each CI run tries new values and a failing one can be replayed.

import Foundation

/// SplitMix64: a small seeded random generator, for tests only.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seed of a run's randomized tests: `QUARRY_TEST_SEED` (decimal or
/// 0x-hexadecimal) to replay a run, else a fresh random one. Printed once,
/// when the first randomized test draws from it.
public enum TestSeed {
    public static let run: UInt64 = {
        let seed: UInt64
        if let text = ProcessInfo.processInfo.environment["QUARRY_TEST_SEED"], !text.isEmpty {
            guard let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text) else {
                fatalError("QUARRY_TEST_SEED=\(text) is not a number (decimal, or hexadecimal with 0x)")
            }
            seed = parsed
        } else {
            seed = UInt64.random(in: 1...UInt64(Int64.max))
        }
        print("QUARRY_TEST_SEED=\(seed) replays this run's randomized tests")
        return seed
    }()

    /// A seed of its own for `name` (a test, a stream of a test), from the
    /// run's seed: each draws its own sequence and can be replayed alone.
    public static func derived(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return run ^ hash
    }

    /// A note for failure messages: how to replay the run.
    public static var replay: String { "replay with QUARRY_TEST_SEED=\(run)" }
}
