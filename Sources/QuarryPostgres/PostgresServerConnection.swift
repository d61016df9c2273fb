// PostgresServerConnection: a PostgresSession as the server connection of a
// Quarry `Database` (Quarry's Core/DatabaseServerConnection.swift). Quarry
// calls it synchronously, from its own threads.

import Quarry

/// The connection of one `Database` of a ``PostgresDatabasePool``.
final class PostgresServerConnection: DatabaseServerConnection {
    let session: PostgresSession
    var dialect: SQLDialect { .postgreSQL }
    var serverDescription: String { session.configuration.description }

    init(session: PostgresSession) { self.session = session }

    /// Connects, blocking the calling thread (on PostgresNIO's event loop,
    /// not on Swift's cooperative pool: see `PostgresSession.connectBlocking`).
    static func connect(to configuration: PostgresConfiguration) throws -> PostgresServerConnection {
        PostgresServerConnection(session: try PostgresSession.connectBlocking(to: configuration))
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
