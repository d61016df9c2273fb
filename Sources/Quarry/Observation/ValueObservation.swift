// ValueObservation: a fetch that runs again after each commit that may change
// its result, delivered as an async sequence or to callbacks.

/// An observation of a value fetched from the database: the value now, then
/// a fresh value after each commit that may have changed it.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try Player.filter(\.teamID == teamID).fetchAll(db)
/// }
/// for try await players in observation.values(in: dbPool) {
///     render(players)   // the players now, then after each relevant commit
/// }
/// ```
///
/// The region of the database the fetch reads (tables and columns) is
/// recorded while it runs (see ``Database/recordingRegion(_:)``): commits that
/// change other tables or columns produce nothing. After any burst of writes
/// stops, the last value delivered is the value a fresh fetch returns: no
/// commit is missed, though the values of commits that follow each other
/// quickly may be merged into one.
///
/// On a ``DatabasePool``, the fetch runs on a reader, after the commit, so it
/// never holds up the writer. On a ``DatabaseQueue``, it waits for the
/// current access of the queue to end.
///
/// Differences from GRDB: the type has one generic parameter, the value;
/// there is no scheduler parameter (values arrive on the sequence, or on the
/// callbacks of ``start(in:onError:onChange:)`` one at a time, in order).
public struct ValueObservation<Value: Sendable>: Sendable {
    let fetch: @Sendable (Database) throws -> Value
    let isDuplicate: (@Sendable (Value, Value) -> Bool)?

    /// Observes the value `fetch` returns.
    ///
    /// `fetch` runs in a read access, once at the start and again after each
    /// commit that touched what it read. It should read the database only
    /// (its writes would be refused on a pool reader).
    public static func tracking(_ fetch: @escaping @Sendable (Database) throws -> Value) -> ValueObservation<Value> {
        ValueObservation(fetch: fetch, isDuplicate: nil)
    }

    /// The same observation, without the values `isDuplicate` says are equal
    /// to the value delivered before them.
    public func removeDuplicates(by isDuplicate: @escaping @Sendable (Value, Value) -> Bool) -> ValueObservation<Value> {
        ValueObservation(fetch: fetch, isDuplicate: isDuplicate)
    }

    /// The values of the observation, as an async sequence.
    ///
    /// Iteration starts the observation; ending it (breaking out of the loop,
    /// or cancelling the task that iterates) stops the observation and
    /// releases everything it holds. An error of the fetch ends the sequence
    /// by throwing it.
    ///
    /// - parameters:
    ///   - reader: the database to observe: a ``DatabaseQueue`` or a
    ///     ``DatabasePool``.
    ///   - bufferingPolicy: what happens to values that arrive faster than the
    ///     loop consumes them; `.bufferingNewest(1)` keeps only the latest, as
    ///     a screen or an event stream needs.
    public func values(
        in reader: some DatabaseReader,
        bufferingPolicy: AsyncValueObservation<Value>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Value> {
        AsyncValueObservation(observation: self, reader: reader, bufferingPolicy: bufferingPolicy)
    }

    /// Starts the observation, calling `onChange` with each value and
    /// `onError` if a fetch fails (the observation then stops).
    ///
    /// The callbacks are called one at a time, in order, on a thread of
    /// Quarry's choosing. The observation runs until the returned value is
    /// cancelled or deallocated: keep it.
    ///
    /// ```swift
    /// let cancellable = ValueObservation.tracking { db in try Book.fetchCount(db) }
    ///     .start(in: dbQueue, onError: { error in log(error) }, onChange: { count in publish(count) })
    /// ```
    public func start(
        in reader: some DatabaseReader,
        onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Value) -> Void
    ) -> AnyDatabaseCancellable {
        let observer = ValueObserver(observation: self, reader: reader) { output in
            switch output {
            case .value(let value): onChange(value)
            case .failure(let error): onError(error)
            case .finished: break
            }
        }
        observer.start()
        return AnyDatabaseCancellable { observer.cancel() }
    }
}

extension ValueObservation where Value: Equatable {
    /// The same observation, without values equal to the value delivered
    /// before them.
    public func removeDuplicates() -> ValueObservation<Value> {
        removeDuplicates(by: ==)
    }
}
