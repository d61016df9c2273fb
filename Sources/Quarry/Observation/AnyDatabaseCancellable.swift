// AnyDatabaseCancellable: stops an observation when cancelled or deallocated.

import Synchronization

/// Stops what it was made for (an observation) when ``cancel()`` is called or
/// when it is deallocated.
public final class AnyDatabaseCancellable: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>

    /// Makes a cancellable that runs `cancel` once, when cancelled or deallocated.
    public init(cancel: @escaping @Sendable () -> Void) {
        action = Mutex(cancel)
    }

    deinit { cancel() }

    /// Stops the observation; later calls do nothing.
    public func cancel() {
        let cancel = action.withLock { action in
            defer { action = nil }
            return action
        }
        cancel?()
    }
}
