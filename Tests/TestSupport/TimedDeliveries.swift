// TimedDeliveries: a ValueObservation started with
// `start(in:onError:onChange:)` whose values are stamped with the time of
// their delivery, on the thread Quarry delivers them on. The latency bounds of
// the observation tests (foreign commits on SQLite, notifications on
// PostgreSQL) read these stamps, so that the time a test's own tasks wait for
// a cooperative thread (both of them held, on a 2-core machine, by the
// synchronous tests that run meanwhile) is not counted as Quarry's.

import Foundation
import Quarry
import Testing

public final class TimedDeliveries<Value: Sendable>: Sendable {
    public typealias Delivery = (value: Value, at: ContinuousClock.Instant)

    /// Guarded by an NSLock, not a `Mutex`: ThreadSanitizer does not see the
    /// ordering of a contended `Mutex` on Linux (scripts/tsan-suppressions.txt),
    /// and reported this state as raced between two holders of one.
    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (deliveries: [Delivery], error: (any Error)?, cancellable: AnyDatabaseCancellable?) = ([], nil, nil)
        func withLock<T>(_ body: (inout (deliveries: [Delivery], error: (any Error)?, cancellable: AnyDatabaseCancellable?)) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }
    private let state = State()

    public init(_ observation: ValueObservation<Value>, in reader: some DatabaseReader) {
        let state = self.state
        let started = observation.start(
            in: reader,
            onError: { error in state.withLock { $0.error = error } },
            onChange: { value in
                let now = ContinuousClock.now
                state.withLock { $0.deliveries.append((value, now)) }
            })
        state.withLock { $0.cancellable = started }
    }

    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    public var values: [Value] { deliveries.map(\.value) }
    public var error: (any Error)? { state.withLock { $0.error } }

    public func cancel() { state.withLock { $0.cancellable }?.cancel() }

    /// Waits (polling, up to `limit`: a hang guard) until `condition` holds
    /// for the values delivered so far, or the observation failed.
    public func wait(_ limit: Duration = .seconds(120), until condition: ([Value]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, !condition(values), error == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(values)
    }

    /// The time from `start` to the delivery of the first value for which
    /// `condition` holds (negative if it came before `start`); nil if none
    /// came within `limit` (a hang guard). The condition should match only
    /// values that the change made after `start` brings.
    public func latency(
        since start: ContinuousClock.Instant,
        _ limit: Duration = .seconds(120),
        until condition: @escaping (Value) -> Bool
    ) async -> Duration? {
        let arrival = { self.deliveries.first { condition($0.value) }?.at }
        _ = await wait(limit) { _ in arrival() != nil }
        return arrival().map { $0 - start }
    }
}

/// Runs `attempt` `attempts` times, one after the other, and returns what
/// each returned: the time Quarry took to deliver the change the attempt
/// made, or nil if it never came.
///
/// The latency tests expect every attempt to be delivered and the fastest
/// to be within their bound. On a 2-core machine the whole suite runs at
/// once, and one delivery can wait a second or more for a cooperative thread
/// that a synchronous test holds (the watcher and the refetch are tasks); a
/// watcher that is slow, or never notices, fails every attempt.
public func latencies(attempts: Int = 3, _ attempt: (Int) async throws -> Duration?) async rethrows -> [Duration?] {
    var measured: [Duration?] = []
    for index in 0..<attempts {
        measured.append(try await attempt(index))
    }
    return measured
}

/// Expects every latency `latencies(attempts:_:)` measured to have come,
/// and the fastest to be under `bound`.
public func expectEveryDelivery(
    _ measured: [Duration?], fastestUnder bound: Duration, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(measured.allSatisfy { $0 != nil }, "\(measured)", sourceLocation: sourceLocation)
    let fastest = try #require(measured.compactMap { $0 }.min(), sourceLocation: sourceLocation)
    #expect(fastest < bound, "noticed after \(measured)", sourceLocation: sourceLocation)
}
