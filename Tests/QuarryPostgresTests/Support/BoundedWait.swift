// A bounded wait for the PostgreSQL fault tests: `within(.seconds(2)) { ... }`
// returns the operation's result, or throws `BoundedWaitTimeout` when it takes
// longer, even when the operation ignores cancellation (a query on a
// blackholed connection does), so that no test can hang.

import Synchronization

/// The operation of ``within(_:_:_:)`` took longer than its bound.
struct BoundedWaitTimeout: Error, CustomStringConvertible {
    var what: String
    var limit: Duration
    var description: String { "\(what): no result within \(limit)" }
}

/// Runs `operation` in a task of its own and waits for it at most `limit`.
/// On timeout, the task is cancelled and left behind (it may still be running:
/// it no longer matters to the caller) and this throws ``BoundedWaitTimeout``.
func within<T: Sendable>(
    _ limit: Duration, _ what: String = "operation", _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let waiter = OnceWaiter<T>()
    return try await withCheckedThrowingContinuation { continuation in
        waiter.install(continuation)
        let work = Task {
            do {
                waiter.complete(.success(try await operation()))
            } catch {
                waiter.complete(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: limit)
            if waiter.complete(.failure(BoundedWaitTimeout(what: what, limit: limit))) {
                work.cancel()
            }
        }
    }
}

/// A continuation resumed once, by the first of the operation and the timer.
private final class OnceWaiter<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var isDone = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Whether this call was the first to complete.
    @discardableResult
    func complete(_ result: Result<T, any Error>) -> Bool {
        let (first, continuation) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            guard !state.isDone else { return (false, nil) }
            state.isDone = true
            if let continuation = state.continuation {
                state.continuation = nil
                return (true, continuation)
            }
            state.early = result
            return (true, nil)
        }
        continuation?.resume(with: result)
        return first
    }
}
