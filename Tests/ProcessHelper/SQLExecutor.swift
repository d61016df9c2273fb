// The execute mode of the process helper: one write transaction, from another
// process, on a file a test observes (ForeignCommitObservationTests).
//
//     QuarryProcessHelper execute PATH SQL [rollback]
//
// Runs SQL (one or more statements) in a write transaction of a DatabaseQueue
// on PATH, which commits, or rolls back when the third argument is
// `rollback`. Prints `execute: committed` or `execute: rolled back` and exits
// 0; an error is printed to standard error and exits 1; bad arguments exit 64.

import Foundation
import Quarry

func runSQLExecutor(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2 || (arguments.count == 3 && arguments[2] == "rollback") else {
        FileHandle.standardError.write(Data("usage: QuarryProcessHelper execute PATH SQL [rollback]\n".utf8))
        return 64
    }
    let rollsBack = arguments.count == 3
    do {
        let dbQueue = try DatabaseQueue(path: arguments[0])
        try dbQueue.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(sql: arguments[1])
                return rollsBack ? .rollback : .commit
            }
        }
        print(rollsBack ? "execute: rolled back" : "execute: committed")
        return 0
    } catch {
        FileHandle.standardError.write(Data("execute: error: \(error)\n".utf8))
        return 1
    }
}
