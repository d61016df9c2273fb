// Tests of the cancel-request gate of a PostgreSQL connection
// (PostgresServerConnection.swift, `RunningStatement`): a request in flight
// holds the connection's next statement for its bound only, and no lock is
// held across the request's round trip. No server needed.

import Dispatch
import Foundation
@testable import QuarryPostgres
import Testing

@Suite struct PostgresServerConnectionTests {
    @Test func aSlowCancelRequestHoldsTheNextStatementForItsBoundOnly() throws {
        let running = RunningStatement()
        running.start()
        let target = try #require(running.current)
        let inRoundTrip = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            running.whileCancelling(target, gateTimeout: .milliseconds(300)) {
                inRoundTrip.signal()
                // A round trip that outlives its bound.
                _ = finish.wait(timeout: .now() + 10)
            }
            done.signal()
        }
        thread.start()
        #expect(inRoundTrip.wait(timeout: .now() + 10) == .success)
        // Reading the running statement (as interrupt() does, under its
        // pool's lock) does not wait for the round trip.
        let read = ContinuousClock.now
        #expect(running.current == target)
        #expect(ContinuousClock.now - read < .seconds(1))
        // A second request for the same statement is not sent while one is in flight.
        #expect(!running.whileCancelling(target, gateTimeout: .seconds(1)) { Issue.record("sent twice") })
        running.end()
        // The next statement waits for the request, up to its bound.
        let start = ContinuousClock.now
        running.start()
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(250), "\(waited)")
        #expect(waited < .seconds(5), "\(waited)")
        // The late request no longer targets the running statement.
        finish.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(running.current == target + 1)
        #expect(!running.whileCancelling(target, gateTimeout: .seconds(1)) { Issue.record("sent for an ended statement") })
    }

    @Test func aRequestThatArrivesAfterItsStatementEndedIsNotSent() {
        let running = RunningStatement()
        running.start()
        let target = running.current
        running.end()
        #expect(running.current == nil)
        var sent = false
        #expect(!running.whileCancelling(target ?? 0, gateTimeout: .seconds(1)) { sent = true })
        #expect(!sent)
        // Nothing holds the next statement.
        let start = ContinuousClock.now
        running.start()
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
