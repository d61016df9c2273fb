// QuarryTestSupport: running a statement that a test expects to fail in a
// savepoint, as an application handles an error it catches. On PostgreSQL a
// failed statement aborts the whole transaction, whose COMMIT then throws
// (SQLSTATE 25P02): a test that checks an error, then goes on or ends its
// access, isolates the failure the way "Running on PostgreSQL" teaches.

import Quarry

extension Database {
    /// Runs `body` in a savepoint and returns its result; when `body`
    /// throws, the savepoint is rolled back (the transaction stays usable on
    /// every backend) and the error is rethrown unchanged.
    public func failingInSavepoint<T>(_ body: () throws -> T) throws -> T {
        var result: Result<T, any Error>?
        try inSavepoint {
            result = .success(try body())
            return .commit
        }
        guard let result else { throw DatabaseError(message: "the savepoint's body did not run") }
        return try result.get()
    }
}
