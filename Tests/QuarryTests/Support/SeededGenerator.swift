// The one small seeded random generator of the tests (SplitMix64,
// <https://prng.di.unimi.it/splitmix64.c>): the same seed gives the same
// sequence, so that a run can be replayed. HostileRandom seeds itself from it;
// the generated-query, crash and concurrency tests draw from it directly.

/// SplitMix64: a small seeded random generator, for tests only.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
