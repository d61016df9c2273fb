// Tests of `bookshelf serve`'s settings: flag, else environment (BOOKSHELF_*),
// else default; invalid values, from either, are errors that name their
// source; the OpenTelemetry switch.

import BookshelfService
import Logging
import Testing

@Suite("Serve settings")
struct ServeSettingsTests {
    @Test func defaultsWithoutFlagsOrEnvironment() throws {
        let settings = try ServeSettings(flags: ServeFlags(), environment: [:])
        #expect(settings == ServeSettings.defaults)
        #expect(settings.databaseLocation == "bookshelf.sqlite")
        #expect(settings.hostname == "127.0.0.1")
        #expect(settings.port == 8080)
        #expect(settings.logLevel == .info)
        #expect(settings.otel == false)
    }

    @Test func theEnvironmentGivesEachSetting() throws {
        let environment = [
            "BOOKSHELF_DATABASE": "postgres://bookshelf@db/bookshelf", "BOOKSHELF_HOSTNAME": "0.0.0.0", "BOOKSHELF_PORT": "9000",
            "BOOKSHELF_LOG_LEVEL": "DEBUG", "BOOKSHELF_OTEL": "1", "UNRELATED": "x",
        ]
        let settings = try ServeSettings(flags: ServeFlags(), environment: environment)
        #expect(settings == ServeSettings(
            databaseLocation: "postgres://bookshelf@db/bookshelf", hostname: "0.0.0.0", port: 9000, logLevel: .debug, otel: true))
        let configuration = settings.applicationConfiguration
        #expect(configuration.databasePath == "postgres://bookshelf@db/bookshelf")
        #expect(configuration.hostname == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.tracer == nil)
        #expect(configuration.metricsFactory == nil)
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let environment = [
            "BOOKSHELF_DATABASE": "env.sqlite", "BOOKSHELF_HOSTNAME": "0.0.0.0", "BOOKSHELF_PORT": "9000",
            "BOOKSHELF_LOG_LEVEL": "debug", "BOOKSHELF_OTEL": "true",
        ]
        let flags = ServeFlags(database: "flag.sqlite", hostname: "localhost", port: 0, logLevel: "warning", otel: false)
        let settings = try ServeSettings(flags: flags, environment: environment)
        #expect(settings == ServeSettings(databaseLocation: "flag.sqlite", hostname: "localhost", port: 0, logLevel: .warning, otel: false))
    }

    @Test func anEmptyVariableIsUnset() throws {
        let environment = [
            "BOOKSHELF_DATABASE": "", "BOOKSHELF_HOSTNAME": "", "BOOKSHELF_PORT": "", "BOOKSHELF_LOG_LEVEL": "", "BOOKSHELF_OTEL": "",
        ]
        #expect(try ServeSettings(flags: ServeFlags(), environment: environment) == ServeSettings.defaults)
        #expect(ServeSettings.databaseLocation(flag: nil, environment: environment) == "bookshelf.sqlite")
        #expect(ServeSettings.databaseLocation(flag: "a.sqlite", environment: ["BOOKSHELF_DATABASE": "b.sqlite"]) == "a.sqlite")
        #expect(ServeSettings.databaseLocation(flag: nil, environment: ["BOOKSHELF_DATABASE": "b.sqlite"]) == "b.sqlite")
    }

    @Test(arguments: [
        ("1", true), ("true", true), ("YES", true), ("on", true), ("0", false), ("false", false), ("No", false), ("off", false),
    ])
    func theOTelSwitchFromTheEnvironment(value: String, expected: Bool) throws {
        let settings = try ServeSettings(flags: ServeFlags(), environment: ["BOOKSHELF_OTEL": value])
        #expect(settings.otel == expected)
    }

    @Test func theOTelFlagTurnsItOnAndOff() throws {
        #expect(try ServeSettings(flags: ServeFlags(otel: true), environment: [:]).otel == true)
        #expect(try ServeSettings(flags: ServeFlags(otel: false), environment: ["BOOKSHELF_OTEL": "1"]).otel == false)
        #expect(try ServeSettings(flags: ServeFlags(otel: true), environment: ["BOOKSHELF_OTEL": "off"]).otel == true)
        #expect(try ServeSettings(flags: ServeFlags(), environment: [:]).otel == false)
    }

    @Test func theForeignCommitPollingIntervalFromFlagEnvironmentOrDefault() throws {
        let defaults = try ServeSettings(flags: ServeFlags(), environment: [:])
        #expect(defaults.foreignCommitPollingMilliseconds == 250)
        #expect(defaults.applicationConfiguration.foreignCommitPollingInterval == .milliseconds(250))
        let environment = ["BOOKSHELF_FOREIGN_COMMIT_POLLING_MS": "1000"]
        let fromEnvironment = try ServeSettings(flags: ServeFlags(), environment: environment)
        #expect(fromEnvironment.applicationConfiguration.foreignCommitPollingInterval == .seconds(1))
        let fromFlag = try ServeSettings(flags: ServeFlags(foreignCommitPollingMilliseconds: 50), environment: environment)
        #expect(fromFlag.foreignCommitPollingMilliseconds == 50)
        // 0: never polled.
        let off = try ServeSettings(flags: ServeFlags(), environment: ["BOOKSHELF_FOREIGN_COMMIT_POLLING_MS": "0"])
        #expect(off.applicationConfiguration.foreignCommitPollingInterval == nil)
        let expectation = "a number of milliseconds from 0 (off) to 60000"
        #expect(throws: ServeSettingsError(source: "--foreign-commit-polling-ms", value: "60001", expected: expectation)) {
            try ServeSettings(flags: ServeFlags(foreignCommitPollingMilliseconds: 60001), environment: [:])
        }
        #expect(throws: ServeSettingsError(source: "BOOKSHELF_FOREIGN_COMMIT_POLLING_MS", value: "fast", expected: expectation)) {
            try ServeSettings(flags: ServeFlags(), environment: ["BOOKSHELF_FOREIGN_COMMIT_POLLING_MS": "fast"])
        }
        #expect(throws: ServeSettingsError.self) {
            try ServeSettings(flags: ServeFlags(), environment: ["BOOKSHELF_FOREIGN_COMMIT_POLLING_MS": "-1"])
        }
    }

    @Test(arguments: [
        (["BOOKSHELF_PORT": "abc"], ServeSettingsError(source: "BOOKSHELF_PORT", value: "abc", expected: "an integer from 0 to 65535")),
        (["BOOKSHELF_PORT": "65536"], ServeSettingsError(source: "BOOKSHELF_PORT", value: "65536", expected: "an integer from 0 to 65535")),
        (["BOOKSHELF_PORT": "-1"], ServeSettingsError(source: "BOOKSHELF_PORT", value: "-1", expected: "an integer from 0 to 65535")),
        (["BOOKSHELF_PORT": " 80"], ServeSettingsError(source: "BOOKSHELF_PORT", value: " 80", expected: "an integer from 0 to 65535")),
        (["BOOKSHELF_HOSTNAME": "a b"], ServeSettingsError(source: "BOOKSHELF_HOSTNAME", value: "a b", expected: "a host name or IP address")),
        (["BOOKSHELF_OTEL": "maybe"], ServeSettingsError(
            source: "BOOKSHELF_OTEL", value: "maybe", expected: "1, true, yes, on, or 0, false, no, off")),
    ])
    func anInvalidVariableThrows(environment: [String: String], expected: ServeSettingsError) {
        #expect(throws: expected) { try ServeSettings(flags: ServeFlags(), environment: environment) }
    }

    @Test func anInvalidLogLevelThrowsAndListsTheLevels() throws {
        let error = try #require(throws: ServeSettingsError.self) {
            try ServeSettings(flags: ServeFlags(), environment: ["BOOKSHELF_LOG_LEVEL": "loud"])
        }
        #expect(error.source == "BOOKSHELF_LOG_LEVEL")
        #expect(error.description == "invalid BOOKSHELF_LOG_LEVEL 'loud': expected one of trace, debug, info, notice, warning, error, critical")
    }

    @Test func invalidFlagsThrow() {
        #expect(throws: ServeSettingsError(source: "--port", value: "70000", expected: "an integer from 0 to 65535")) {
            try ServeSettings(flags: ServeFlags(port: 70000), environment: [:])
        }
        #expect(throws: ServeSettingsError.self) { try ServeSettings(flags: ServeFlags(logLevel: "verbose"), environment: [:]) }
        #expect(throws: ServeSettingsError.self) { try ServeSettings(flags: ServeFlags(hostname: ""), environment: [:]) }
    }

    @Test func anInvalidVariableThrowsEvenWhenItsFlagIsGiven() {
        #expect(throws: ServeSettingsError.self) {
            try ServeSettings(flags: ServeFlags(port: 8081), environment: ["BOOKSHELF_PORT": "eighty"])
        }
    }
}
