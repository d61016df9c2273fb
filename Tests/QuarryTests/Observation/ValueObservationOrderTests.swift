// Observed values follow the database's timeline (issue 46): a value is never
// delivered after a newer one, and callbacks never overlap. A test seam of
// ValueObserver forces the interleaving that broke it (a commit while a value
// is on its way out); a stress test with 8 writers checks the same under
// load, on a queue and a pool. QUARRY_LONG_TESTS=1 runs the stress 200 times.

import Foundation
@testable import Quarry
import Synchronization
import Testing

private let itemCount = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? -1 }

private func makeItems(_ kind: WriterKind, _ directory: TemporaryDirectory) async throws -> any DatabaseWriter {
    let writer = try kind.make(in: directory)
    try await writer.write { db throws in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, writer INTEGER)") }
    return writer
}

/// The delivered values, guarded by an NSLock rather than a `Mutex`: TSan
/// does not see the ordering of a contended `Mutex` on Linux (see
/// scripts/tsan-suppressions.txt) and would report a false race.
private final class DeliveredValues: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []

    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}

@Suite("ValueObservation: values follow the database's timeline")
struct ValueObservationOrderTests {
    @Test("a commit made while a value is on its way out is delivered after that value, never before", arguments: WriterKind.allCases)
    func commitWhileDelivering(kind: WriterKind) async throws {
        let directory = try TemporaryDirectory()
        let writer = try await makeItems(kind, directory)
        let delivered = DeliveredValues()
        let held = Atomic<Bool>(false)
        let observer = ValueObserver(observation: itemCount, reader: writer, willDeliver: { value in
            // Once, while 1 is on its way out: commit a second row, and give
            // a fetch of that commit every chance (up to 1 s) to deliver 2
            // first, as it did when a fetch ended before its value was out.
            guard value == 1, !held.exchange(true, ordering: .relaxed) else { return }
            do {
                try await writer.write { db throws in try db.execute(sql: "INSERT INTO item (writer) VALUES (0)") }
            } catch {
                Issue.record(error)
            }
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline, !delivered.all.contains(2) {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }, output: { output in
            switch output {
            case .value(let value): delivered.append(value)
            case .failure(let error): Issue.record(error)
            case .finished: break
            }
        })
        observer.start()
        defer { observer.cancel() }
        #expect(await waitUntilReleased { delivered.all == [0] })
        try await writer.write { db throws in try db.execute(sql: "INSERT INTO item (writer) VALUES (0)") }
        #expect(await waitUntilReleased { delivered.all.contains(2) && delivered.all.contains(1) })
        let wasHeld = held.load(ordering: .relaxed)
        #expect(wasHeld)
        #expect(delivered.all == [0, 1, 2])
    }

    /// 8 writers commit `commitsPerWriter` single-row inserts each; the
    /// observed count, delivered to a callback that is sometimes slow, must
    /// never decrease, the callbacks must never overlap, and the last value
    /// must be the final count.
    @Test("8 concurrent writers: delivered values never go back, callbacks never overlap, the last is the final state", arguments: WriterKind.allCases)
    func stressEightWriters(kind: WriterKind) async throws {
        let runs = HostileTestSettings.isLong ? 200 : 3
        let writers = 8
        let commitsPerWriter = 25
        for run in 0..<runs {
            let directory = try TemporaryDirectory()
            let writer = try await makeItems(kind, directory)
            let delivered = DeliveredValues()
            let inCallback = Atomic<Int>(0)
            let overlaps = Atomic<Int>(0)
            let cancellable = itemCount.start(in: writer, onError: { error in Issue.record(error) }, onChange: { value in
                if inCallback.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlaps.add(1, ordering: .relaxed)
                }
                delivered.append(value)
                // A slow consumer now and then: widens the time a value is
                // on its way out, while the writers go on committing.
                if value % 5 == 0 { usleep(300) }
                inCallback.subtract(1, ordering: .sequentiallyConsistent)
            })
            #expect(await waitUntilReleased { !delivered.all.isEmpty })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writerIndex in 0..<writers {
                    group.addTask {
                        for _ in 0..<commitsPerWriter {
                            try await writer.write { db throws in
                                try db.execute(sql: "INSERT INTO item (writer) VALUES (?)", arguments: [writerIndex])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let final = writers * commitsPerWriter
            let reached = await waitUntilReleased { delivered.all.last == final }
            cancellable.cancel()
            let values = delivered.all
            let backwards = zip(values, values.dropFirst()).filter { $0.1 < $0.0 }
            #expect(reached, "run \(run): last value \(String(describing: values.last)), database \(final)")
            #expect(backwards.isEmpty, "run \(run) on a \(kind): values went back: \(backwards.prefix(5)) in \(values.count) values")
            let overlapCount = overlaps.load(ordering: .relaxed)
            #expect(overlapCount == 0, "run \(run) on a \(kind): callbacks overlapped \(overlapCount) times")
            if !reached || !backwards.isEmpty { break }
        }
    }
}
