// Tests of ServerTransactionChange: how a statement sent to a database server
// changes its session's transaction state, read from the leading keywords
// after white space and comments.

import Foundation
@testable import Quarry
import QuarryTestSupport
import Testing

@Suite struct ServerTransactionChangeTests {
    @Test func readsTheFirstKeywords() {
        #expect(ServerTransactionChange("begin") == .begin)
        #expect(ServerTransactionChange("START TRANSACTION ISOLATION LEVEL SERIALIZABLE") == .begin)
        #expect(ServerTransactionChange("  commit;") == .commit)
        #expect(ServerTransactionChange("END WORK") == .commit)
        #expect(ServerTransactionChange("ROLLBACK") == .rollback)
        #expect(ServerTransactionChange("abort") == .rollback)
        #expect(ServerTransactionChange("ROLLBACK TRANSACTION TO SAVEPOINT quarry") == .rollbackToSavepoint)
        #expect(ServerTransactionChange("rollback to x") == .rollbackToSavepoint)
        #expect(ServerTransactionChange("SAVEPOINT s") == .savepoint)
        #expect(ServerTransactionChange("RELEASE SAVEPOINT s") == .release)
        #expect(ServerTransactionChange("SELECT 1") == .none)
        #expect(ServerTransactionChange("") == .none)
        #expect(ServerTransactionChange("START") == .none)
        #expect(ServerTransactionChange("BEGIN1") == .none)
    }

    @Test func readsTheChainedAndPreparedForms() {
        #expect(ServerTransactionChange("COMMIT AND CHAIN") == .commitAndChain)
        #expect(ServerTransactionChange("commit work and chain") == .commitAndChain)
        #expect(ServerTransactionChange("END TRANSACTION AND CHAIN") == .commitAndChain)
        #expect(ServerTransactionChange("COMMIT AND NO CHAIN") == .commit)
        #expect(ServerTransactionChange("ROLLBACK AND CHAIN") == .rollbackAndChain)
        #expect(ServerTransactionChange("ABORT TRANSACTION AND CHAIN") == .rollbackAndChain)
        #expect(ServerTransactionChange("ROLLBACK AND NO CHAIN") == .rollback)
        #expect(ServerTransactionChange("PREPARE TRANSACTION 'tx1'") == .prepareTransaction)
        #expect(ServerTransactionChange("PREPARE stmt AS SELECT 1") == .none)
        // They end a prepared transaction, not the session's.
        #expect(ServerTransactionChange("COMMIT PREPARED 'tx1'") == .none)
        #expect(ServerTransactionChange("ROLLBACK PREPARED 'tx1'") == .none)
    }

    @Test func skipsCommentsBeforeAndBetweenTheKeywords() {
        #expect(ServerTransactionChange("/* header */ BEGIN") == .begin)
        #expect(ServerTransactionChange("-- note\nBEGIN") == .begin)
        #expect(ServerTransactionChange("-- note\r\nbegin") == .begin)
        #expect(ServerTransactionChange("/* outer /* nested */ still a comment */COMMIT") == .commit)
        #expect(ServerTransactionChange("COMMIT /* c */ AND -- d\n CHAIN") == .commitAndChain)
        #expect(ServerTransactionChange("ROLLBACK/**/TO/**/s") == .rollbackToSavepoint)
        // An unterminated comment hides everything after it.
        #expect(ServerTransactionChange("/* BEGIN") == .none)
        #expect(ServerTransactionChange("-- BEGIN") == .none)
        // A keyword inside a string or after other SQL is no keyword.
        #expect(ServerTransactionChange("SELECT 'BEGIN'") == .none)
        #expect(ServerTransactionChange("'BEGIN'") == .none)
    }

    /// Property: any mix of white space and comments before a statement and
    /// between its keywords leaves its classification as without them.
    @Test func anyPrefixOfSpaceAndCommentsKeepsTheClassification() {
        let statements: [(String, ServerTransactionChange)] = [
            ("BEGIN", .begin), ("START TRANSACTION READ ONLY", .begin), ("COMMIT", .commit), ("END", .commit),
            ("COMMIT AND CHAIN", .commitAndChain), ("ROLLBACK AND CHAIN", .rollbackAndChain), ("ROLLBACK", .rollback),
            ("ABORT", .rollback), ("ROLLBACK TO SAVEPOINT s", .rollbackToSavepoint), ("SAVEPOINT s", .savepoint),
            ("RELEASE s", .release), ("PREPARE TRANSACTION 'x'", .prepareTransaction), ("COMMIT PREPARED 'x'", .none),
            ("INSERT INTO t VALUES (1)", .none),
        ]
        let fillers = [
            " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "-- a comment\n", "--\n", "-- BEGIN; COMMIT\n", "/**/", "/* x */",
            "/* COMMIT */", "/* a /* nested */ comment */", "/*\n multi\n line \n*/", "/* -- not a line comment */",
        ]
        var generator = SeededGenerator(state: TestSeed.derived("ServerTransactionChange.prefixes"))
        for _ in 0..<2_000 {
            let (statement, expected) = statements[Int(generator.next() % UInt64(statements.count))]
            func filler() -> String {
                (0..<Int(generator.next() % 4)).map { _ in fillers[Int(generator.next() % UInt64(fillers.count))] }.joined()
            }
            // Between keywords there must be at least one separator.
            var sql = filler()
            for (index, word) in statement.split(separator: " ").enumerated() {
                if index > 0 {
                    let between = filler()
                    sql += between.isEmpty ? " " : between
                }
                let cased = generator.next() % 2 == 0 ? word.lowercased() : String(word)
                sql += cased
            }
            sql += generator.next() % 2 == 0 ? ";" : filler()
            #expect(ServerTransactionChange(sql) == expected, "\(sql.debugDescription); \(TestSeed.replay)")
        }
    }
}
