// AsyncValueObservation: the values of a ValueObservation as an AsyncSequence.
// Each iterator runs its own observation, which stops when the iterator is
// released or its task is cancelled.

/// The values of a ``ValueObservation``, from
/// ``ValueObservation/values(in:bufferingPolicy:)``.
public struct AsyncValueObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias Failure = any Error

    /// What happens to values that arrive faster than they are consumed.
    public typealias BufferingPolicy = AsyncThrowingStream<Value, any Error>.Continuation.BufferingPolicy

    let observation: ValueObservation<Value>
    let reader: any DatabaseReader
    let bufferingPolicy: BufferingPolicy

    /// Starts the observation.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Value, any Error>.makeStream(bufferingPolicy: bufferingPolicy)
        let observer = ValueObserver(observation: observation, reader: reader) { output in
            switch output {
            case .value(let value): continuation.yield(value)
            case .failure(let error): continuation.finish(throwing: error)
            case .finished: continuation.finish()
            }
        }
        // Weak: the continuation must not keep the observer alive.
        continuation.onTermination = { [weak observer] _ in observer?.cancel() }
        observer.start()
        return Iterator(base: stream.makeAsyncIterator(), cancellable: AnyDatabaseCancellable { observer.cancel() })
    }

    /// Iterates the values; releasing it stops the observation.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.Iterator
        let cancellable: AnyDatabaseCancellable

        /// The next value, or nil once the observation stopped.
        public mutating func next() async throws -> Value? {
            try await base.next()
        }
    }
}
