// Runs a fault test's timed part on a thread of its own. Swift Testing runs
// the synchronous tests of other suites on the cooperative pool's threads
// (two on a 2-core machine), which can hold them for tens of seconds; a
// `Task.sleep` or a resumed continuation then comes late, and a duration
// measured across it says nothing about Quarry. A thread of its own, with
// the synchronous pool API, measures what the pool does. The bounded form
// fails a test whose thread hangs, instead of hanging the run.

import Foundation

/// Runs `body` on a new thread and returns its result (or error).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Runs `body` on a new thread like ``onOwnThread(_:)``, and waits for it at
/// most `limit`: a body that hangs (a writer that never returns) throws
/// ``BoundedWaitTimeout`` naming `what`, which fails the test instead of
/// hanging the run. The hung thread is left behind.
func onOwnThread<T: Sendable>(
    within limit: Duration, _ what: String, _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    try await within(limit, what) { try await onOwnThread(body) }
}

/// The time from now until `attempt` first returns true, trying every 20 ms
/// on the calling thread; nil after `limit`.
func timeUntil(limit: Duration = .seconds(30), _ attempt: () -> Bool) -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        if attempt() { return clock.now - start }
        usleep(20_000)
    }
    return nil
}
