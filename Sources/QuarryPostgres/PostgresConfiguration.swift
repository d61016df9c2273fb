// PostgresConfiguration: where a PostgreSQL server is and how to talk to it,
// from a connection URL (postgres://user:password@host:port/database?options)
// or field by field.
//
// The parser is hand-written over the URL's bytes so that every malformed URL
// gets an error that names what is wrong (and so that no input can crash it):
// Foundation's URL accepts or refuses without saying why.

import Foundation
import PostgresNIO  // re-exports NIOSSL
import Quarry

/// The address, credentials and options of a connection to a PostgreSQL
/// server.
///
/// Make one from a connection URL, as libpq and most tools accept it:
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgres://app:s%40cret@db.internal:5432/shop?sslmode=require")
/// ```
///
/// or field by field with ``init(host:port:user:password:database:sslMode:applicationName:connectTimeout:)``
/// and the properties.
///
/// The URL has the form `postgres://[user[:password]@][host][:port][/database][?parameter=value&…]`
/// (`postgresql://` works too):
///
/// - `user`: required, here or as the parameter `user`. `password`:
///   optional. Both are percent-decoded, so a password with `@`, `:`, `/`,
///   `?`, `#` or `%` must have them percent-encoded (`%40` for `@`).
/// - `host`: required, here or as the parameter `host`: a name
///   (`db.internal`), an IPv4 address (`127.0.0.1`), an IPv6 address in
///   brackets (`[::1]`), or, percent-encoded, the directory of a Unix-domain
///   socket (`%2Fvar%2Frun%2Fpostgresql`; see ``unixSocketPath``). One host
///   only.
/// - `port`: 1 to 65535; 5432 when absent.
/// - `database`: percent-decoded; the user name when absent.
/// - Parameters: libpq's connection parameters
///   (<https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-PARAMKEYWORDS>),
///   percent-decoded. Those in the table below apply; the others are
///   accepted but have no effect, and their names are listed in
///   ``ignoredURLParameters`` so that the caller can warn about them. A name
///   that is not one of libpq's is refused, so that a misspelled one does
///   not go unnoticed, and so is a parameter given twice.
///
/// | Parameter | Effect |
/// | --- | --- |
/// | `host`, `port`, `dbname`, `user`, `password` | as in the URL's own parts (giving one both ways is refused); a `host` that starts with `/` is a Unix-socket directory |
/// | `sslmode` | ``sslMode``: `disable`, `prefer` (the default), `require`, `verify-ca` or `verify-full` (`allow` is not supported) |
/// | `requiressl` | `1` means `sslmode=require` when `sslmode` is absent; `0` does nothing |
/// | `sslrootcert` | ``sslRootCert``: a PEM file of trusted certificate authorities, or `system` |
/// | `sslcert`, `sslkey` | ``sslCert`` and ``sslKey``: a client certificate and its private key (PEM, unencrypted), given together |
/// | `application_name` | ``applicationName`` |
/// | `fallback_application_name` | ``applicationName``, when `application_name` is absent |
/// | `connect_timeout` | ``connectTimeout``, whole seconds from 1 to 999999; 10 when absent |
/// | `options` | ``serverOptions``, sent to the server at connection start |
///
/// Ignored (listed in ``ignoredURLParameters``): `hostaddr`, `passfile`,
/// `channel_binding`, `client_encoding` (the session always uses `UTF8`),
/// `keepalives`, `keepalives_idle`, `keepalives_interval`,
/// `keepalives_count`, `tcp_user_timeout`, `replication`, `gssencmode`,
/// `sslcompression`, `sslpassword`, `sslcertmode`, `sslcrl`, `sslcrldir`,
/// `sslsni`, `requirepeer`, `ssl_min_protocol_version`,
/// `ssl_max_protocol_version`, `krbsrvname`, `gsslib`, `gssdelegation`,
/// `service`, `target_session_attrs` and `load_balance_hosts`.
///
/// For example, `postgresql:///shop?host=/var/run/postgresql&user=app` and
/// `postgresql://app@%2Fvar%2Frun%2Fpostgresql/shop` both connect to the
/// socket `/var/run/postgresql/.s.PGSQL.5432`, and
/// `postgres://app@db.internal/shop?sslmode=verify-full&sslrootcert=%2Fetc%2Fdb%2Fca.pem`
/// verifies the server's certificate against a certificate authority of your own.
///
/// A malformed URL, an unknown parameter, or an invalid value of a parameter
/// that applies (`port=abc`, `sslmode=bogus`) throws a ``PostgresURLError``
/// that names the problem.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Whether and how the connection uses TLS (the URL parameter `sslmode`).
    ///
    /// The modes mean what they mean in libpq
    /// (<https://www.postgresql.org/docs/15/libpq-ssl.html>). TLS is never
    /// used over a Unix-domain socket (see ``PostgresConfiguration/unixSocketPath``),
    /// whatever the mode, as in libpq.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, plain text otherwise; the server's
        /// certificate is not verified. libpq's default, and this type's.
        case prefer
        /// TLS or no connection; the server's certificate is not verified
        /// (the connection is encrypted, but an attacker who can intercept it
        /// can impersonate the server: use ``verifyFull`` against that).
        ///
        /// As in libpq, when ``PostgresConfiguration/sslRootCert`` is set,
        /// this mode verifies the certificate like ``verifyCA``.
        case require
        /// TLS or no connection, with the server's certificate chain verified
        /// against ``PostgresConfiguration/sslRootCert`` (the system's trusted
        /// certificate authorities when nil); the host name is not checked.
        case verifyCA = "verify-ca"
        /// TLS or no connection, with the server's certificate chain verified
        /// like ``verifyCA``, and its names (or IP addresses) checked against
        /// ``PostgresConfiguration/host``.
        case verifyFull = "verify-full"
    }

    /// The server's host name, IPv4 address or IPv6 address (without
    /// brackets); or, when it starts with `/`, the directory of the server's
    /// Unix-domain socket (see ``unixSocketPath``).
    public var host: String
    /// The server's TCP port; with a Unix-domain socket, the number in the
    /// socket's file name.
    public var port: Int
    /// The user name to log in as.
    public var user: String
    /// The password, if the server asks for one.
    public var password: String?
    /// The database to connect to.
    public var database: String
    /// Whether and how the connection uses TLS.
    public var sslMode: SSLMode
    /// The `application_name` the server shows for the connection, if any.
    public var applicationName: String?
    /// How long establishing a connection (TCP, TLS and login) may take before
    /// it fails.
    public var connectTimeout: Duration
    /// The path of a PEM file of the certificate authorities trusted to sign
    /// the server's certificate (the URL parameter `sslrootcert`), or
    /// `system` for the system's trusted authorities; nil for the system's
    /// when ``sslMode`` verifies the certificate.
    ///
    /// With ``SSLMode/require``, setting it turns verification on (as
    /// ``SSLMode/verifyCA``), as in libpq. As in libpq, `system` requires
    /// ``SSLMode/verifyFull`` (a URL with `sslrootcert=system` and no
    /// `sslmode` gets it), since any public authority could sign a
    /// certificate that `verify-ca` would accept. The file is read when a
    /// connection is made: a missing or unreadable file makes connecting
    /// throw a `DatabaseError` that names it.
    public var sslRootCert: String?
    /// The path of a PEM file with the client certificate (and its chain)
    /// presented to the server (the URL parameter `sslcert`); used with
    /// ``sslKey``, when TLS is used.
    public var sslCert: String?
    /// The path of a PEM file with the unencrypted private key of ``sslCert``
    /// (the URL parameter `sslkey`).
    public var sslKey: String?
    /// Command-line options sent to the server at connection start (the URL
    /// parameter `options`), such as `-c search_path=app`; nil for none.
    public var serverOptions: String?
    /// The names of the URL parameters that this configuration does not
    /// apply (see the table in ``PostgresConfiguration``), in the order of
    /// the URL; never their values. Empty for a configuration made field by
    /// field. It does not take part in equality.
    public var ignoredURLParameters: [String] = []

    /// How long a statement may wait for the server's answer before the
    /// client gives up on it, closes its connection, and throws a
    /// `DatabaseError` whose `isConnectionError` is true (for a `COMMIT`,
    /// `isCommitOutcomeUnknown`). It bounds what the server cannot: a network
    /// that drops every packet, a server that hangs. Nil waits forever.
    ///
    /// The server's own limit is `Configuration.maximumStatementDuration`
    /// (PostgreSQL's `statement_timeout`), which cancels the statement and
    /// keeps the connection; when it is set, the client waits at least that
    /// long plus 5 seconds, so that the server's error arrives first.
    /// Default: ``defaultStatementDeadline``, 2 minutes: raise it for
    /// migrations that build large indexes.
    public var statementDeadline: Duration? = PostgresConfiguration.defaultStatementDeadline

    /// How long an access of a `PostgresDatabasePool` waits for a
    /// connection when all of them are in use, before it throws a
    /// `DatabaseError` whose `isBusy` is true. Nil waits forever. Default:
    /// ``defaultAcquisitionTimeout``, 30 seconds.
    public var acquisitionTimeout: Duration? = PostgresConfiguration.defaultAcquisitionTimeout

    /// The default of ``statementDeadline``, 2 minutes.
    public static let defaultStatementDeadline: Duration = .seconds(120)
    /// The default of ``acquisitionTimeout``, 30 seconds.
    public static let defaultAcquisitionTimeout: Duration = .seconds(30)

    /// The default port of PostgreSQL, 5432.
    public static let defaultPort = 5432
    /// The default connection timeout, 10 seconds.
    public static let defaultConnectTimeout: Duration = .seconds(10)
    /// The value of ``sslRootCert`` that means the system's trusted
    /// certificate authorities: `system`, as in libpq.
    public static let systemTrustStore = "system"

    /// The path of the server's Unix-domain socket when ``host`` is a
    /// directory (starts with `/`), as libpq names it: `<host>/.s.PGSQL.<port>`;
    /// nil for a TCP host.
    public var unixSocketPath: String? {
        host.hasPrefix("/") ? (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)" : nil
    }

    /// Creates a configuration field by field.
    ///
    /// The other properties (``sslRootCert``, ``sslCert``, ``sslKey``,
    /// ``serverOptions``) start nil: set them afterwards.
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address (an IPv6 address
    ///     without brackets), or the directory of its Unix-domain socket.
    ///   - port: The server's TCP port (5432 by default).
    ///   - user: The user name.
    ///   - password: The password, if any.
    ///   - database: The database; the user name when nil.
    ///   - sslMode: Whether and how to use TLS (``SSLMode/prefer`` by default).
    ///   - applicationName: The `application_name` of the connection, if any.
    ///   - connectTimeout: How long connecting may take (10 seconds by default).
    public init(
        host: String,
        port: Int = PostgresConfiguration.defaultPort,
        user: String,
        password: String? = nil,
        database: String? = nil,
        sslMode: SSLMode = .prefer,
        applicationName: String? = nil,
        connectTimeout: Duration = PostgresConfiguration.defaultConnectTimeout
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database ?? user
        self.sslMode = sslMode
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
    }

    /// Creates a configuration from a `postgres://` or `postgresql://` URL
    /// (the format is in the documentation of ``PostgresConfiguration``).
    ///
    /// - Throws: ``PostgresURLError`` when the URL is malformed, names an
    ///   unknown parameter, or gives an invalid value to a parameter that
    ///   applies, with a message that names the problem. The message never
    ///   repeats the password.
    public init(url: String) throws(PostgresURLError) {
        var parser = URLParser(Array(url.utf8))
        self = try parser.parse()
    }

    /// Whether two configurations connect the same way: all properties but
    /// ``ignoredURLParameters`` are equal.
    public static func == (lhs: PostgresConfiguration, rhs: PostgresConfiguration) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.user == rhs.user && lhs.password == rhs.password
            && lhs.database == rhs.database && lhs.sslMode == rhs.sslMode && lhs.applicationName == rhs.applicationName
            && lhs.connectTimeout == rhs.connectTimeout && lhs.sslRootCert == rhs.sslRootCert && lhs.sslCert == rhs.sslCert
            && lhs.sslKey == rhs.sslKey && lhs.serverOptions == rhs.serverOptions
    }

    /// Hashes the properties that take part in equality (all but
    /// ``ignoredURLParameters``).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(user)
        hasher.combine(password)
        hasher.combine(database)
        hasher.combine(sslMode)
        hasher.combine(applicationName)
        hasher.combine(connectTimeout)
        hasher.combine(sslRootCert)
        hasher.combine(sslCert)
        hasher.combine(sslKey)
        hasher.combine(serverOptions)
    }

    /// The configuration as a URL, with the password replaced by `***`: safe
    /// for logs. Unlike a URL, it always shows the port, the database and
    /// `sslmode`; a Unix-socket directory is percent-encoded in the host
    /// part. A configuration parsed from a URL gives a description that
    /// parses back to an equal configuration, unless it has a password.
    public var description: String {
        var text = "postgres://" + URLParser.percentEncoded(user)
        if password != nil { text += ":***" }
        let hostText: String
        if host.hasPrefix("/") {
            hostText = URLParser.percentEncoded(host)
        } else if host.contains(":") {
            hostText = "[\(host)]"
        } else {
            hostText = host
        }
        text += "@" + hostText + ":\(port)/" + URLParser.percentEncoded(database)
        var options = ["sslmode=\(sslMode.rawValue)"]
        if let applicationName { options.append("application_name=" + URLParser.percentEncoded(applicationName)) }
        if connectTimeout != PostgresConfiguration.defaultConnectTimeout {
            options.append("connect_timeout=\(connectTimeout.components.seconds)")
        }
        if let sslRootCert { options.append("sslrootcert=" + URLParser.percentEncoded(sslRootCert)) }
        if let sslCert { options.append("sslcert=" + URLParser.percentEncoded(sslCert)) }
        if let sslKey { options.append("sslkey=" + URLParser.percentEncoded(sslKey)) }
        if let serverOptions { options.append("options=" + URLParser.percentEncoded(serverOptions)) }
        return text + "?" + options.joined(separator: "&")
    }

    /// Where the server is, for messages: `host:port`, or the socket's path.
    var endpointDescription: String {
        unixSocketPath ?? (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
    }

    /// The configuration of a PostgresNIO connection to the same server, for
    /// code that talks to PostgresNIO directly.
    ///
    /// Besides the fields of this configuration, it asks the server for the
    /// `UTF8` client encoding and the `UTC` time zone (startup parameters),
    /// which ``PostgresSession`` relies on to read and write text and dates.
    /// A ``host`` that starts with `/` gives a Unix-domain socket
    /// configuration (``unixSocketPath``), without TLS.
    ///
    /// The TLS configuration follows ``sslMode`` and ``sslRootCert``:
    ///
    /// | Mode | Certificate chain | Host name |
    /// | --- | --- | --- |
    /// | ``SSLMode/disable`` | (no TLS) | (no TLS) |
    /// | ``SSLMode/prefer`` | not verified | not checked |
    /// | ``SSLMode/require`` | verified against ``sslRootCert`` when set, else not verified | not checked |
    /// | ``SSLMode/verifyCA`` | verified against ``sslRootCert`` (the system's authorities when nil) | not checked |
    /// | ``SSLMode/verifyFull`` | verified against ``sslRootCert`` (the system's authorities when nil) | checked against ``host`` |
    ///
    /// - Throws: `DatabaseError` (`SQLITE_CANTOPEN`) when a file of
    ///   ``sslRootCert``, ``sslCert`` or ``sslKey`` is missing, unreadable or
    ///   not PEM (the message names the file), when only one of ``sslCert``
    ///   and ``sslKey`` is set, when ``sslRootCert`` is `system` with a mode
    ///   other than ``SSLMode/verifyFull``, or when NIOSSL cannot make the
    ///   TLS context.
    public func postgresNIOConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let unixSocketPath {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: unixSocketPath, username: user, password: password, database: database)
        } else {
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: try tls())
        }
        configuration.options.connectTimeout = .nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        var parameters = [("client_encoding", "UTF8"), ("TimeZone", "UTC")]
        if let applicationName { parameters.append(("application_name", applicationName)) }
        if let serverOptions { parameters.append(("options", serverOptions)) }
        configuration.options.additionalStartupParameters = parameters
        return configuration
    }

    /// The TLS mode and context of a TCP connection.
    private func tls() throws(DatabaseError) -> PostgresConnection.Configuration.TLS {
        if sslMode == .disable { return .disable }
        if sslRootCert == Self.systemTrustStore && sslMode != .verifyFull {
            throw DatabaseError(
                resultCode: .SQLITE_CANTOPEN,
                message: "sslrootcert=system requires sslmode verify-full (sslmode is \(sslMode.rawValue))")
        }
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .prefer:
            tlsConfiguration.certificateVerification = .none
        case .require:
            tlsConfiguration.certificateVerification = sslRootCert == nil ? .none : .noHostnameVerification
        case .verifyCA:
            tlsConfiguration.certificateVerification = .noHostnameVerification
        case .verifyFull:
            tlsConfiguration.certificateVerification = .fullVerification
        }
        if tlsConfiguration.certificateVerification != .none, let sslRootCert, sslRootCert != Self.systemTrustStore {
            tlsConfiguration.trustRoots = .certificates(try Self.certificates(inFile: sslRootCert, parameter: "sslrootcert"))
        }
        switch (sslCert, sslKey) {
        case (nil, nil):
            break
        case (let certificatePath?, let keyPath?):
            tlsConfiguration.certificateChain = try Self.certificates(inFile: certificatePath, parameter: "sslcert")
                .map { .certificate($0) }
            let keyBytes = try Self.contents(ofFile: keyPath, parameter: "sslkey")
            do {
                tlsConfiguration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: keyBytes, format: .pem))
            } catch {
                throw DatabaseError(
                    resultCode: .SQLITE_CANTOPEN,
                    message: "the sslkey file \"\(keyPath)\" is not an unencrypted PEM private key (\(error))")
            }
        default:
            throw DatabaseError(
                resultCode: .SQLITE_CANTOPEN, message: "sslcert and sslkey must be given together (only one is set)")
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: tlsConfiguration)
        } catch {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "TLS setup failed: \(error)")
        }
        return sslMode == .prefer ? .prefer(context) : .require(context)
    }

    /// The bytes of a file named by a URL parameter, or an error that names it.
    private static func contents(ofFile path: String, parameter: String) throws(DatabaseError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the \(parameter) file \"\(path)\" does not exist")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the \(parameter) file \"\(path)\" cannot be read")
        }
        return Array(data)
    }

    /// The PEM certificates of a file named by a URL parameter, or an error
    /// that names it.
    private static func certificates(inFile path: String, parameter: String) throws(DatabaseError) -> [NIOSSLCertificate] {
        let bytes = try contents(ofFile: path, parameter: parameter)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw DatabaseError(
                resultCode: .SQLITE_CANTOPEN, message: "the \(parameter) file \"\(path)\" is not a PEM certificate file (\(error))")
        }
        if certificates.isEmpty {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "the \(parameter) file \"\(path)\" contains no PEM certificate")
        }
        return certificates
    }
}

/// The error thrown by ``PostgresConfiguration/init(url:)`` for a malformed
/// connection URL.
///
/// Its ``message`` names the problem, such as
/// `"invalid port \"54x\": expected a number from 1 to 65535"`. It never
/// contains the password.
public struct PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the URL.
    public let message: String

    /// Creates an error with a message.
    public init(message: String) {
        self.message = message
    }

    /// `"invalid PostgreSQL URL: "` followed by the message.
    public var description: String { "invalid PostgreSQL URL: \(message)" }
}

/// The parser of connection URLs, over UTF-8 bytes.
struct URLParser {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private static let schemes = ["postgres://", "postgresql://"]

    /// libpq's connection parameters that ``PostgresConfiguration`` applies.
    static let appliedParameters: Set<String> = [
        "host", "port", "dbname", "user", "password", "connect_timeout", "options", "application_name",
        "fallback_application_name", "sslmode", "requiressl", "sslcert", "sslkey", "sslrootcert",
    ]

    /// libpq's connection parameters that ``PostgresConfiguration`` accepts
    /// without applying them (listed in ``PostgresConfiguration/ignoredURLParameters``).
    static let ignoredParameters: Set<String> = [
        "hostaddr", "passfile", "channel_binding", "client_encoding", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslcompression",
        "sslpassword", "sslcertmode", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs",
        "load_balance_hosts",
    ]

    /// The longest path of a Unix-domain socket (`sun_path` holds 108 bytes
    /// with the terminating NUL on Linux; 104 on Darwin).
    #if canImport(Darwin)
    static let maximumSocketPathLength = 103
    #else
    static let maximumSocketPathLength = 107
    #endif

    func fail(_ message: String) -> PostgresURLError { PostgresURLError(message: message) }

    mutating func parse() throws(PostgresURLError) -> PostgresConfiguration {
        if bytes.isEmpty { throw fail("the URL is empty") }
        if let index = bytes.firstIndex(where: { $0 < 0x21 || $0 == 0x7F }) {
            throw fail("the URL contains a space or a control character at offset \(index); percent-encode it")
        }
        // The scheme, any letter case.
        var rest = bytes[...]
        let lowered = bytes.prefix(16).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        guard let scheme = Self.schemes.first(where: { lowered.starts(with: Array($0.utf8)) }) else {
            let shown = Self.shown(bytes.prefix(while: { $0 != UInt8(ascii: ":") }).prefix(20))
            throw fail("the scheme must be postgres:// or postgresql:// (found \"\(shown)\")")
        }
        rest = rest.dropFirst(scheme.utf8.count)
        if rest.contains(UInt8(ascii: "#")) {
            throw fail("the URL has a fragment (#); percent-encode a # in a password as %23")
        }

        // Split off the query, then the path.
        var query: ArraySlice<UInt8>? = nil
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = rest[(mark + 1)...]
            rest = rest[..<mark]
        }
        // The authority ends at the first "/" (so a "/" in a password must be
        // percent-encoded, as RFC 3986 says), and its user information at the
        // last "@" (so an unencoded "@" in a password still works).
        var path: ArraySlice<UInt8>? = nil
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            path = rest[(slash + 1)...]
            rest = rest[..<slash]
        }

        // User information, optional (the parameter `user` may name the user).
        var user: String? = nil
        var password: String? = nil
        var hostPort = rest
        if let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            let userInfo = rest[..<at]
            hostPort = rest[(at + 1)...]
            if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
                user = try decode(userInfo[..<colon], what: "user name")
                let decoded = try decode(userInfo[(colon + 1)...], what: "password")
                password = decoded.isEmpty ? nil : decoded
            } else {
                user = try decode(userInfo, what: "user name")
            }
            if user?.isEmpty ?? true { throw fail("the user name is empty: expected postgres://USER@HOST/DATABASE") }
        }

        // Host and port, optional (the parameters `host` and `port` may give them).
        var (host, port) = try parseHostPort(hostPort)

        // Database.
        var database: String? = nil
        if let path, !path.isEmpty {
            if path.contains(UInt8(ascii: "/")) {
                throw fail("the path must be one database name; percent-encode a / in it as %2F")
            }
            database = try decode(path, what: "database name")
        }

        // Parameters.
        let parameters = try query.map { query throws(PostgresURLError) in try parseParameters(query) } ?? []
        var values: [String: String] = [:]
        for (name, value) in parameters { values[name] = value }
        func merge(_ name: String, _ current: String?, _ what: String) throws(PostgresURLError) -> String? {
            guard let value = values[name] else { return current }
            if current != nil { throw fail("the \(what) is given both in the URL and as the parameter \(name)") }
            return value
        }
        user = try merge("user", user, "user name")
        if let value = values["password"] {
            if password != nil { throw fail("the password is given both in the URL and as the parameter password") }
            password = value.isEmpty ? nil : value
        }
        if let value = values["dbname"] {
            if database != nil { throw fail("the database name is given both in the URL and as the parameter dbname") }
            database = value.isEmpty ? nil : value
        }
        if let value = values["host"] {
            if host != nil { throw fail("the host is given both in the URL and as the parameter host") }
            host = try parseHostParameter(value)
        }
        if let value = values["port"] {
            if port != nil { throw fail("the port is given both in the URL and as the parameter port") }
            port = try parsePort(Array(value.utf8)[...])
        }

        guard let user else {
            throw fail("the URL names no user: expected postgres://USER@HOST/DATABASE or the parameter user")
        }
        if user.isEmpty { throw fail("the user name is empty: expected postgres://USER@HOST/DATABASE") }
        guard let host else {
            throw fail("the host is empty: expected postgres://USER@HOST/DATABASE or the parameter host")
        }
        var configuration = PostgresConfiguration(
            host: host, port: port ?? PostgresConfiguration.defaultPort, user: user, password: password, database: database)
        if let socket = configuration.unixSocketPath, socket.utf8.count > Self.maximumSocketPathLength {
            throw fail("the Unix-domain socket path \"\(Self.shown(socket.utf8.prefix(40)))…\" is longer than \(Self.maximumSocketPathLength) bytes")
        }
        configuration.ignoredURLParameters = parameters.map(\.name).filter { Self.ignoredParameters.contains($0) }
        try apply(values, to: &configuration)
        return configuration
    }

    /// Applies the parameters other than the URL's own parts.
    private func apply(_ values: [String: String], to configuration: inout PostgresConfiguration) throws(PostgresURLError) {
        var explicitMode: PostgresConfiguration.SSLMode? = nil
        if let value = values["sslmode"] {
            guard let mode = PostgresConfiguration.SSLMode(rawValue: value) else {
                throw fail("unsupported sslmode \"\(Self.shown(value.utf8.prefix(40)))\" (supported: \(PostgresConfiguration.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            explicitMode = mode
        }
        if let value = values["requiressl"] {
            guard value == "0" || value == "1" else {
                throw fail("invalid requiressl \"\(Self.shown(value.utf8.prefix(20)))\": expected 0 or 1")
            }
            if value == "1" && explicitMode == nil { explicitMode = .require }
        }
        for name in ["sslrootcert", "sslcert", "sslkey"] where values[name]?.isEmpty == true {
            throw fail("the parameter \(name) is empty: expected the path of a file")
        }
        if let rootCert = values["sslrootcert"] {
            configuration.sslRootCert = rootCert
            if rootCert == PostgresConfiguration.systemTrustStore {
                if let explicitMode, explicitMode != .verifyFull {
                    throw fail("sslrootcert=system requires sslmode=verify-full (found sslmode=\(explicitMode.rawValue))")
                }
                explicitMode = .verifyFull
            }
        }
        configuration.sslMode = explicitMode ?? .prefer
        switch (values["sslcert"], values["sslkey"]) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            configuration.sslCert = certificate
            configuration.sslKey = key
        default:
            throw fail("sslcert and sslkey must be given together")
        }
        configuration.applicationName = values["application_name"] ?? values["fallback_application_name"]
        if let value = values["connect_timeout"] {
            guard !value.isEmpty, value.utf8.count <= 6, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let seconds = Int(value), seconds > 0
            else {
                throw fail("invalid connect_timeout \"\(Self.shown(value.utf8.prefix(20)))\": expected whole seconds from 1 to 999999")
            }
            configuration.connectTimeout = .seconds(seconds)
        }
        if let value = values["options"], !value.isEmpty { configuration.serverOptions = value }
    }

    /// The host and port of the URL's authority, each nil when absent.
    private func parseHostPort(_ text: ArraySlice<UInt8>) throws(PostgresURLError) -> (String?, Int?) {
        if text.isEmpty { return (nil, nil) }
        var host: String
        var portText: ArraySlice<UInt8>? = nil
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else {
                throw fail("the IPv6 address has no closing bracket ]")
            }
            let address = text[(text.startIndex + 1)..<close]
            host = String(decoding: address, as: UTF8.self)
            guard Self.isIPv6Address(host) else {
                throw fail("\"\(Self.shown(address))\" is not an IPv6 address")
            }
            let after = text[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    throw fail("unexpected \"\(Self.shown(after))\" after the IPv6 address: expected :PORT")
                }
                portText = after.dropFirst()
            }
        } else {
            var name = text
            if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
                name = text[..<colon]
                portText = text[(colon + 1)...]
            }
            if name.isEmpty { throw fail("the host is empty: expected postgres://USER@HOST/DATABASE") }
            if name.contains(UInt8(ascii: "%")) {
                // libpq's form of a Unix-domain socket directory in the authority.
                let directory = try decode(name, what: "host")
                guard directory.hasPrefix("/") else {
                    throw fail("a percent-encoded host must be a Unix-domain socket directory, starting with %2F")
                }
                host = try socketDirectory(directory)
            } else {
                host = try tcpHost(name)
            }
        }
        return (host, try portText.map { text throws(PostgresURLError) in try parsePort(text) })
    }

    /// The value of the parameter `host`: a socket directory, a name, or an
    /// IP address (an IPv6 one without brackets).
    private func parseHostParameter(_ value: String) throws(PostgresURLError) -> String {
        if value.hasPrefix("/") { return try socketDirectory(value) }
        if value.isEmpty { throw fail("the parameter host is empty") }
        if value.contains(",") { throw fail("several hosts are not supported: name one host") }
        if value.contains(":") {
            guard Self.isIPv6Address(value) else {
                throw fail("\"\(Self.shown(value.utf8.prefix(60)))\" is not an IPv6 address")
            }
            return value
        }
        return try tcpHost(Array(value.utf8)[...])
    }

    private func socketDirectory(_ directory: String) throws(PostgresURLError) -> String {
        if directory.contains(",") { throw fail("several hosts are not supported: name one host") }
        return directory
    }

    /// A host name or IPv4 address, checked.
    private func tcpHost(_ name: ArraySlice<UInt8>) throws(PostgresURLError) -> String {
        if name.contains(UInt8(ascii: ",")) {
            throw fail("several hosts are not supported: name one host")
        }
        let allowed: (UInt8) -> Bool = { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        if let bad = name.first(where: { !allowed($0) }) {
            throw fail("the host \"\(Self.shown(name.prefix(60)))\" contains \"\(Self.shown([bad]))\": expected a name, an IPv4 address, an IPv6 address in brackets, or a percent-encoded socket directory")
        }
        if name.count > 253 { throw fail("the host name is longer than 253 characters") }
        let host = String(decoding: name, as: UTF8.self)
        if host.allSatisfy({ $0.isNumber || $0 == "." }) && !Self.isIPv4Address(host) {
            throw fail("\"\(host)\" is not an IPv4 address")
        }
        return host
    }

    private func parsePort(_ text: ArraySlice<UInt8>) throws(PostgresURLError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int(String(decoding: text, as: UTF8.self)), (1...65535).contains(value)
        else {
            throw fail("invalid port \"\(Self.shown(text.prefix(20)))\": expected a number from 1 to 65535")
        }
        return value
    }

    /// The parameters of the query, in order, decoded; refuses unknown
    /// names and repeated ones.
    private func parseParameters(_ query: ArraySlice<UInt8>) throws(PostgresURLError) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        var seen: Set<String> = []
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard let equal = pair.firstIndex(of: UInt8(ascii: "=")) else {
                throw fail("the parameter \"\(Self.shown(pair.prefix(40)))\" has no value: expected NAME=VALUE")
            }
            let name = try decode(pair[..<equal], what: "parameter name")
            guard Self.appliedParameters.contains(name) || Self.ignoredParameters.contains(name) else {
                throw fail("unknown parameter \"\(Self.shown(name.utf8.prefix(40)))\": not one of libpq's connection parameters")
            }
            let value = try decode(pair[(equal + 1)...], what: "value of the parameter \(name)")
            guard seen.insert(name).inserted else { throw fail("the parameter \(name) is given twice") }
            parameters.append((name, value))
        }
        return parameters
    }

    /// Percent-decodes `text`, which must then be UTF-8 without NUL (the
    /// PostgreSQL startup message cannot carry NUL).
    private func decode(_ text: ArraySlice<UInt8>, what: String) throws(PostgresURLError) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < text.endIndex,
                    let high = Self.hexValue(text[index + 1]), let low = Self.hexValue(text[index + 2])
                else {
                    throw fail("the \(what) has an invalid percent escape: expected % and two hexadecimal digits")
                }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        if decoded.contains(0) { throw fail("the \(what) contains a NUL character (%00)") }
        guard let string = String(validating: decoded, as: UTF8.self) else {
            throw fail("the \(what) is not valid UTF-8 once percent-decoded")
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }

    /// Bytes shown in a message: printable ASCII kept, anything else as `?`.
    static func shown(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    static func isIPv4Address(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6Address(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// Percent-encodes what is not unreserved (RFC 3986), for ``PostgresConfiguration/description``.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            let unreserved = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if unreserved {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
