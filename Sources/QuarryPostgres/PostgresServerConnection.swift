// PostgresServerConnection: a PostgresSession as the server connection of a
// Quarry `Database` (Quarry's Core/DatabaseServerConnection.swift). Quarry
// calls it synchronously, from its own threads.

import Dispatch
import Quarry

/// The connection of one `Database` of a ``PostgresDatabasePool``.
final class PostgresServerConnection: DatabaseServerConnection {
    let session: PostgresSession
    var dialect: SQLDialect { .postgreSQL }
    var serverDescription: String { session.configuration.description }

    init(session: PostgresSession) { self.session = session }

    /// Connects, blocking the calling thread: Quarry opens connections on its
    /// own threads, never on Swift's cooperative pool, where the connection
    /// task runs.
    static func connect(to configuration: PostgresConfiguration) throws -> PostgresServerConnection {
        let result = BlockingResult<PostgresSession>()
        Task.detached {
            do {
                result.set(.success(try await PostgresSession.connect(to: configuration)))
            } catch {
                result.set(.failure(error))
            }
        }
        return PostgresServerConnection(session: try result.wait())
    }

    func execute(sql: String, arguments: [DatabaseValue]) throws -> DatabaseServerResult {
        let result = try session.executeBlocking(sql: sql, arguments: arguments)
        return DatabaseServerResult(columnNames: result.columnNames, rows: result.rows, rowsAffected: result.rowsAffected)
    }

    /// Closes the connection without waiting for the server's answer:
    /// `Database.close()` may run anywhere, a deinit on Swift's cooperative
    /// pool included, where waiting for another task could deadlock.
    func close() {
        let session = self.session
        Task.detached { try? await session.close() }
    }
}

/// The result of async work, waited for by a thread that is not on Swift's
/// cooperative pool (Quarry opens connections on Dispatch threads or on the
/// caller's own thread).
private final class BlockingResult<Value: Sendable>: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    // Written once before `signal`, read after `wait`: the semaphore orders them.
    private var result: Result<Value, any Error>?

    func set(_ result: Result<Value, any Error>) {
        self.result = result
        semaphore.signal()
    }

    func wait() throws -> Value {
        semaphore.wait()
        guard let result else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "a PostgreSQL operation ended without a result") }
        return try result.get()
    }
}
