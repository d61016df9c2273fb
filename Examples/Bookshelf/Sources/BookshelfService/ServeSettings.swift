// ServeSettings: what `bookshelf serve` runs with, resolved from its flags,
// the environment (BOOKSHELF_*) and the defaults, in that order of
// precedence. A pure function of its inputs, so that it is tested without a
// process or a command line.

import Logging

/// The values `bookshelf serve` was given on its command line: nil for a flag
/// that was not given.
public struct ServeFlags: Sendable, Equatable {
    /// `--database`.
    public var database: String?
    /// `--hostname`.
    public var hostname: String?
    /// `--port`.
    public var port: Int?
    /// `--log-level`.
    public var logLevel: String?
    /// `--otel` (true) or `--no-otel` (false).
    public var otel: Bool?
    /// `--foreign-commit-polling-ms`.
    public var foreignCommitPollingMilliseconds: Int?

    /// Flags; every one not given by default.
    public init(
        database: String? = nil, hostname: String? = nil, port: Int? = nil, logLevel: String? = nil, otel: Bool? = nil,
        foreignCommitPollingMilliseconds: Int? = nil
    ) {
        self.database = database
        self.hostname = hostname
        self.port = port
        self.logLevel = logLevel
        self.otel = otel
        self.foreignCommitPollingMilliseconds = foreignCommitPollingMilliseconds
    }
}

/// A flag or environment value that `bookshelf serve` cannot use: which one,
/// the value, and what was expected.
public struct ServeSettingsError: Error, Equatable, CustomStringConvertible {
    /// The flag (`--port`) or environment variable (`BOOKSHELF_PORT`).
    public let source: String
    /// The value given.
    public let value: String
    /// What a valid value is.
    public let expected: String

    /// Makes the error.
    public init(source: String, value: String, expected: String) {
        self.source = source
        self.value = value
        self.expected = expected
    }

    /// `invalid BOOKSHELF_PORT 'abc': expected an integer from 0 to 65535`.
    public var description: String { "invalid \(source) '\(value)': expected \(expected)" }
}

/// What `bookshelf serve` runs with. Each setting comes from its flag, else
/// its environment variable, else its default (``ServeSettings/init(flags:environment:)``).
/// An environment variable set to the empty string counts as unset.
///
/// | Setting | Flag | Environment | Default |
/// |---|---|---|---|
/// | ``databaseLocation`` | `--database` | `BOOKSHELF_DATABASE` | `bookshelf.sqlite` |
/// | ``hostname`` | `--hostname` | `BOOKSHELF_HOSTNAME` | `127.0.0.1` |
/// | ``port`` | `--port` | `BOOKSHELF_PORT` | `8080` |
/// | ``logLevel`` | `--log-level` | `BOOKSHELF_LOG_LEVEL` | `info` |
/// | ``otel`` | `--otel` / `--no-otel` | `BOOKSHELF_OTEL` | off |
/// | ``foreignCommitPollingMilliseconds`` | `--foreign-commit-polling-ms` | `BOOKSHELF_FOREIGN_COMMIT_POLLING_MS` | `250` |
public struct ServeSettings: Sendable, Equatable {
    /// The SQLite file or the `postgres://` URL.
    public var databaseLocation: String
    /// The interface to listen on.
    public var hostname: String
    /// The TCP port, 0 to 65535 (0 picks a free one).
    public var port: Int
    /// The log level of every logger of the process.
    public var logLevel: Logger.Level
    /// Whether the OpenTelemetry exporter (OTLP, spans and metrics) runs.
    public var otel: Bool
    /// On SQLite, how often (in milliseconds, 0 to 60000) the pool checks
    /// whether another process committed to the file while `GET /books/events`
    /// streams run; 0 never does (other processes' books then reach no
    /// stream). Ignored on PostgreSQL. See
    /// ``BookshelfConfiguration/foreignCommitPollingInterval``.
    public var foreignCommitPollingMilliseconds: Int

    /// The environment variables, by setting.
    public enum EnvironmentKey {
        public static let database = "BOOKSHELF_DATABASE"
        public static let hostname = "BOOKSHELF_HOSTNAME"
        public static let port = "BOOKSHELF_PORT"
        public static let logLevel = "BOOKSHELF_LOG_LEVEL"
        public static let otel = "BOOKSHELF_OTEL"
        public static let foreignCommitPollingMilliseconds = "BOOKSHELF_FOREIGN_COMMIT_POLLING_MS"
    }

    /// The defaults: `bookshelf.sqlite`, `127.0.0.1`, `8080`, `info`, no
    /// OpenTelemetry, other processes' commits polled every 250 ms.
    public static let defaults = ServeSettings(
        databaseLocation: "bookshelf.sqlite", hostname: "127.0.0.1", port: 8080, logLevel: .info, otel: false)

    /// Makes settings from explicit values.
    public init(
        databaseLocation: String, hostname: String, port: Int, logLevel: Logger.Level, otel: Bool,
        foreignCommitPollingMilliseconds: Int = 250
    ) {
        self.databaseLocation = databaseLocation
        self.hostname = hostname
        self.port = port
        self.logLevel = logLevel
        self.otel = otel
        self.foreignCommitPollingMilliseconds = foreignCommitPollingMilliseconds
    }

    /// Resolves each setting: its flag if given, else its environment
    /// variable if set and not empty, else its default.
    ///
    /// - throws: ``ServeSettingsError`` naming the first flag or variable
    ///   whose value is invalid: a port outside 0...65535 or not an integer,
    ///   an unknown log level, an empty hostname, an OpenTelemetry switch
    ///   other than `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`, a
    ///   polling interval outside 0...60000 or not an integer. An invalid
    ///   environment value throws even when its flag is given, so that a
    ///   broken deployment setting is never silently ignored.
    public init(flags: ServeFlags, environment: [String: String]) throws(ServeSettingsError) {
        let defaults = Self.defaults
        func env(_ key: String) -> String? {
            guard let value = environment[key], !value.isEmpty else { return nil }
            return value
        }

        databaseLocation = Self.databaseLocation(flag: flags.database, environment: environment)

        let envHostname = try env(EnvironmentKey.hostname).map { value throws(ServeSettingsError) in
            try Self.hostname(value, source: EnvironmentKey.hostname)
        }
        let flagHostname = try flags.hostname.map { value throws(ServeSettingsError) in try Self.hostname(value, source: "--hostname") }
        hostname = flagHostname ?? envHostname ?? defaults.hostname

        let envPort = try env(EnvironmentKey.port).map { value throws(ServeSettingsError) in
            guard let port = Int(value) else {
                throw ServeSettingsError(source: EnvironmentKey.port, value: value, expected: Self.portExpectation)
            }
            return try Self.port(port, text: value, source: EnvironmentKey.port)
        }
        let flagPort = try flags.port.map { value throws(ServeSettingsError) in try Self.port(value, text: "\(value)", source: "--port") }
        port = flagPort ?? envPort ?? defaults.port

        let envLevel = try env(EnvironmentKey.logLevel).map { value throws(ServeSettingsError) in
            try Self.logLevel(value, source: EnvironmentKey.logLevel)
        }
        let flagLevel = try flags.logLevel.map { value throws(ServeSettingsError) in try Self.logLevel(value, source: "--log-level") }
        logLevel = flagLevel ?? envLevel ?? defaults.logLevel

        let envOTel = try env(EnvironmentKey.otel).map { value throws(ServeSettingsError) in
            try Self.switchValue(value, source: EnvironmentKey.otel)
        }
        otel = flags.otel ?? envOTel ?? defaults.otel

        let pollingKey = EnvironmentKey.foreignCommitPollingMilliseconds
        let envPolling = try env(pollingKey).map { value throws(ServeSettingsError) in
            guard let milliseconds = Int(value) else {
                throw ServeSettingsError(source: pollingKey, value: value, expected: Self.pollingExpectation)
            }
            return try Self.pollingMilliseconds(milliseconds, text: value, source: pollingKey)
        }
        let flagPolling = try flags.foreignCommitPollingMilliseconds.map { value throws(ServeSettingsError) in
            try Self.pollingMilliseconds(value, text: "\(value)", source: "--foreign-commit-polling-ms")
        }
        foreignCommitPollingMilliseconds = flagPolling ?? envPolling ?? defaults.foreignCommitPollingMilliseconds
    }

    /// The database: `flag` if given, else `BOOKSHELF_DATABASE` if set and
    /// not empty, else `bookshelf.sqlite` (also for `bookshelf backup`).
    public static func databaseLocation(flag: String?, environment: [String: String]) -> String {
        if let flag { return flag }
        if let value = environment[EnvironmentKey.database], !value.isEmpty { return value }
        return defaults.databaseLocation
    }

    /// The configuration of ``buildApplication(_:services:schemaCheck:databaseConfiguration:)``
    /// for these settings (without tracer or metrics: the caller adds the
    /// bootstrapped ones).
    public var applicationConfiguration: BookshelfConfiguration {
        BookshelfConfiguration(
            hostname: hostname, port: port, databasePath: databaseLocation, logLevel: logLevel,
            foreignCommitPollingInterval: foreignCommitPollingMilliseconds == 0 ? nil : .milliseconds(foreignCommitPollingMilliseconds))
    }

    private static let portExpectation = "an integer from 0 to 65535"
    private static let pollingExpectation = "a number of milliseconds from 0 (off) to 60000"

    private static func pollingMilliseconds(_ value: Int, text: String, source: String) throws(ServeSettingsError) -> Int {
        guard (0...60000).contains(value) else { throw ServeSettingsError(source: source, value: text, expected: pollingExpectation) }
        return value
    }

    private static func hostname(_ value: String, source: String) throws(ServeSettingsError) -> String {
        guard !value.isEmpty, !value.contains(where: \.isWhitespace) else {
            throw ServeSettingsError(source: source, value: value, expected: "a host name or IP address")
        }
        return value
    }

    private static func port(_ value: Int, text: String, source: String) throws(ServeSettingsError) -> Int {
        guard (0...65535).contains(value) else { throw ServeSettingsError(source: source, value: text, expected: portExpectation) }
        return value
    }

    private static func logLevel(_ value: String, source: String) throws(ServeSettingsError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: value.lowercased()) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServeSettingsError(source: source, value: value, expected: "one of \(levels)")
        }
        return level
    }

    private static func switchValue(_ value: String, source: String) throws(ServeSettingsError) -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ServeSettingsError(source: source, value: value, expected: "1, true, yes, on, or 0, false, no, off")
        }
    }
}
