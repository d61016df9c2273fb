// BoundedAwait: waits for an operation at most a given time, even when the
// operation ignores cancellation (a PostgresNIO query on a connection whose
// network went silent never ends until the connection closes). The operation
// runs in a task of its own; when the bound passes first, the wait throws at
// once and the task is left behind, not cancelled (a connect cancelled as it
// completes could drop its new connection unclosed): the caller closes what
// the task waits on (the session), which ends it. A result that comes too
// late is handed to `discardingLate`, so that nothing it holds leaks.

import Synchronization

/// Runs `operation` in a task of its own and returns its result, or throws
/// `timeoutError()` once `limit` has passed, without waiting for it any
/// longer (the operation goes on: end it by closing what it waits on).
/// Cancelling the calling task cancels the operation and throws
/// `CancellationError` at once.
///
/// - Parameters:
///   - limit: The longest wait.
///   - timeoutError: The error thrown when `limit` passes first.
///   - discardingLate: Receives a result that the operation returns after
///     the wait ended (to close it).
///   - operation: The work.
func awaitResult<T: Sendable>(
    within limit: Duration,
    timeoutError: @escaping @Sendable () -> any Error,
    discardingLate: @escaping @Sendable (T) async -> Void = { _ in },
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<T>()
    let work = Task {
        let result: Result<T, any Error>
        do {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        if !outcome.complete(result), case .success(let late) = result {
            await discardingLate(late)
        }
    }
    let timer = Task {
        do {
            try await Task.sleep(for: limit)
        } catch {
            return
        }
        outcome.complete(.failure(timeoutError()))
    }
    defer { timer.cancel() }
    let result = await withTaskCancellationHandler {
        await withCheckedContinuation { outcome.install($0) }
    } onCancel: {
        if outcome.complete(.failure(CancellationError())) { work.cancel() }
    }
    return try result.get()
}

/// The first of the operation's result, the time out and the caller's
/// cancellation; resumes the waiting continuation once.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<T, any Error>, Never>?
        var early: Result<T, any Error>?
        var isComplete = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Result<T, any Error>, Never>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Whether this call came first (and decided the outcome).
    @discardableResult
    func complete(_ result: Result<T, any Error>) -> Bool {
        let (first, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Result<T, any Error>, Never>?) in
            guard !state.isComplete else { return (false, nil) }
            state.isComplete = true
            guard let continuation = state.continuation else {
                state.early = result
                return (true, nil)
            }
            state.continuation = nil
            return (true, continuation)
        }
        continuation?.resume(returning: result)
        return first
    }
}
