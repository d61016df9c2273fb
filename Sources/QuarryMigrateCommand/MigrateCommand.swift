// MigrateCommand: `migrate status | plan | apply`, a swift-argument-parser
// command that an application embeds in its own command line, so that an
// operator can ask what the migrator would do to a database, and do it,
// without starting the service. A separate product: the Quarry library does
// not depend on swift-argument-parser.

import ArgumentParser
import Quarry

/// What an application gives ``MigrateCommand``: how to open its database,
/// without migrating it, and its migrator.
///
/// ```swift
/// enum AppMigrations: MigrateCommandTarget {
///     static func openDatabase(_ location: String?) async throws -> (any DatabaseWriter, DatabaseMigrator) {
///         (try DatabasePool(path: location ?? "app.sqlite"), AppDatabase.migrator)
///     }
/// }
///
/// @main
/// struct App: AsyncParsableCommand {
///     static let configuration = CommandConfiguration(
///         subcommands: [Serve.self, MigrateCommand<AppMigrations>.self])
/// }
/// ```
public protocol MigrateCommandTarget {
    /// Opens the database that `--database` names (nil when the option is
    /// left out: the application's default), without migrating it, and
    /// returns it with the migrator that migrates it.
    static func openDatabase(_ location: String?) async throws -> (any DatabaseWriter, DatabaseMigrator)
}

/// `migrate status | plan | apply`: the state of a database's migrations,
/// what `migrate` would do, and doing it.
///
/// ```
/// $ app migrate status --database app.sqlite
/// database: app.sqlite
/// applied: 2 (createAuthor, createBook)
/// pending: 1 (addBookISBN)
/// unknown: none
/// 1 migration pending
/// $ echo $?
/// 2
/// ```
///
/// Exit codes: 0 when the database is up to date (`status`), the plan was
/// printed (`plan`) or the migrations were applied (`apply`); 1 when the
/// database cannot be opened or a migration fails; 2 when `status` finds
/// pending migrations; 3 when the database records migrations the
/// application does not know (a newer version migrated it), which `migrate`
/// refuses.
public struct MigrateCommand<Target: MigrateCommandTarget>: AsyncParsableCommand {
    /// The `migrate` command and its three subcommands.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "migrate",
            abstract: "Shows and applies the database migrations.",
            subcommands: [Status.self, Plan.self, Apply.self])
    }

    /// Creates the command (swift-argument-parser calls it).
    public init() {}

    /// `migrate status`: the applied, pending and unknown migrations.
    public struct Status: AsyncParsableCommand {
        /// The subcommand's name and help.
        public static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Lists the applied, pending and unknown migrations (exit 2 when some are pending).")
        }

        /// The database to inspect.
        @OptionGroup public var options: MigrateCommandOptions

        /// Creates the subcommand (swift-argument-parser calls it).
        public init() {}

        /// Prints the status and exits with its code.
        public func run() async throws {
            try await MigrateCommandRun.perform(.status, options.database, Target.self).finish()
        }
    }

    /// `migrate plan`: what `migrate apply` would do, without doing it.
    public struct Plan: AsyncParsableCommand {
        /// The subcommand's name and help.
        public static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Prints the migrations that apply would run, in order, without running them.")
        }

        /// The database to inspect.
        @OptionGroup public var options: MigrateCommandOptions

        /// Creates the subcommand (swift-argument-parser calls it).
        public init() {}

        /// Prints the plan and exits with its code.
        public func run() async throws {
            try await MigrateCommandRun.perform(.plan, options.database, Target.self).finish()
        }
    }

    /// `migrate apply`: applies the pending migrations.
    public struct Apply: AsyncParsableCommand {
        /// The subcommand's name and help.
        public static var configuration: CommandConfiguration {
            CommandConfiguration(abstract: "Applies the pending migrations, in order, and prints each one with its duration.")
        }

        /// The database to migrate.
        @OptionGroup public var options: MigrateCommandOptions

        /// Creates the subcommand (swift-argument-parser calls it).
        public init() {}

        /// Migrates, prints what was applied, and exits with its code.
        public func run() async throws {
            try await MigrateCommandRun.perform(.apply, options.database, Target.self).finish()
        }
    }
}

/// The options of every `migrate` subcommand.
public struct MigrateCommandOptions: ParsableArguments {
    /// `--database`: the application's database (a file path, or a
    /// `postgres://` URL for an application on PostgreSQL); nil for the
    /// application's default.
    @Option(name: .long, help: ArgumentHelp("The database: a file path, or a postgres:// URL.", valueName: "path-or-url"))
    public var database: String?

    /// Creates the options (swift-argument-parser calls it).
    public init() {}
}
