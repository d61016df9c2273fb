// Tests of PostgresConfiguration: connection URLs, valid, malformed and
// hostile (seeded random strings never crash the parser), and the PostgresNIO
// configuration made from it. No server needed.

import Foundation
import PostgresNIO
import Quarry
import QuarryPostgres
import QuarryTestSupport
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
        var sslRootCert: String? = nil
        var sslCert: String? = nil
        var sslKey: String? = nil
        var serverOptions: String? = nil
        var ignored: [String] = []
        var unixSocketPath: String? = nil
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
        // TLS parameters.
        Valid(url: "postgres://u@h/db?sslmode=verify-ca", host: "h", user: "u", database: "db", sslMode: .verifyCA),
        Valid(
            url: "postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20certs.pem", host: "h", user: "u", database: "db",
            sslMode: .verifyFull, sslRootCert: "/etc/ca certs.pem"),
        Valid(
            url: "postgres://u@h/db?sslrootcert=ca.pem&sslmode=require", host: "h", user: "u", database: "db", sslMode: .require,
            sslRootCert: "ca.pem"),
        Valid(url: "postgres://u@h/db?sslrootcert=system", host: "h", user: "u", database: "db", sslMode: .verifyFull, sslRootCert: "system"),
        Valid(
            url: "postgres://u@h/db?sslrootcert=system&sslmode=verify-full", host: "h", user: "u", database: "db", sslMode: .verifyFull,
            sslRootCert: "system"),
        Valid(
            url: "postgres://u@h/db?sslcert=%2Fk%2Fclient.crt&sslkey=%2Fk%2Fclient.key", host: "h", user: "u", database: "db",
            sslCert: "/k/client.crt", sslKey: "/k/client.key"),
        Valid(url: "postgres://u@h/db?requiressl=1", host: "h", user: "u", database: "db", sslMode: .require),
        Valid(url: "postgres://u@h/db?requiressl=0", host: "h", user: "u", database: "db"),
        Valid(url: "postgres://u@h/db?requiressl=1&sslmode=verify-full", host: "h", user: "u", database: "db", sslMode: .verifyFull),
        // The URL's parts as parameters.
        Valid(
            url: "postgresql:///shop?host=db.example&port=6432&user=app&password=pw", host: "db.example", port: 6432, user: "app",
            password: "pw", database: "shop"),
        Valid(url: "postgresql://h?dbname=shop&user=app", host: "h", user: "app", database: "shop"),
        Valid(url: "postgresql://u@?host=%3A%3A1", host: "::1", user: "u", database: "u"),
        Valid(url: "postgresql://u@h?dbname=", host: "h", user: "u", database: "u"),
        // Other applied parameters.
        Valid(url: "postgres://u@h/db?fallback_application_name=tool", host: "h", user: "u", database: "db", applicationName: "tool"),
        Valid(
            url: "postgres://u@h/db?fallback_application_name=tool&application_name=app", host: "h", user: "u", database: "db",
            applicationName: "app"),
        Valid(
            url: "postgres://u@h/db?options=-c%20search_path%3Dapp", host: "h", user: "u", database: "db",
            serverOptions: "-c search_path=app"),
        // Ignored parameters: accepted, listed by name.
        Valid(
            url: "postgres://u@h/db?keepalives=1&target_session_attrs=read-write&sslmode=require&channel_binding=prefer",
            host: "h", user: "u", database: "db", sslMode: .require, ignored: ["keepalives", "target_session_attrs", "channel_binding"]),
        Valid(
            url: "postgres://u@h/db?hostaddr=10.0.0.1&client_encoding=LATIN1&sslpassword=secret&load_balance_hosts=random",
            host: "h", user: "u", database: "db", ignored: ["hostaddr", "client_encoding", "sslpassword", "load_balance_hosts"]),
        // Unix-domain sockets.
        Valid(
            url: "postgresql:///shop?host=/var/run/postgresql&user=app", host: "/var/run/postgresql", user: "app", database: "shop",
            unixSocketPath: "/var/run/postgresql/.s.PGSQL.5432"),
        Valid(
            url: "postgresql://app@%2Fvar%2Frun%2Fpostgresql/shop", host: "/var/run/postgresql", user: "app", database: "shop",
            unixSocketPath: "/var/run/postgresql/.s.PGSQL.5432"),
        Valid(
            url: "postgresql://app@%2ftmp%2f:5433/shop", host: "/tmp/", port: 5433, user: "app", database: "shop",
            unixSocketPath: "/tmp/.s.PGSQL.5433"),
        Valid(
            url: "postgres://app@/shop?host=%2Ftmp&port=6000&sslmode=verify-full", host: "/tmp", port: 6000, user: "app",
            database: "shop", sslMode: .verifyFull, unixSocketPath: "/tmp/.s.PGSQL.6000"),
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
        #expect(configuration.sslRootCert == valid.sslRootCert)
        #expect(configuration.sslCert == valid.sslCert)
        #expect(configuration.sslKey == valid.sslKey)
        #expect(configuration.serverOptions == valid.serverOptions)
        #expect(configuration.ignoredURLParameters == valid.ignored)
        #expect(configuration.unixSocketPath == valid.unixSocketPath)
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
        ("postgres://u@h%31/db", "a percent-encoded host must be a Unix-domain socket directory"),
        ("postgres://u@%2Ftmp%2Ca/db", "several hosts are not supported"),
        ("postgres://u@%2Ftmp%zz/db", "the host has an invalid percent escape"),
        ("postgres://u@%2F" + String(repeating: "d", count: 100) + "/db", "is longer than"),
        ("postgres://u@h!x/db", "the host \"h!x\" contains \"!\""),
        ("postgres://u@999.1.1.1/db", "\"999.1.1.1\" is not an IPv4 address"),
        ("postgres://u@1.2.3/db", "\"1.2.3\" is not an IPv4 address"),
        ("postgres://u@h/db/x", "the path must be one database name"),
        ("postgres://u@h//db", "the path must be one database name"),
        ("postgres://u@h/db?sslmode=allow", "unsupported sslmode \"allow\" (supported: disable, prefer, require, verify-ca, verify-full)"),
        ("postgres://u@h/db?sslmode=bogus", "unsupported sslmode \"bogus\""),
        ("postgres://u@h/db?sslmode=REQUIRE", "unsupported sslmode"),
        ("postgres://u@h/db?sslmode=", "unsupported sslmode \"\""),
        ("postgres://u@h/db?foo=bar", "unknown parameter \"foo\": not one of libpq's connection parameters"),
        ("postgres://u@h/db?keepalives=1&sslmod=require", "unknown parameter \"sslmod\""),
        ("postgres://u@h/db?SSLMODE=require", "unknown parameter \"SSLMODE\""),
        ("postgres://u@h/db?sslmode", "the parameter \"sslmode\" has no value"),
        ("postgres://u@h/db?sslmode=disable&sslmode=require", "the parameter sslmode is given twice"),
        ("postgres://u@h/db?keepalives=1&keepalives=0", "the parameter keepalives is given twice"),
        ("postgres://u@h/db?port=abc", "invalid port \"abc\": expected a number from 1 to 65535"),
        ("postgres://u@h/db?port=0", "invalid port \"0\""),
        ("postgres://u@h/db?port=5432,5433", "invalid port \"5432,5433\""),
        ("postgres://u@h:5432/db?port=5433", "the port is given both in the URL and as the parameter port"),
        ("postgres://u@h/db?host=other", "the host is given both in the URL and as the parameter host"),
        ("postgres://u@h/db?user=v", "the user name is given both in the URL and as the parameter user"),
        ("postgres://u:pw@h/db?password=x", "the password is given both in the URL and as the parameter password"),
        ("postgres://u@h/db?dbname=x", "the database name is given both in the URL and as the parameter dbname"),
        ("postgres:///db?host=h", "the URL names no user: expected postgres://USER@HOST/DATABASE or the parameter user"),
        ("postgres:///db?user=u", "the host is empty: expected postgres://USER@HOST/DATABASE or the parameter host"),
        ("postgres:///db?user=&host=h", "the user name is empty"),
        ("postgres://u@/db?host=", "the parameter host is empty"),
        ("postgres://u@/db?host=a,b", "several hosts are not supported"),
        ("postgres://u@/db?host=h!", "the host \"h!\" contains \"!\""),
        ("postgres://u@/db?host=zz::1", "\"zz::1\" is not an IPv6 address"),
        ("postgres://u@/db?host=%2F" + String(repeating: "d", count: 100), "is longer than"),
        ("postgres://u@h/db?requiressl=yes", "invalid requiressl \"yes\": expected 0 or 1"),
        ("postgres://u@h/db?sslrootcert=", "the parameter sslrootcert is empty"),
        ("postgres://u@h/db?sslrootcert=system&sslmode=require", "sslrootcert=system requires sslmode=verify-full (found sslmode=require)"),
        ("postgres://u@h/db?sslrootcert=system&sslmode=verify-ca", "sslrootcert=system requires sslmode=verify-full"),
        ("postgres://u@h/db?sslrootcert=system&requiressl=1", "sslrootcert=system requires sslmode=verify-full"),
        ("postgres://u@h/db?sslcert=c.pem", "sslcert and sslkey must be given together"),
        ("postgres://u@h/db?sslkey=k.pem", "sslcert and sslkey must be given together"),
        ("postgres://u@h/db?connect_timeout=abc", "invalid connect_timeout \"abc\""),
        ("postgres://u@h/db?connect_timeout=0", "invalid connect_timeout \"0\""),
        ("postgres://u@h/db?connect_timeout=1.5", "invalid connect_timeout"),
        ("postgres://u@h/db?connect_timeout=9999999", "invalid connect_timeout"),
        ("postgres://u@h/db?statement_cache_capacity=-1", "invalid statement_cache_capacity \"-1\": expected a whole number from 0 to 100000"),
        ("postgres://u@h/db?statement_cache_capacity=100001", "invalid statement_cache_capacity \"100001\""),
        ("postgres://u@h/db?statement_cache_capacity=", "invalid statement_cache_capacity"),
        ("postgres://u@h/db?statement_cache_capacity=1e3", "invalid statement_cache_capacity"),
        ("postgres://u:p%zz@h/db", "the password has an invalid percent escape"),
        ("postgres://u:p%4@h/db", "the password has an invalid percent escape"),
        ("postgres://u:p%@h/db", "the password has an invalid percent escape"),
        ("postgres://u%@h/db", "the user name has an invalid percent escape"),
        ("postgres://u@h/d%", "the database name has an invalid percent escape"),
        ("postgres://u@h/db?application_name=%G0", "the value of the parameter application_name has an invalid percent escape"),
        ("postgres://u%00@h/db", "the user name contains a NUL character (%00)"),
        ("postgres://u@h/d%00b", "the database name contains a NUL character"),
        ("postgres://u%FF@h/db", "the user name is not valid UTF-8 once percent-decoded"),
        ("postgres://u@h/db#fragment", "the URL has a fragment (#)"),
        ("postgres://u:pa#ss@h/db#x", "the URL has a fragment (#)"),
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
            "postgres://u@h/db?password=hunter2secret&port=x", "postgres://u@h/db?sslpassword=hunter2secret&bogus=1",
            "postgres://u@h/db?password=hunter2secret&password=hunter2secret",
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

    @Test func newPropertiesRoundTripThroughTheDescription() throws {
        var configuration = PostgresConfiguration(host: "/var/run/postgresql", port: 5433, user: "app", sslMode: .verifyCA)
        configuration.sslRootCert = "/etc/ssl/our ca.pem"
        configuration.sslCert = "/k/c.crt"
        configuration.sslKey = "/k/c&.key"
        configuration.serverOptions = "-c search_path=app,public"
        #expect(configuration.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5433")
        #expect(configuration.description == "postgres://app@%2Fvar%2Frun%2Fpostgresql:5433/app?sslmode=verify-ca"
            + "&sslrootcert=%2Fetc%2Fssl%2Four%20ca.pem&sslcert=%2Fk%2Fc.crt&sslkey=%2Fk%2Fc%26.key&options=-c%20search_path%3Dapp%2Cpublic")
        #expect(try PostgresConfiguration(url: configuration.description) == configuration)
        #expect(PostgresConfiguration(host: "db", user: "app").unixSocketPath == nil)
    }

    @Test func ignoredParametersDoNotTakePartInEquality() throws {
        let plain = try PostgresConfiguration(url: "postgres://u@h/db")
        let ignoring = try PostgresConfiguration(url: "postgres://u@h/db?keepalives_idle=30&gssencmode=disable")
        #expect(ignoring.ignoredURLParameters == ["keepalives_idle", "gssencmode"])
        #expect(plain.ignoredURLParameters.isEmpty)
        #expect(plain == ignoring)
        #expect(plain.hashValue == ignoring.hashValue)
        // The names only, never the values.
        let secret = try PostgresConfiguration(url: "postgres://u@h/db?sslpassword=hunter2secret")
        #expect(secret.ignoredURLParameters == ["sslpassword"])
        #expect(!secret.description.contains("hunter2secret"))
    }

    @Test func theStatementCacheCapacityComesFromTheURLAndGoesBackIntoTheDescription() throws {
        let standard = try PostgresConfiguration(url: "postgres://u@h/db")
        #expect(standard.statementCacheCapacity == 512)
        #expect(!standard.description.contains("statement_cache_capacity"))
        let none = try PostgresConfiguration(url: "postgres://u@h/db?statement_cache_capacity=0")
        #expect(none.statementCacheCapacity == 0)
        #expect(none.ignoredURLParameters.isEmpty)
        #expect(none != standard)
        #expect(try PostgresConfiguration(url: none.description) == none)
        #expect(none.description.hasSuffix("&statement_cache_capacity=0"))
        #expect(try PostgresConfiguration(url: "postgres://u@h/db?statement_cache_capacity=100000").statementCacheCapacity == 100_000)
    }

    @Test func everyLibpqParameterIsAccepted() throws {
        let names = [
            "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
            "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
            "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
            "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
            "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation",
            "service", "target_session_attrs", "load_balance_hosts", "require_auth",
        ]
        let applied: Set = [
            "host", "port", "dbname", "user", "password", "connect_timeout", "options", "application_name",
            "fallback_application_name", "sslmode", "requiressl", "sslcert", "sslkey", "sslrootcert",
        ]
        let valid = [
            "host": "h", "port": "5433", "dbname": "d", "user": "u", "password": "p", "connect_timeout": "5", "sslmode": "require",
            "requiressl": "1", "sslcert": "c.pem", "sslkey": "k.pem", "sslrootcert": "ca.pem",
            // The parameters that ask for a protection, with a value that asks for none.
            "channel_binding": "prefer", "gssencmode": "disable", "sslcertmode": "allow", "requirepeer": "", "sslcrl": "",
            "sslcrldir": "", "require_auth": "",
        ]
        let query = names.map { "\($0)=\(valid[$0] ?? "x")" }.joined(separator: "&")
        let configuration = try PostgresConfiguration(url: "postgres:///?" + query)
        #expect(configuration.ignoredURLParameters == names.filter { !applied.contains($0) })
        #expect(configuration.ignoredURLParameters.count == 27)
        #expect(configuration.host == "h" && configuration.port == 5433 && configuration.database == "d")
        #expect(configuration.user == "u" && configuration.password == "p")
        #expect(configuration.applicationName == "x" && configuration.serverOptions == "x")
        #expect(configuration.sslMode == .require && configuration.sslRootCert == "ca.pem")
    }

    @Test func unixSocketAndOptionsInThePostgresNIOConfiguration() throws {
        let socket = try PostgresConfiguration(
            url: "postgresql:///shop?host=/var/run/postgresql&user=app&sslmode=require&options=-c%20statement_timeout%3D5s")
            .postgresNIOConfiguration()
        #expect(socket.unixSocketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(socket.host == nil)
        #expect(!socket.tls.isAllowed)
        #expect(socket.username == "app" && socket.database == "shop")
        let parameters = Dictionary(uniqueKeysWithValues: socket.options.additionalStartupParameters)
        #expect(parameters == ["client_encoding": "UTF8", "TimeZone": "UTC", "options": "-c statement_timeout=5s"])
    }

    @Test func certificateVerificationFollowsTheMode() throws {
        func verification(_ url: String) throws -> CertificateVerification? {
            try PostgresConfiguration(url: url).postgresNIOConfiguration().tls.sslContext?.configuration.certificateVerification
        }
        #expect(try verification("postgres://u@h/db?sslmode=disable") == nil)
        #expect(try verification("postgres://u@h/db?sslmode=prefer") == CertificateVerification.none)
        #expect(try verification("postgres://u@h/db?sslmode=require") == CertificateVerification.none)
        #expect(try verification("postgres://u@h/db?sslmode=verify-ca") == .noHostnameVerification)
        #expect(try verification("postgres://u@h/db?sslmode=verify-full") == .fullVerification)
        #expect(try verification("postgres://u@h/db?sslrootcert=system") == .fullVerification)
        let verifyCA = try PostgresConfiguration(url: "postgres://u@h/db?sslmode=verify-ca").postgresNIOConfiguration()
        #expect(verifyCA.tls.isEnforced)
        #expect(verifyCA.tls.sslContext?.configuration.trustRoots == .default)
    }

    @Test func unusableTLSFilesThrowADatabaseErrorNamingTheFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let notPEM = directory.appendingPathComponent("not-pem.crt").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPEM))
        let missing = directory.appendingPathComponent("missing.crt").path

        func message(_ configure: (inout PostgresConfiguration) -> Void) -> String? {
            var configuration = PostgresConfiguration(host: "h", user: "u", sslMode: .verifyFull)
            configure(&configuration)
            do {
                _ = try configuration.postgresNIOConfiguration()
                return nil
            } catch let error as DatabaseError {
                #expect(error.resultCode == .SQLITE_CANTOPEN)
                return error.message
            } catch {
                return "not a DatabaseError: \(error)"
            }
        }
        #expect(message { $0.sslRootCert = missing } == "the sslrootcert file \"\(missing)\" does not exist")
        #expect(message { $0.sslRootCert = directory.path } == "the sslrootcert file \"\(directory.path)\" cannot be read")
        #expect(message { $0.sslRootCert = notPEM }?.hasPrefix("the sslrootcert file \"\(notPEM)\" ") == true)
        #expect(message { $0.sslMode = .require; $0.sslRootCert = missing }?.contains(missing) == true)
        // prefer never verifies, so it does not read the file.
        #expect(message { $0.sslMode = .prefer; $0.sslRootCert = missing } == nil)
        #expect(message { $0.sslCert = missing; $0.sslKey = notPEM } == "the sslcert file \"\(missing)\" does not exist")
        #expect(message { $0.sslCert = notPEM } == "sslcert and sslkey must be given together (only one is set)")
        #expect(message { $0.sslMode = .require; $0.sslRootCert = "system" } == "sslrootcert=system requires sslmode verify-full (sslmode is require)")
        // No TLS, no files.
        #expect(message { $0.sslMode = .disable; $0.sslRootCert = missing } == nil)

        // Connecting reports it before any network access, naming the server.
        var configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "u", sslMode: .verifyCA)
        configuration.sslRootCert = missing
        do {
            let session = try await PostgresSession.connect(to: configuration)
            try await session.close()
            Issue.record("connected")
        } catch let error as DatabaseError {
            #expect(error.message == "cannot connect to PostgreSQL at 127.0.0.1:1, database \"u\": the sslrootcert file \"\(missing)\" does not exist")
        }
    }

    /// The seed of the random tests below, from the run's seed (TestSeed:
    /// `QUARRY_TEST_SEED` replays a run).
    static let seed = TestSeed.derived("PostgresConfigurationTests")

    static var replay: String { TestSeed.replay }

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
        var generator = SeededGenerator(state: Self.seed ^ 0x5155_4152_5259)  // "QUARRY"
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
                #expect(!configuration.user.isEmpty && !configuration.host.isEmpty, "\(url.debugDescription), \(Self.replay)")
                #expect((1...65535).contains(configuration.port), "\(url.debugDescription), \(Self.replay)")
                if configuration.password == nil {
                    #expect((try? Self.parse(configuration.description).get()) == configuration, "\(url.debugDescription), \(Self.replay)")
                }
            case .failure(let error):
                refused += 1
                #expect(!error.message.isEmpty, "\(url.debugDescription), \(Self.replay)")
            }
        }
        #expect(parsed + refused == 20_000)
        #expect(parsed > 500, "the generator should hit some valid URLs, \(Self.replay)")
    }

    @Test func mutatedValidURLsNeverCrash() {
        var generator = SeededGenerator(state: Self.seed ^ 22)
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
                #expect((1...65535).contains(configuration.port), "\(url.debugDescription), \(Self.replay)")
            case .failure(let error):
                #expect(!error.message.isEmpty, "\(url.debugDescription), \(Self.replay)")
            }
        }
    }
}
