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
///   optional. Both are percent-decoded, so a password should have `@`,
///   `:`, `/`, `?`, `#` and `%` percent-encoded (`%40` for `@`). A URL
///   that is malformed when read as RFC 3986 reads it is read again as
///   libpq reads it: the user information ends at an `@` before the first
///   `/`, so a password with an unencoded `?`, `#`, `@` or `:` still works
///   (each such `@` is tried in turn, and the first reading that makes a
///   valid URL wins). A `/` in a password must be encoded (`%2F`), as in
///   libpq.
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
///   ``ignoredURLParameters`` so that the caller can warn about them,
///   except that a parameter asking for a protection that Quarry cannot
///   give is refused (see ``init(url:)``). A name that is not one of
///   libpq's is refused, so that a misspelled one does not go unnoticed,
///   and so is a parameter given twice.
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
/// | `statement_cache_capacity` | ``statementCacheCapacity``, a whole number from 0 to 100000 (pgx's parameter; libpq has none) |
///
/// Ignored (listed in ``ignoredURLParameters``): `hostaddr`, `passfile`,
/// `client_encoding` (the session always uses `UTF8`), `keepalives`,
/// `keepalives_idle`, `keepalives_interval`, `keepalives_count`,
/// `tcp_user_timeout`, `replication`, `sslcompression`, `sslpassword`,
/// `sslsni`, `ssl_min_protocol_version`, `ssl_max_protocol_version`,
/// `krbsrvname`, `gsslib`, `gssdelegation`, `service`,
/// `target_session_attrs` and `load_balance_hosts`; and, with a value that
/// asks for no protection, `channel_binding`, `gssencmode`, `sslcertmode`,
/// `requirepeer`, `sslcrl`, `sslcrldir` and `require_auth` (the values
/// that ask for one are refused: see ``init(url:)``).
///
/// For example, `postgresql:///shop?host=/var/run/postgresql&user=app` and
/// `postgresql://app@%2Fvar%2Frun%2Fpostgresql/shop` both connect to the
/// socket `/var/run/postgresql/.s.PGSQL.5432`, and
/// `postgres://app@db.internal/shop?sslmode=verify-full&sslrootcert=%2Fetc%2Fdb%2Fca.pem`
/// verifies the server's certificate against a certificate authority of your own.
///
/// A malformed URL, an unknown parameter, an invalid value of a parameter
/// that applies (`port=abc`, `sslmode=bogus`), or a parameter that asks for
/// a protection Quarry cannot give throws a ``PostgresURLError`` that names
/// the problem. No error, and no ``description``, ever shows a part of the
/// password: an error that would quote a part of the URL that may hold
/// one (from its first `:` to its last `@`, and the values of the
/// parameters `password` and `sslpassword`) says
/// `(not shown: it may be part of a password)` instead.
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

    /// How many prepared statements each connection of a
    /// `PostgresDatabasePool` keeps (the URL parameter
    /// `statement_cache_capacity`, as pgx names it); 0 keeps none.
    ///
    /// A query that a connection runs for its rows (every fetch: its SQL
    /// starts with `SELECT`, `VALUES` or `TABLE`) is prepared as a named
    /// statement the first time the connection runs it, and later runs skip
    /// the server's parsing and planning. Other statements (writes, DDL,
    /// transaction control) are sent unnamed, as PostgresNIO sends them.
    /// When the cache is full, the least recently used statement is dropped
    /// and deallocated when its access ends. Set it to 0 behind a pooler
    /// in transaction mode (PgBouncer), which would send a statement
    /// prepared on one server connection to another (the article "Running
    /// on PostgreSQL" tells what else breaks there). Default:
    /// ``defaultStatementCacheCapacity``, 512.
    public var statementCacheCapacity: Int = PostgresConfiguration.defaultStatementCacheCapacity

    /// The default of ``statementCacheCapacity``, 512 statements per connection.
    public static let defaultStatementCacheCapacity = 512

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
    /// (the format, and the parameters that apply or are ignored, are in
    /// the documentation of ``PostgresConfiguration``).
    ///
    /// A parameter that asks for a protection that Quarry and PostgresNIO
    /// cannot give is refused, rather than ignored, so that a connection is
    /// never less protected than its URL says. An empty value means the
    /// parameter is unset, as in libpq, and is accepted.
    ///
    /// | Parameter | Accepted (ignored) | Refused, because |
    /// | --- | --- | --- |
    /// | `channel_binding` | `disable`, `prefer` | `require`: PostgresNIO authenticates with SCRAM-SHA-256 without channel binding (it has no SCRAM-SHA-256-PLUS) |
    /// | `gssencmode` | `disable`, `prefer` | `require`: PostgresNIO has no GSSAPI encryption |
    /// | `sslcertmode` | `disable`, `allow` | `require`: Quarry cannot check that the server asked for the client certificate |
    /// | `requirepeer` | (empty) | any value: Quarry cannot check the user of the server process behind a Unix-domain socket |
    /// | `sslcrl`, `sslcrldir` | (empty) | any value: Quarry's TLS (NIOSSL) does not check certificate revocation lists |
    /// | `require_auth` | (empty) | any value: PostgresNIO answers whichever authentication method the server asks for |
    ///
    /// Another value of `channel_binding`, `gssencmode` or `sslcertmode` is
    /// refused as invalid.
    ///
    /// - Throws: ``PostgresURLError`` when the URL is malformed, names an
    ///   unknown parameter, gives an invalid value to a parameter that
    ///   applies, or asks for a protection that cannot be given (above),
    ///   with a message that names the problem. The message never shows a
    ///   part of the password, even one that is not percent-encoded.
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
            && lhs.statementCacheCapacity == rhs.statementCacheCapacity
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
        hasher.combine(statementCacheCapacity)
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
        if statementCacheCapacity != PostgresConfiguration.defaultStatementCacheCapacity {
            options.append("statement_cache_capacity=\(statementCacheCapacity)")
        }
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

extension PostgresConfiguration: CustomReflectable {
    /// The properties, for `dump` and debuggers, with the password replaced
    /// by `***`, as in ``description``.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "user": user, "password": password.map { _ in "***" } as Any,
                "database": database, "sslMode": sslMode, "applicationName": applicationName as Any,
                "connectTimeout": connectTimeout, "sslRootCert": sslRootCert as Any, "sslCert": sslCert as Any,
                "sslKey": sslKey as Any, "serverOptions": serverOptions as Any,
                "ignoredURLParameters": ignoredURLParameters, "statementDeadline": statementDeadline as Any,
                "acquisitionTimeout": acquisitionTimeout as Any, "statementCacheCapacity": statementCacheCapacity,
            ],
            displayStyle: .struct)
    }
}

/// The error thrown by ``PostgresConfiguration/init(url:)`` for a malformed
/// connection URL.
///
/// Its ``message`` names the problem, such as
/// `"invalid port \"54x\": expected a number from 1 to 65535"`. It never
/// contains a part of the password, even of one that is not
/// percent-encoded: it shows `(not shown: it may be part of a password)`
/// in place of a part of the URL that may hold one.
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
        "statement_cache_capacity",
    ]

    /// libpq's connection parameters that ``PostgresConfiguration`` accepts
    /// without applying them (listed in ``PostgresConfiguration/ignoredURLParameters``).
    /// Those that ask for a protection are accepted only with a value that
    /// asks for none (see ``refuseUnprovidedProtections(_:_:)``).
    static let ignoredParameters: Set<String> = [
        "hostaddr", "passfile", "channel_binding", "client_encoding", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslcompression",
        "sslpassword", "sslcertmode", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs",
        "load_balance_hosts", "require_auth",
    ]

    /// Every parameter name that a URL may use.
    static let knownParameters = appliedParameters.union(ignoredParameters)

    /// The longest path of a Unix-domain socket (`sun_path` holds 108 bytes
    /// with the terminating NUL on Linux; 104 on Darwin).
    #if canImport(Darwin)
    static let maximumSocketPathLength = 103
    #else
    static let maximumSocketPathLength = 107
    #endif

    /// The byte ranges of the URL that may hold a secret (see
    /// ``secretRanges(in:from:)``): no message shows a byte of them.
    private var secretRanges: [Range<Int>] = []

    /// What a message shows in place of bytes that may hold a secret.
    static let hiddenText = "(not shown: it may be part of a password)"

    func fail(_ message: String) -> PostgresURLError { PostgresURLError(message: message) }

    mutating func parse() throws(PostgresURLError) -> PostgresConfiguration {
        if bytes.isEmpty { throw fail("the URL is empty") }
        if let index = bytes.firstIndex(where: { $0 < 0x21 || $0 == 0x7F }) {
            throw fail("the URL contains a space or a control character at offset \(index); percent-encode it")
        }
        // The scheme, any letter case. The text shown ends before the first
        // ":", so it is never part of a password.
        let lowered = bytes.prefix(16).map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        guard let scheme = Self.schemes.first(where: { lowered.starts(with: Array($0.utf8)) }) else {
            let shown = Self.shown(bytes.prefix(while: { $0 != UInt8(ascii: ":") }).prefix(20))
            throw fail("the scheme must be postgres:// or postgresql:// (found \"\(shown)\")")
        }
        let start = scheme.utf8.count
        secretRanges = Self.secretRanges(in: bytes, from: start)

        // First as RFC 3986 reads a URL; then, if that fails, as libpq reads
        // one: the user information ends at an "@" before the first "/", so
        // that a password may hold an unencoded "?", "#", "@" or ":". Each
        // such "@" is tried in turn; the first reading that succeeds wins.
        let strict: PostgresURLError
        do {
            return try parse(from: start, userInfoEnd: nil)
        } catch {
            strict = error
        }
        // When all fail, the RFC 3986 reading's error, unless it hides a part
        // of the URL and one of libpq's readings names a problem elsewhere.
        var error = strict
        let firstSlash = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        for at in start..<firstSlash where bytes[at] == UInt8(ascii: "@") {
            do {
                return try parse(from: start, userInfoEnd: at)
            } catch let other {
                if error.message.contains(Self.hiddenText) && !other.message.contains(Self.hiddenText) { error = other }
            }
        }
        if let password = Self.userInfoSecretRange(in: bytes, from: start), bytes[password].contains(UInt8(ascii: "/")) {
            throw fail(error.message + " (a / in a password must be percent-encoded as %2F)")
        }
        throw error
    }

    /// One reading of the URL after its scheme (from `start`): with
    /// `userInfoEnd` nil, as RFC 3986 reads it (the authority ends at the
    /// first "/" or "?", its user information at its last "@"); otherwise
    /// with the user information ending at the "@" at `userInfoEnd`.
    private func parse(from start: Int, userInfoEnd: Int?) throws(PostgresURLError) -> PostgresConfiguration {
        var rest = bytes[start...]
        var userInfo: ArraySlice<UInt8>? = nil
        if let userInfoEnd {
            userInfo = bytes[start..<userInfoEnd]
            rest = bytes[(userInfoEnd + 1)...]
        }
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
        // percent-encoded, as RFC 3986 and libpq say), and its user
        // information at the last "@" (so an unencoded "@" in a password
        // still works).
        var path: ArraySlice<UInt8>? = nil
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            path = rest[(slash + 1)...]
            rest = rest[..<slash]
        }
        if userInfo == nil, let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            userInfo = rest[..<at]
            rest = rest[(at + 1)...]
        }

        // User information, optional (the parameter `user` may name the user).
        var user: String? = nil
        var password: String? = nil
        if let userInfo {
            let colon = userInfo.firstIndex(of: UInt8(ascii: ":"))
            let name = userInfo[..<(colon ?? userInfo.endIndex)]
            if name.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                throw fail("the user name contains /, ? or #: percent-encode them")
            }
            user = try decode(name, what: "user name")
            if let colon {
                let decoded = try decode(userInfo[(colon + 1)...], what: "password")
                password = decoded.isEmpty ? nil : decoded
            }
            if user?.isEmpty ?? true { throw fail("the user name is empty: expected postgres://USER@HOST/DATABASE") }
        }

        // Host and port, optional (the parameters `host` and `port` may give them).
        var hostSource = rest.startIndex..<rest.endIndex
        var (host, port) = try parseHostPort(rest)

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
        var sources: [String: Range<Int>] = [:]
        for (name, value, source) in parameters {
            values[name] = value
            sources[name] = source
        }
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
        if let value = values["host"], let source = sources["host"] {
            if host != nil { throw fail("the host is given both in the URL and as the parameter host") }
            host = try parseHostParameter(value, from: source)
            hostSource = source
        }
        if let value = values["port"], let source = sources["port"] {
            if port != nil { throw fail("the port is given both in the URL and as the parameter port") }
            port = try parsePort(Array(value.utf8)[...], from: source)
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
            throw fail("the Unix-domain socket path \(quoted(socket.utf8.prefix(40), from: hostSource)) is longer than \(Self.maximumSocketPathLength) bytes")
        }
        configuration.ignoredURLParameters = parameters.map(\.name).filter { Self.ignoredParameters.contains($0) }
        try refuseUnprovidedProtections(values, sources)
        try apply(values, sources, to: &configuration)
        return configuration
    }

    /// The byte ranges of the URL (whose scheme ends at `start`) that may
    /// hold a secret, under any reading of it: from the first ":" to the
    /// last "@" (where a password is, whichever "@" ends it), and the value
    /// of each parameter `password` or `sslpassword`, up to the next "&"
    /// that starts a known parameter (a value may hold an unencoded "&"),
    /// wherever a "?" or "&" starts it (a password may hold a "?").
    static func secretRanges(in bytes: [UInt8], from start: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        if let userInfo = userInfoSecretRange(in: bytes, from: start) { ranges.append(userInfo) }
        /// The parameter name that starts at `index`, if an "=" ends it.
        func parameterName(at index: Int) -> String? {
            guard index < bytes.endIndex,
                let equal = bytes[index...].firstIndex(where: {
                    $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "?")
                }),
                bytes[equal] == UInt8(ascii: "=")
            else { return nil }
            return lenientlyDecoded(bytes[index..<equal])
        }
        for index in start..<bytes.endIndex where bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "&") {
            guard let name = parameterName(at: index + 1), name == "password" || name == "sslpassword",
                let equal = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "="))
            else { continue }
            var end = bytes.endIndex
            for next in (equal + 1)..<bytes.endIndex where bytes[next] == UInt8(ascii: "&") {
                if let following = parameterName(at: next + 1), knownParameters.contains(following) {
                    end = next
                    break
                }
            }
            ranges.append((equal + 1)..<end)
        }
        return ranges
    }

    /// Where a password of the user information may be, under any reading
    /// of the URL: from the first ":" after the scheme to the last "@".
    static func userInfoSecretRange(in bytes: [UInt8], from start: Int) -> Range<Int>? {
        guard let lastAt = bytes[start...].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[start..<lastAt].firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        return (colon + 1)..<lastAt
    }

    /// `text` percent-decoded where it can be, for guessing parameter names.
    private static func lenientlyDecoded(_ text: ArraySlice<UInt8>) -> String {
        var decoded: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == UInt8(ascii: "%"), index + 2 < text.endIndex,
                let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(text[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// `text`, taken from the bytes `source` of the URL, quoted for a
    /// message; or ``hiddenText`` when those bytes may hold a secret.
    private func quoted(_ text: some Sequence<UInt8>, from source: Range<Int>) -> String {
        if secretRanges.contains(where: { $0.overlaps(source) }) { return Self.hiddenText }
        return "\"" + Self.shown(text) + "\""
    }

    /// A slice of the URL, quoted for a message, or ``hiddenText``.
    private func quoted(_ slice: ArraySlice<UInt8>) -> String {
        quoted(slice, from: slice.startIndex..<slice.endIndex)
    }

    /// Refuses the parameters that ask for a protection that Quarry and
    /// PostgresNIO cannot give, rather than ignore them and connect with
    /// less protection than the URL asks for. An empty value means the
    /// parameter is unset, as in libpq.
    private func refuseUnprovidedProtections(
        _ values: [String: String], _ sources: [String: Range<Int>]
    ) throws(PostgresURLError) {
        func mode(_ name: String, accepted: [String], refused: String, reason: String) throws(PostgresURLError) {
            guard let value = values[name], !value.isEmpty else { return }
            if value == refused { throw fail("\(name)=\(refused) is not supported: \(reason)") }
            guard accepted.contains(value) else {
                throw fail("invalid \(name) \(quoted(value.utf8.prefix(20), from: sources[name] ?? 0..<0)): expected \((accepted + [refused]).joined(separator: ", "))")
            }
        }
        try mode(
            "channel_binding", accepted: ["disable", "prefer"], refused: "require",
            reason: "PostgresNIO authenticates with SCRAM-SHA-256 without channel binding (it has no SCRAM-SHA-256-PLUS), so it cannot require it; use channel_binding=prefer or remove the parameter")
        try mode(
            "gssencmode", accepted: ["disable", "prefer"], refused: "require",
            reason: "PostgresNIO has no GSSAPI encryption; use sslmode=verify-full for an encrypted connection to an authenticated server")
        try mode(
            "sslcertmode", accepted: ["disable", "allow"], refused: "require",
            reason: "Quarry cannot check that the server asked for the client certificate")
        let unprovided = [
            ("requirepeer", "Quarry cannot check the operating-system user of the server process behind a Unix-domain socket"),
            ("sslcrl", "Quarry's TLS (NIOSSL) does not check certificate revocation lists"),
            ("sslcrldir", "Quarry's TLS (NIOSSL) does not check certificate revocation lists"),
            ("require_auth", "PostgresNIO answers whichever authentication method the server asks for, so Quarry cannot restrict it"),
        ]
        for (name, reason) in unprovided where !(values[name]?.isEmpty ?? true) {
            throw fail("the parameter \(name) is not supported: \(reason); remove it")
        }
    }

    /// Applies the parameters other than the URL's own parts.
    private func apply(
        _ values: [String: String], _ sources: [String: Range<Int>], to configuration: inout PostgresConfiguration
    ) throws(PostgresURLError) {
        func quotedValue(_ name: String, _ length: Int) -> String {
            quoted((values[name] ?? "").utf8.prefix(length), from: sources[name] ?? 0..<0)
        }
        var explicitMode: PostgresConfiguration.SSLMode? = nil
        if let value = values["sslmode"] {
            guard let mode = PostgresConfiguration.SSLMode(rawValue: value) else {
                throw fail("unsupported sslmode \(quotedValue("sslmode", 40)) (supported: \(PostgresConfiguration.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            explicitMode = mode
        }
        if let value = values["requiressl"] {
            guard value == "0" || value == "1" else {
                throw fail("invalid requiressl \(quotedValue("requiressl", 20)): expected 0 or 1")
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
                throw fail("invalid connect_timeout \(quotedValue("connect_timeout", 20)): expected whole seconds from 1 to 999999")
            }
            configuration.connectTimeout = .seconds(seconds)
        }
        if let value = values["options"], !value.isEmpty { configuration.serverOptions = value }
        if let value = values["statement_cache_capacity"] {
            guard !value.isEmpty, value.utf8.count <= 6, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let capacity = Int(value), capacity <= 100_000
            else {
                throw fail(
                    "invalid statement_cache_capacity \(quotedValue("statement_cache_capacity", 20)): expected a whole number from 0 to 100000")
            }
            configuration.statementCacheCapacity = capacity
        }
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
                throw fail("\(quoted(address)) is not an IPv6 address")
            }
            let after = text[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    throw fail("unexpected \(quoted(after)) after the IPv6 address: expected :PORT")
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
                host = try tcpHost(name, from: name.startIndex..<name.endIndex)
            }
        }
        return (host, try portText.map { text throws(PostgresURLError) in try parsePort(text, from: text.startIndex..<text.endIndex) })
    }

    /// The value of the parameter `host`: a socket directory, a name, or an
    /// IP address (an IPv6 one without brackets).
    private func parseHostParameter(_ value: String, from source: Range<Int>) throws(PostgresURLError) -> String {
        if value.hasPrefix("/") { return try socketDirectory(value) }
        if value.isEmpty { throw fail("the parameter host is empty") }
        if value.contains(",") { throw fail("several hosts are not supported: name one host") }
        if value.contains(":") {
            guard Self.isIPv6Address(value) else {
                throw fail("\(quoted(value.utf8.prefix(60), from: source)) is not an IPv6 address")
            }
            return value
        }
        return try tcpHost(Array(value.utf8)[...], from: source)
    }

    private func socketDirectory(_ directory: String) throws(PostgresURLError) -> String {
        if directory.contains(",") { throw fail("several hosts are not supported: name one host") }
        return directory
    }

    /// A host name or IPv4 address, checked; `source` is where it is in the URL.
    private func tcpHost(_ name: ArraySlice<UInt8>, from source: Range<Int>) throws(PostgresURLError) -> String {
        if name.contains(UInt8(ascii: ",")) {
            throw fail("several hosts are not supported: name one host")
        }
        let allowed: (UInt8) -> Bool = { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        if let bad = name.first(where: { !allowed($0) }) {
            throw fail("the host \(quoted(name.prefix(60), from: source)) contains \(quoted([bad], from: source)): expected a name, an IPv4 address, an IPv6 address in brackets, or a percent-encoded socket directory")
        }
        if name.count > 253 { throw fail("the host name is longer than 253 characters") }
        let host = String(decoding: name, as: UTF8.self)
        if host.allSatisfy({ $0.isNumber || $0 == "." }) && !Self.isIPv4Address(host) {
            throw fail("\(quoted(name, from: source)) is not an IPv4 address")
        }
        return host
    }

    /// A port number; `source` is where it is in the URL.
    private func parsePort(_ text: ArraySlice<UInt8>, from source: Range<Int>) throws(PostgresURLError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let value = Int(String(decoding: text, as: UTF8.self)), (1...65535).contains(value)
        else {
            throw fail("invalid port \(quoted(text.prefix(20), from: source)): expected a number from 1 to 65535")
        }
        return value
    }

    /// The parameters of the query, in order, decoded, each with where its
    /// value is in the URL; refuses unknown names and repeated ones.
    private func parseParameters(
        _ query: ArraySlice<UInt8>
    ) throws(PostgresURLError) -> [(name: String, value: String, source: Range<Int>)] {
        var parameters: [(name: String, value: String, source: Range<Int>)] = []
        var seen: Set<String> = []
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard let equal = pair.firstIndex(of: UInt8(ascii: "=")) else {
                throw fail("the parameter \(quoted(pair.prefix(40))) has no value: expected NAME=VALUE")
            }
            let name = try decode(pair[..<equal], what: "parameter name")
            guard Self.knownParameters.contains(name) else {
                throw fail("unknown parameter \(quoted(name.utf8.prefix(40), from: pair.startIndex..<equal)): not one of libpq's connection parameters")
            }
            let rawValue = pair[(equal + 1)...]
            let value = try decode(rawValue, what: "value of the parameter \(name)")
            guard seen.insert(name).inserted else { throw fail("the parameter \(name) is given twice") }
            parameters.append((name, value, rawValue.startIndex..<rawValue.endIndex))
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
