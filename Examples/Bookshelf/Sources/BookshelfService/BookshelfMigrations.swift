// BookshelfMigrations: what `bookshelf migrate status | plan | apply`
// (Quarry's MigrateCommand) needs: the database `--database` names, opened
// without migrating it, and the service's migrator for its backend.

import Foundation
import Quarry
import QuarryMigrateCommand
import QuarryPostgres

/// The database and migrator of `bookshelf migrate …`.
public enum BookshelfMigrations: MigrateCommandTarget {
    /// Opens `location` (else $BOOKSHELF_DATABASE, else bookshelf.sqlite) as
    /// the service does, without migrating it: an SQLite `DatabasePool`, or a
    /// `PostgresDatabasePool` for a `postgres://` URL.
    public static func openDatabase(_ location: String?) async throws -> (any DatabaseWriter, DatabaseMigrator) {
        let location = location ?? ProcessInfo.processInfo.environment["BOOKSHELF_DATABASE"] ?? "bookshelf.sqlite"
        let backend = DatabaseBackend(location: location)
        let writer: any DatabaseWriter = switch backend {
        case .sqlite: try DatabasePool(path: location)
        case .postgres: try PostgresDatabasePool(url: location, maximumConnectionCount: 2)
        }
        return (writer, makeBookshelfMigrator(backend: backend))
    }
}
