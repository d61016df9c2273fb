// Secrets in connection URLs: a seeded property test over URLs whose
// passwords hold every special character, percent-encoded or not, in valid
// and malformed URLs (no error, description, dump or log line shows three
// characters of a password); passwords with unencoded characters that
// libpq accepts; and the URL parameters that ask for a protection Quarry
// cannot give, refused. No server needed.

import Foundation
import Logging
import PropertyBased
import Quarry
import QuarryPostgres
import QuarryTestSupport
import Testing

@Suite struct PostgresURLSecretTests {
    /// The seed of the property test, from the run's seed (TestSeed:
    /// `QUARRY_TEST_SEED` replays a run).
    static let seed = TestSeed.derived("PostgresURLSecretTests")
    static var replay: String { TestSeed.replay }

    /// Letters that no URL error message, description or dump contains.
    /// Each generated password has one in every three characters, so a text
    /// that contains three characters of the password in a row has leaked
    /// them: the check cannot be fooled by a message's own words.
    static let markers = Array("JWXYZ")
    /// The characters with a meaning in a URL, and others.
    static let specials = Array("/?#@:%&=+[]!$'()*,;~.-_\"<>\\^`{|} ") + Array("af09é✓𝄞")

    /// A generated password: the text, and how the URL writes it.
    struct Password {
        var text = ""
        var raw = ""
        /// Whether `raw`, in the user information, may make a valid URL
        /// that says another password: it has an unencoded `%` (which may
        /// form an escape of its own), or an unencoded `@`, which ends the
        /// user information as in libpq (`app:X@/@?host=%2Ftmp` is the
        /// password `X` and the database `@`; `app:X@%2F@[zz]` the password
        /// `X` and the host `/@[zz]`).
        var ambiguousInUserInfo = false
        /// Whether `raw`, as the value of the parameter password, may make
        /// a valid URL that says another password: it has an unencoded `%`,
        /// or `&` (which ends the value).
        var ambiguousInQuery = false
    }

    /// A generator of an element of `elements` (not empty).
    static func element<Element: Sendable>(of elements: [Element]) -> Generator<Element, some SendableSequenceType> {
        Gen.int(in: 0...(elements.count - 1)).map { elements[$0] }
    }

    /// Generates a password: 1 to 6 chunks, each a marker and up to two
    /// special characters; each character percent-encoded or not.
    static func password(using rng: inout Xoshiro) -> Password {
        let chunks = Gen.int(in: 1...6)
        let marker = element(of: markers)
        let special = element(of: specials)
        let others = Gen.int(in: 0...2)
        let encodes = Gen.bool(0.5)
        var password = Password()
        for _ in 0..<chunks.run(using: &rng) {
            var characters = [marker.run(using: &rng)]
            for _ in 0..<others.run(using: &rng) { characters.append(special.run(using: &rng)) }
            for character in characters {
                password.text.append(character)
                if encodes.run(using: &rng) {
                    password.raw += String(character).utf8.map { String(format: "%%%02X", $0) }.joined()
                } else {
                    password.raw.append(character)
                    switch character {
                    case "%":
                        password.ambiguousInUserInfo = true
                        password.ambiguousInQuery = true
                    case "&": password.ambiguousInQuery = true
                    case "@": password.ambiguousInUserInfo = true
                    default: break
                    }
                }
            }
        }
        return password
    }

    /// A three-character run of `password` (or all of it, when shorter) that
    /// `text` contains, if any; runs of the URL's spelling of it too, when
    /// they hold a marker.
    static func leak(in text: String, of password: Password) -> String? {
        func runs(_ characters: [Character], markedOnly: Bool) -> [String] {
            if characters.count < 3 { return [String(characters)] }
            return (0...(characters.count - 3)).map { String(characters[$0..<($0 + 3)]) }
                .filter { !markedOnly || $0.contains(where: { markers.contains($0) }) }
        }
        return (runs(Array(password.text), markedOnly: false) + runs(Array(password.raw), markedOnly: true))
            .first { !$0.isEmpty && text.contains($0) }
    }

    @Test func noErrorOrDescriptionShowsAPartOfAGeneratedPassword() throws {
        var rng = Xoshiro(seed: (Self.seed, Self.seed ^ 0x5EC2E7, ~Self.seed, 0x5155_4152_5259))
        let users = Self.element(of: ["app", "a%40pp", "app%3A1"])
        let hosts = Self.element(of: ["db.internal", "10.0.0.7", "[::1]", "%2Fvar%2Frun", "", "bad host", "h!", "[zz]"])
        let tails = Self.element(of: [
            "", ":5432", ":54x", ":", ":99999", "/shop", "/sh/op", "/shop?sslmode=require", "/shop?sslmode=bogus",
            "?bogus=1", "/shop#x", "/shop?port=x", "?host=%2Ftmp", "/%zz",
        ])
        let forms = Gen.int(in: 0...3)
        var parsed = 0
        var refused = 0
        for _ in 0..<4_000 {
            let password = Self.password(using: &rng)
            let user = users.run(using: &rng)
            let host = hosts.run(using: &rng)
            let tail = tails.run(using: &rng)
            let url: String
            let form = forms.run(using: &rng)
            switch form {
            case 0, 1:
                url = "postgres://\(user):\(password.raw)@\(host)\(tail)"
            case 2:
                url = "postgresql://\(user):\(password.raw)@\(host)\(tail)\(tail.contains("?") ? "&" : "?")application_name=svc"
            default:
                // The parameter password, maybe followed by others.
                let query = tail.split(separator: "?").dropFirst().first.map { "&\($0)" } ?? ""
                url = "postgres://\(user)@\(host)/shop?password=\(password.raw)\(query)"
            }
            switch Result(catching: { () throws(PostgresURLError) in try PostgresConfiguration(url: url) }) {
            case .success(let configuration):
                parsed += 1
                // A URL that may say another password is only checked for errors.
                if form == 3 ? password.ambiguousInQuery : password.ambiguousInUserInfo { continue }
                #expect(configuration.password == password.text, "\(url.debugDescription), \(Self.replay)")
                var dumped = ""
                dump(configuration, to: &dumped)
                for text in [configuration.description, String(reflecting: configuration), dumped] {
                    let leaked = Self.leak(in: text, of: password)
                    #expect(leaked == nil, "\(url.debugDescription) shows \(leaked ?? "") in \(text.debugDescription), \(Self.replay)")
                }
            case .failure(let error):
                refused += 1
                for text in [error.message, error.description, String(reflecting: error)] {
                    let leaked = Self.leak(in: text, of: password)
                    #expect(leaked == nil, "\(url.debugDescription) shows \(leaked ?? "") in \(text.debugDescription), \(Self.replay)")
                }
            }
        }
        #expect(parsed > 300 && refused > 300, "parsed \(parsed), refused \(refused): the generator should hit both, \(Self.replay)")
    }

    /// Passwords with characters that libpq accepts unencoded parse to
    /// exactly that password.
    @Test(arguments: [
        ("postgres://app:hunter2?secret@h/db", "hunter2?secret"),
        ("postgres://app:hunter2#secret@h/db?sslmode=require", "hunter2#secret"),
        ("postgres://app:hunter2?a=b&c#d@h:5433/db", "hunter2?a=b&c#d"),
        ("postgres://app:hun@ter?2@h/db", "hun@ter?2"),
        ("postgres://app:p?w@h/db?application_name=me@home", "p?w"),
        ("postgres://app:hunter2@secret@h/db", "hunter2@secret"),
        ("postgres://app:hunter2:secret@h/db", "hunter2:secret"),
    ])
    func unencodedCharactersThatLibpqAcceptsInAPassword(_ url: String, _ password: String) throws {
        let configuration = try PostgresConfiguration(url: url)
        #expect(configuration.password == password)
        #expect(configuration.user == "app")
        #expect(configuration.host == "h")
        #expect(configuration.database == "db")
    }

    /// URLs that RFC 3986 reads with an "@" in the query keep that reading.
    @Test func anAtSignInTheQueryIsNotUserInformation() throws {
        let configuration = try PostgresConfiguration(url: "postgres://h?user=app&application_name=me@home")
        #expect(configuration.host == "h")
        #expect(configuration.user == "app")
        #expect(configuration.password == nil)
        #expect(configuration.applicationName == "me@home")
    }

    /// Malformed URLs whose password is not percent-encoded: each message
    /// on main quoted a part of the password.
    @Test(arguments: [
        ("postgres://app:hunter2/secret@h/db", "invalid port (not shown: it may be part of a password): expected a number from 1 to 65535 (a / in a password must be percent-encoded as %2F)"),
        ("postgres://app:hunter2?secret@h!/db", "the host \"h!\" contains \"!\""),
        ("postgres://u@h/db?password=hunter2&secret", "the parameter (not shown: it may be part of a password) has no value"),
        ("postgres://u@h/db?password=hunter2&secret=1", "unknown parameter (not shown: it may be part of a password)"),
        ("postgres://u@h/db?sslpassword=hunter2&secret", "the parameter (not shown: it may be part of a password) has no value"),
        ("postgres://u@h/db?password=hunter2secret&sslmode=bogus", "unsupported sslmode \"bogus\""),
        ("postgres://app:1234secret@h:bad/db", "invalid port \"bad\""),
        ("postgres://app:hunter2secret:9@[zz]/db", "\"zz\" is not an IPv6 address"),
    ])
    func errorsHideWhatMayBeAPassword(_ url: String, _ expected: String) {
        switch Result(catching: { () throws(PostgresURLError) in try PostgresConfiguration(url: url) }) {
        case .success(let configuration):
            Issue.record("parsed: \(configuration)")
        case .failure(let error):
            #expect(error.message.contains(expected), "\(error.message)")
            for secret in ["hunter2", "secret", "1234"] {
                #expect(!error.description.contains(secret), "\(error.description)")
            }
        }
    }

    @Test func dumpHidesThePassword() throws {
        let configuration = try PostgresConfiguration(url: "postgres://app:hunter2secret@h/db")
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("hunter2secret"))
        #expect(dumped.contains("password: Optional(\"***\")") || dumped.contains("\"***\""), "\(dumped)")
        #expect(dumped.contains("host: \"h\""), "\(dumped)")
    }

    /// The warning about ignored parameters and the connection error of a
    /// pool name the server, never the password.
    @Test func logsAndConnectionErrorsNeverShowThePassword() throws {
        let recorder = PostgresLogRecorder()
        let configuration = try PostgresConfiguration(
            url: "postgres://app:hunter2secret@127.0.0.1:1/db?keepalives=1&connect_timeout=5&sslmode=disable")
        var quarryConfiguration = Configuration()
        quarryConfiguration.logger = recorder.logger
        do {
            _ = try PostgresDatabasePool(configuration, configuration: quarryConfiguration, connectionLogger: recorder.logger)
            Issue.record("connected to port 1")
        } catch {
            #expect(!"\(error)".contains("hunter2secret"), "\(error)")
            #expect(!String(reflecting: error).contains("hunter2secret"), "\(String(reflecting: error))")
        }
        let entries = recorder.all
        #expect(entries.contains { $0.message.contains("keepalives") })
        for entry in entries {
            #expect(!entry.message.contains("hunter2secret"), "\(entry.message)")
            #expect(!"\(entry.metadata)".contains("hunter2secret"), "\(entry.metadata)")
        }
    }

    /// Parameters that ask for a protection Quarry cannot give: refused,
    /// naming the parameter and why.
    @Test(arguments: [
        ("channel_binding=require", "channel_binding=require is not supported: PostgresNIO authenticates with SCRAM-SHA-256 without channel binding"),
        ("gssencmode=require", "gssencmode=require is not supported: PostgresNIO has no GSSAPI encryption"),
        ("sslcertmode=require", "sslcertmode=require is not supported"),
        ("requirepeer=postgres", "the parameter requirepeer is not supported: Quarry cannot check the operating-system user"),
        ("sslcrl=%2Fetc%2Fcrl.pem", "the parameter sslcrl is not supported: Quarry's TLS (NIOSSL) does not check certificate revocation lists"),
        ("sslcrldir=%2Fetc%2Fcrl", "the parameter sslcrldir is not supported"),
        ("require_auth=scram-sha-256", "the parameter require_auth is not supported"),
        ("channel_binding=maybe", "invalid channel_binding \"maybe\": expected disable, prefer, require"),
        ("gssencmode=allow", "invalid gssencmode \"allow\": expected disable, prefer, require"),
    ])
    func protectionsThatCannotBeGivenAreRefused(_ parameter: String, _ expected: String) {
        let url = "postgres://app:pw@h/db?sslmode=verify-full&" + parameter
        switch Result(catching: { () throws(PostgresURLError) in try PostgresConfiguration(url: url) }) {
        case .success(let configuration):
            Issue.record("parsed: \(configuration), ignoring \(configuration.ignoredURLParameters)")
        case .failure(let error):
            #expect(error.message == expected || error.message.hasPrefix(expected), "\(error.message)")
        }
    }

    /// Their values that ask for nothing are accepted, and listed as ignored.
    @Test func valuesThatAskForNoProtectionAreAccepted() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://app@h/db?channel_binding=prefer&gssencmode=disable&sslcertmode=allow&requirepeer=&sslcrl=&sslcrldir=&require_auth=")
        #expect(configuration.ignoredURLParameters == [
            "channel_binding", "gssencmode", "sslcertmode", "requirepeer", "sslcrl", "sslcrldir", "require_auth",
        ])
        for url in [
            "postgres://app@h/db?channel_binding=disable&gssencmode=prefer&sslcertmode=disable",
            "postgres://app@h/db?channel_binding=&gssencmode=",
        ] {
            #expect(throws: Never.self) { try PostgresConfiguration(url: url) }
        }
    }
}
