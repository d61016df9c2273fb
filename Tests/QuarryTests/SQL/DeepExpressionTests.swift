// Regression tests: expressions built programmatically can be far deeper
// than SQLite accepts. Generating their SQL throws SQLITE_TOOBIG, and
// freeing them must not overflow the stack (the nested nodes were freed
// recursively, one stack frame per level).

import Foundation
import Quarry
import Testing

@Suite struct DeepExpressionTests {
    static let depth = 100_000

    @Test func deepArithmeticIsRefusedAndFreed() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try makeQueryFixtures(db) }
        try dbQueue.read { db in
            var expression = QueryExpression(\QPlayer.score)
            for _ in 0..<Self.depth { expression = expression + 1 }
            let error = try #require(throws: DatabaseError.self) { _ = try QPlayer.filter(expression > 0).fetchCount(db) }
            #expect(error.resultCode == .SQLITE_TOOBIG)
        }
        // Leaving the closure freed the 100,000 levels: reaching here is the test.
    }

    /// Built and freed on a thread with a 512 KiB stack, as small as a
    /// secondary thread's: a recursive free of 100,000 levels overflowed it.
    /// Async, so that waiting for the thread does not hold a thread of the
    /// cooperative pool (the concurrency tests need them).
    @Test func deepNotFunctionAndChainExpressionsAreFreedOnASmallStack() async throws {
        let depth = Self.depth
        let finished: Bool = await withCheckedContinuation { continuation in
            let thread = Thread {
                Self.buildAndFreeDeepExpressions(depth: depth)
                continuation.resume(returning: true)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(finished)
    }

    /// Builds four kinds of deep expressions; they are freed on return.
    private static func buildAndFreeDeepExpressions(depth: Int) {
        var condition = \QPlayer.score > 0
        for _ in 0..<depth { condition = !condition }
        var value = QueryExpression(\QPlayer.name)
        for _ in 0..<depth { value = value.lowercased }
        var chain = \QPlayer.score > 0
        for index in 0..<depth { chain = chain && \QPlayer.score != index }
        var cases = caseWhen([(\QPlayer.score > 0, 1)], otherwise: 0)
        for _ in 0..<depth { cases = caseWhen([(cases > 0, 1)], otherwise: 0) }
        withExtendedLifetime((condition, value, chain, cases)) {}
    }
}
