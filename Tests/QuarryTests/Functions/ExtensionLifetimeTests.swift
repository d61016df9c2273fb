// Tests of the lifetime of the Swift closures handed to SQLite: a function's
// or collation's closure lives while SQLite may call it, and is released when
// it is replaced, removed, or the connection closes (no leak; ASan checks
// that no released closure is called).

import Foundation
import Quarry
import Testing

/// An object captured by a closure, to see when the closure is released.
private final class Tracker: Sendable {}

@Suite struct ExtensionLifetimeTests {
    @Test func functionClosuresAreReleasedOnReplaceRemoveAndClose() throws {
        weak var replaced: Tracker?
        weak var removed: Tracker?
        weak var closed: Tracker?
        var dbQueue: DatabaseQueue? = try DatabaseQueue()
        try dbQueue?.write { db in
            func add(_ name: String, _ tracker: Tracker) throws {
                try db.add(function: DatabaseFunction(name, argumentCount: 0) { _ in withExtendedLifetime(tracker) { 1 } })
            }
            do {
                let a = Tracker(), b = Tracker(), c = Tracker()
                (replaced, removed, closed) = (a, b, c)
                try add("f", a)
                try add("g", b)
                try add("h", c)
            }
            #expect(replaced != nil && removed != nil && closed != nil, "SQLite holds the closures")
            #expect(try Int.fetchOne(db, sql: "SELECT f() + g() + h()") == 3)
            try db.add(function: DatabaseFunction("f", argumentCount: 0) { _ in 2 })
            #expect(replaced == nil, "replaced")
            try db.remove(function: DatabaseFunction("g", argumentCount: 0) { _ in nil })
            #expect(removed == nil, "removed")
            #expect(closed != nil)
        }
        dbQueue = nil
        #expect(closed == nil, "closed with the connection")
    }

    @Test func aggregateAndCollationClosuresAreReleasedWithTheConnection() throws {
        weak var collationTracker: Tracker?
        var dbQueue: DatabaseQueue? = try DatabaseQueue()
        try dbQueue?.write { db in
            do {
                let tracker = Tracker()
                collationTracker = tracker
                try db.add(collation: DatabaseCollation("tracked") { lhs, rhs in withExtendedLifetime(tracker) { lhs.compare(rhs) } })
            }
            try db.add(function: median)
            #expect(try String.fetchAll(db, sql: "SELECT x FROM (SELECT 'b' AS x UNION ALL SELECT 'a') ORDER BY x COLLATE tracked") == ["a", "b"])
            #expect(collationTracker != nil)
            try db.add(collation: DatabaseCollation("tracked") { $0.compare($1) })
            #expect(collationTracker == nil, "replaced")
        }
        dbQueue = nil
    }

    @Test func failedRegistrationsReleaseTheirClosure() throws {
        weak var weakTracker: Tracker?
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            do {
                let tracker = Tracker()
                weakTracker = tracker
                // More arguments than SQLITE_MAX_FUNCTION_ARG (127 by default, at most 1000 in SQLite 3.40): refused.
                let error = try #require(throws: DatabaseError.self) {
                    try db.add(function: DatabaseFunction("many", argumentCount: 5000) { _ in withExtendedLifetime(tracker) { 1 } })
                }
                #expect(error.message.contains("could not add function many"))
            }
            #expect(weakTracker == nil)
        }
    }
}
