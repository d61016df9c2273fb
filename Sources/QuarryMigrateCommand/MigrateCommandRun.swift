// MigrateCommandRun: what the `migrate` subcommands do and print, apart from
// argument parsing, so that tests can read the output and the exit code.

import ArgumentParser
import Foundation
import Logging
import Quarry

/// The result of a `migrate` subcommand: its output and exit code.
public struct MigrateCommandRun: Sendable, Equatable {
    /// The subcommands.
    public enum Action: String, Sendable, CaseIterable {
        /// `migrate status`.
        case status
        /// `migrate plan`.
        case plan
        /// `migrate apply`.
        case apply
    }

    /// The lines printed, without their line breaks.
    public var lines: [String]

    /// The process's exit code (see ``MigrateCommand``).
    public var exitCode: Int32

    /// Runs `action` on the database that `Target` opens for `location`.
    /// Never throws: a failure is an output line and exit code 1.
    public static func perform<Target: MigrateCommandTarget>(
        _ action: Action, _ location: String?, _ target: Target.Type
    ) async -> MigrateCommandRun {
        let writer: any DatabaseWriter
        let migrator: DatabaseMigrator
        do {
            (writer, migrator) = try await Target.openDatabase(location)
        } catch {
            return MigrateCommandRun(lines: ["error: cannot open the database: \(error)"], exitCode: 1)
        }
        defer { writer.close() }
        return await perform(action, writer: writer, migrator: migrator)
    }

    /// Runs `action` on `writer` with `migrator`.
    public static func perform(_ action: Action, writer: any DatabaseWriter, migrator: DatabaseMigrator) async -> MigrateCommandRun {
        var lines = ["database: \(writer.path)"]
        let plan: MigrationPlan
        do {
            plan = try await writer.read { db in try migrator.plan(db) }
        } catch {
            return MigrateCommandRun(lines: lines + ["error: cannot read the migrations: \(error)"], exitCode: 1)
        }
        let refusal = "refused: the database records migrations this application does not know ("
            + plan.unknown.joined(separator: ", ") + "): a newer version of the application migrated it"
        switch action {
        case .status:
            lines.append("applied: " + Self.list(plan.applied))
            lines.append("pending: " + Self.list(plan.pending))
            lines.append("unknown: " + Self.list(plan.unknown))
            if plan.isRefused { return MigrateCommandRun(lines: lines + [refusal], exitCode: 3) }
            if plan.pending.isEmpty { return MigrateCommandRun(lines: lines + ["up to date"], exitCode: 0) }
            return MigrateCommandRun(lines: lines + ["\(Self.count(plan.pending)) pending"], exitCode: 2)
        case .plan:
            if plan.isRefused { return MigrateCommandRun(lines: lines + [refusal], exitCode: 3) }
            if plan.pending.isEmpty { return MigrateCommandRun(lines: lines + ["nothing to apply: up to date"], exitCode: 0) }
            lines.append("apply would run, in order:")
            lines += plan.pending.enumerated().map { "  \($0.offset + 1). \($0.element)" }
            if plan.mayEraseDatabase {
                lines.append("and first erase the database if the migrations' schema changed (eraseDatabaseOnSchemaChange)")
            }
            return MigrateCommandRun(lines: lines, exitCode: 0)
        case .apply:
            if plan.isRefused { return MigrateCommandRun(lines: lines + [refusal], exitCode: 3) }
            if plan.pending.isEmpty { return MigrateCommandRun(lines: lines + ["nothing to apply: up to date"], exitCode: 0) }
            // The migrator's own log lines of each migration, as the output.
            let recorder = AppliedMigrationLines()
            var logging = migrator
            logging.logger = Logger(label: migrator.logger.label) { _ in recorder }
            do {
                try await logging.migrate(writer)
            } catch {
                return MigrateCommandRun(lines: lines + recorder.lines + ["error: \(error)"], exitCode: 1)
            }
            return MigrateCommandRun(lines: lines + recorder.lines + ["applied \(Self.count(plan.pending))"], exitCode: 0)
        }
    }

    /// Prints the output, then ends the process with the exit code (through
    /// swift-argument-parser) when it is not 0.
    func finish() throws {
        for line in lines { print(line) }
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : "\(names.count) (" + names.joined(separator: ", ") + ")"
    }

    private static func count(_ names: [String]) -> String {
        names.count == 1 ? "1 migration" : "\(names.count) migrations"
    }
}

/// Keeps the migrator's messages of applied migrations and waits, as output lines.
private final class AppliedMigrationLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    var lines: [String] { lock.withLock { storage } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let message = event.message.description
        // The pending list and the "Applying" lines repeat the plan: keep
        // what happened (applied, with durations; waits; erasures).
        guard message.hasPrefix("Applied migration") || event.level >= .notice
            || message.hasSuffix("was applied by another migrator")
        else { return }
        lock.withLock { storage.append(message) }
    }
}
