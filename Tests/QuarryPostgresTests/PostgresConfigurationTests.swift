// Tests of PostgresConfiguration: connection URLs, valid, malformed and
// hostile (seeded random strings never crash the parser), and the PostgresNIO
// configuration made from it. No server needed.

import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres
import Testing

@Suite struct PostgresConfigurationTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        var url: String
        var host: String
        var port = 5432
        var user: String
        var password: String? = nil
        var database: String
        var sslMode = PostgresConfiguration.SSLMode.prefer
        var applicationName: String? = nil
        var connectTimeout: Duration = .seconds(10)
        var testDescription: String { url }
    }

    static let validURLs: [Valid] = [
        Valid(url: "postgres://postgres@127.0.0.1:5433/quarry_test", host: "127.0.0.1", port: 5433, user: "postgres", database: "quarry_test"),
        Valid(url: "postgresql://app:s3cret@db.example.com/shop", host: "db.example.com", user: "app", password: "s3cret", database: "shop"),
        Valid(url: "POSTGRES://u@h", host: "h", user: "u", database: "u"),
        Valid(url: "PostgreSQL://u@h/", host: "h", user: "u", database: "u"),
        Valid(url: "postgres://u:@h/d", host: "h", user: "u", database: "d"),
        Valid(url: "postgres://u@[::1]:6000/db", host: "::1", port: 6000, user: "u", database: "db"),
        Valid(url: "postgres://u@[2001:db8::8a2e:370:7334]/db", host: "2001:db8::8a2e:370:7334", user: "u", database: "db"),
        Valid(url: "postgres://u@[::ffff:127.0.0.1]", host: "::ffff:127.0.0.1", user: "u", database: "u"),
        Valid(url: "postgres://u:p@ss@h/db", host: "h", user: "u", password: "p@ss", database: "db"),
        Valid(url: "postgres://u:p%40ss%3A%2F%3F%23%25@h/db", host: "h", user: "u", password: "p@ss:/?#%", database: "db"),
        Valid(url: "postgres://u:a:b@h/db", host: "h", user: "u", password: "a:b", database: "db"),
        Valid(url: "postgres://u%20x:%E2%9C%93@h/d%C3%A9j%C3%A0", host: "h", user: "u x", password: "✓", database: "déjà"),
        Valid(url: "postgres://üser:pässword@h/bäse", host: "h", user: "üser", password: "pässword", database: "bäse"),
        Valid(url: "postgres://u@h/a%2Fb", host: "h", user: "u", database: "a/b"),
        Valid(url: "postgres://u@my_host-1.internal:1/db", host: "my_host-1.internal", port: 1, user: "u", database: "db"),
        Valid(url: "postgres://u@localhost:65535", host: "localhost", port: 65535, user: "u", database: "u"),
        Valid(url: "postgres://u@h:05432/db", host: "h", port: 5432, user: "u", database: "db"),
        Valid(url: "postgres://u@h/db?", host: "h", user: "u", database: "db"),
        Valid(url: "postgres://u@h/db?sslmode=disable", host: "h", user: "u", database: "db", sslMode: .disable),
        Valid(url: "postgres://u@h/db?sslmode=require", host: "h", user: "u", database: "db", sslMode: .require),
        Valid(url: "postgres://u@h/db?sslmode=verify-full", host: "h", user: "u", database: "db", sslMode: .verifyFull),
        Valid(url: "postgres://u@h?sslmode=prefer", host: "h", user: "u", database: "u", sslMode: .prefer),
        Valid(
            url: "postgres://u@h/db?application_name=my%20app%20%E2%9C%93&sslmode=disable&connect_timeout=3",
            host: "h", user: "u", database: "db", sslMode: .disable, applicationName: "my app ✓", connectTimeout: .seconds(3)),
        Valid(url: "postgres://u@h/db?&application_name=x&", host: "h", user: "u", database: "db", applicationName: "x"),
        Valid(url: "postgres://u@h/db?application_name=", host: "h", user: "u", database: "db", applicationName: ""),
        Valid(url: "postgres://u@h/db?application_name=a=b", host: "h", user: "u", database: "db", applicationName: "a=b"),
        Valid(url: "postgres://u@10.0.0.1/db", host: "10.0.0.1", user: "u", database: "db"),
    ]

    @Test(arguments: validURLs)
    func validURLsParse(_ valid: Valid) throws {
        let configuration = try PostgresConfiguration(url: valid.url)
        #expect(configuration.host == valid.host)
        #expect(configuration.port == valid.port)
        #expect(configuration.user == valid.user)
        #expect(configuration.password == valid.password)
        #expect(configuration.database == valid.database)
        #expect(configuration.sslMode == valid.sslMode)
        #expect(configuration.applicationName == valid.applicationName)
        #expect(configuration.connectTimeout == valid.connectTimeout)
        // The description hides the password, and parses back to the same
        // configuration when there is none.
        if let password = valid.password {
            #expect(!configuration.description.contains(password))
            #expect(configuration.description.contains(":***@"))
        } else {
            #expect(try PostgresConfiguration(url: configuration.description) == configuration)
        }
    }

    static let invalidURLs: [(String, String)] = [
        ("", "the URL is empty"),
        ("mysql://u@h/db", "the scheme must be postgres:// or postgresql:// (found \"mysql\")"),
        ("postgres:/u@h/db", "the scheme must be postgres://"),
        ("postgres//u@h/db", "the scheme must be postgres://"),
        ("u@h/db", "the scheme must be postgres://"),
        ("postgres://", "the URL names no user"),
        ("postgres://h/db", "the URL names no user"),
        ("postgres://h:5432/db", "the URL names no user"),
        ("postgres://@h/db", "the user name is empty"),
        ("postgres://:pw@h/db", "the user name is empty"),
        ("postgres://u@/db", "the host is empty"),
        ("postgres://u@", "the host is empty"),
        ("postgres://u@:5432/db", "the host is empty"),
        ("postgres://u@h:0/db", "invalid port \"0\": expected a number from 1 to 65535"),
        ("postgres://u@h:65536/db", "invalid port \"65536\""),
        ("postgres://u@h:/db", "invalid port \"\""),
        ("postgres://u@h:54x/db", "invalid port \"54x\""),
        ("postgres://u@h:-1/db", "invalid port \"-1\""),
        ("postgres://u@h:+80/db", "invalid port \"+80\""),
        ("postgres://u@h:99999999999999999999999/db", "invalid port"),
        ("postgres://u@h:1:2/db", "invalid port \"1:2\""),
        ("postgres://u@[::1/db", "the IPv6 address has no closing bracket ]"),
        ("postgres://u@[]/db", "\"\" is not an IPv6 address"),
        ("postgres://u@[zz::1]/db", "\"zz::1\" is not an IPv6 address"),
        ("postgres://u@[127.0.0.1]/db", "is not an IPv6 address"),
        ("postgres://u@[::1]x/db", "unexpected \"x\" after the IPv6 address"),
        ("postgres://u@[::1]:/db", "invalid port \"\""),
        ("postgres://u@::1/db", "the host is empty"),
        ("postgres://u@h1,h2/db", "several hosts are not supported"),
        ("postgres://u@%2Ftmp/db", "Unix-domain socket paths are not supported"),
        ("postgres://u@h!x/db", "the host \"h!x\" contains \"!\""),
        ("postgres://u@999.1.1.1/db", "\"999.1.1.1\" is not an IPv4 address"),
        ("postgres://u@1.2.3/db", "\"1.2.3\" is not an IPv4 address"),
        ("postgres://u@h/db/x", "the path must be one database name"),
        ("postgres://u@h//db", "the path must be one database name"),
        ("postgres://u@h/db?sslmode=verify-ca", "unsupported sslmode \"verify-ca\" (supported: disable, prefer, require, verify-full)"),
        ("postgres://u@h/db?sslmode=REQUIRE", "unsupported sslmode"),
        ("postgres://u@h/db?sslmode=", "unsupported sslmode \"\""),
        ("postgres://u@h/db?foo=bar", "unknown option \"foo\" (supported: sslmode, application_name, connect_timeout)"),
        ("postgres://u@h/db?sslmode", "the option \"sslmode\" has no value"),
        ("postgres://u@h/db?sslmode=disable&sslmode=require", "the option sslmode is given twice"),
        ("postgres://u@h/db?connect_timeout=0", "invalid connect_timeout \"0\""),
        ("postgres://u@h/db?connect_timeout=1.5", "invalid connect_timeout"),
        ("postgres://u@h/db?connect_timeout=9999999", "invalid connect_timeout"),
        ("postgres://u:p%zz@h/db", "the password has an invalid percent escape"),
        ("postgres://u:p%4@h/db", "the password has an invalid percent escape"),
        ("postgres://u:p%@h/db", "the password has an invalid percent escape"),
        ("postgres://u%@h/db", "the user name has an invalid percent escape"),
        ("postgres://u@h/d%", "the database name has an invalid percent escape"),
        ("postgres://u@h/db?application_name=%G0", "the value of the option application_name has an invalid percent escape"),
        ("postgres://u%00@h/db", "the user name contains a NUL character (%00)"),
        ("postgres://u@h/d%00b", "the database name contains a NUL character"),
        ("postgres://u%FF@h/db", "the user name is not valid UTF-8 once percent-decoded"),
        ("postgres://u@h/db#fragment", "the URL has a fragment (#)"),
        ("postgres://u:pa#ss@h/db", "the URL has a fragment (#)"),
        ("postgres://u @h/db", "the URL contains a space or a control character at offset 12"),
        (" postgres://u@h/db", "a space or a control character at offset 0"),
        ("postgres://u@h/db\n", "a space or a control character"),
        ("postgres://u@h/d\u{7F}b", "a space or a control character"),
        ("postgres://u@h/d\tb", "a space or a control character"),
    ]

    @Test(arguments: invalidURLs)
    func malformedURLsThrowANamedProblem(_ url: String, _ expected: String) {
        switch Self.parse(url) {
        case .success(let configuration):
            Issue.record("parsed: \(configuration)")
        case .failure(let error):
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.description == "invalid PostgreSQL URL: \(error.message)")
        }
    }

    @Test func errorsNeverRepeatThePassword() {
        for url in [
            "postgres://u:hunter2secret@h:bad/db", "postgres://u:hunter2secret@h/db?x=1",
            "postgres://u:hunter2secret@[zz]/db", "postgres://u:hunter2secret%zz@h/db",
            "postgres://u:hunter2secret@h/db/extra", "postgres://u:hunter2secret@h!/db",
        ] {
            switch Self.parse(url) {
            case .success(let configuration):
                Issue.record("parsed: \(configuration)")
            case .failure(let error):
                #expect(!error.message.contains("hunter2secret"), "\(error.message)")
            }
        }
    }

    @Test func memberwiseInitializerDefaults() {
        let configuration = PostgresConfiguration(host: "db", user: "app")
        #expect(configuration.port == 5432)
        #expect(configuration.database == "app")
        #expect(configuration.password == nil)
        #expect(configuration.sslMode == .prefer)
        #expect(configuration.applicationName == nil)
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.description == "postgres://app@db:5432/app?sslmode=prefer")

        let full = PostgresConfiguration(
            host: "::1", port: 6543, user: "a b", password: "pw", database: "d/b", sslMode: .require,
            applicationName: "svc", connectTimeout: .seconds(2))
        #expect(full.description == "postgres://a%20b:***@[::1]:6543/d%2Fb?sslmode=require&application_name=svc&connect_timeout=2")
        #expect(full != configuration)
    }

    @Test func postgresNIOConfiguration() throws {
        let plain = try PostgresConfiguration(url: "postgres://u:pw@127.0.0.1:5433/db?sslmode=disable&application_name=svc&connect_timeout=3")
            .postgresNIOConfiguration()
        #expect(plain.host == "127.0.0.1")
        #expect(plain.port == 5433)
        #expect(plain.username == "u")
        #expect(plain.password == "pw")
        #expect(plain.database == "db")
        #expect(!plain.tls.isAllowed)
        #expect(plain.options.connectTimeout == .seconds(3))
        let parameters = Dictionary(uniqueKeysWithValues: plain.options.additionalStartupParameters)
        #expect(parameters == ["client_encoding": "UTF8", "TimeZone": "UTC", "application_name": "svc"])

        let prefer = try PostgresConfiguration(url: "postgres://u@h/db").postgresNIOConfiguration()
        #expect(prefer.tls.isAllowed && !prefer.tls.isEnforced)
        #expect(prefer.options.additionalStartupParameters.count == 2)
        let require = try PostgresConfiguration(url: "postgres://u@h/db?sslmode=require").postgresNIOConfiguration()
        #expect(require.tls.isAllowed && require.tls.isEnforced)
        let verify = try PostgresConfiguration(url: "postgres://u@h/db?sslmode=verify-full").postgresNIOConfiguration()
        #expect(verify.tls.isEnforced && verify.tls.sslContext != nil)
    }

    /// A small deterministic generator, so that a failure can be replayed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Pieces that mean something to the parser, and some that do not.
    static let pieces: [String] = [
        "postgres://", "postgresql://", "POSTGRES://", "://", "@", ":", "/", "?", "&", "=", "%", "%4", "%40", "%00", "%FF", "%2F",
        "[", "]", "[::1]", "::", ",", "#", " ", "\n", "\u{7F}", "\u{0}", "u", "user", "pw", "h", "host.example", "127.0.0.1",
        "999", "5432", "65536", "-", "_", ".", "sslmode", "sslmode=require", "application_name", "connect_timeout=5",
        "é", "✓", "𝄞", "\u{FEFF}", "\u{202E}", "db", "''", "\\", "$1",
    ]

    static func parse(_ url: String) -> Result<PostgresConfiguration, PostgresURLError> {
        Result { () throws(PostgresURLError) in try PostgresConfiguration(url: url) }
    }

    @Test func seededRandomStringsNeverCrash() {
        var generator = SplitMix64(state: 0x5155_4152_5259)  // "QUARRY"
        var parsed = 0
        var refused = 0
        func randomText(_ maximum: Int) -> String {
            var text = ""
            for _ in 0..<Int.random(in: 0...maximum, using: &generator) {
                if Bool.random(using: &generator) {
                    text += Self.pieces.randomElement(using: &generator)!
                } else {
                    text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &generator)) ?? "x")
                }
            }
            return text
        }
        for round in 0..<20_000 {
            var url: String
            switch round % 3 {
            case 0:
                // Anything.
                url = randomText(12)
            case 1:
                url = "postgres://" + randomText(12)
            default:
                // The shape of a URL, with random parts.
                url = "postgres://" + randomText(2) + "@" + (Bool.random(using: &generator) ? "h" : randomText(2))
                if Bool.random(using: &generator) { url += ":" + (Bool.random(using: &generator) ? "5432" : randomText(1)) }
                if Bool.random(using: &generator) { url += "/" + randomText(2) }
                if Bool.random(using: &generator) { url += "?" + randomText(3) }
            }
            switch Self.parse(url) {
            case .success(let configuration):
                parsed += 1
                #expect(!configuration.user.isEmpty && !configuration.host.isEmpty)
                #expect((1...65535).contains(configuration.port))
                if configuration.password == nil {
                    #expect((try? Self.parse(configuration.description).get()) == configuration, "\(url.debugDescription)")
                }
            case .failure(let error):
                refused += 1
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed + refused == 20_000)
        #expect(parsed > 500, "the generator should hit some valid URLs")
    }

    @Test func mutatedValidURLsNeverCrash() {
        var generator = SplitMix64(state: 22)
        let seeds = Self.validURLs.map(\.url)
        for _ in 0..<20_000 {
            var scalars = Array(seeds.randomElement(using: &generator)!.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0...scalars.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where position < scalars.count:
                    scalars.remove(at: position)
                case 1:
                    let piece = Self.pieces.randomElement(using: &generator)!
                    scalars.insert(contentsOf: piece.unicodeScalars, at: position)
                default:
                    scalars.insert(Unicode.Scalar(UInt8.random(in: 0...127, using: &generator)), at: position)
                }
            }
            var url = ""
            url.unicodeScalars.append(contentsOf: scalars)
            switch Self.parse(url) {
            case .success(let configuration):
                #expect((1...65535).contains(configuration.port))
            case .failure(let error):
                #expect(!error.message.isEmpty)
            }
        }
    }
}
