// PostgresConfiguration: where a PostgreSQL server is and how to talk to it,
// from a connection URL (postgres://user:password@host:port/database?options)
// or field by field.
//
// The parser is hand-written over the URL's bytes so that every malformed URL
// gets an error that names what is wrong (and so that no input can crash it):
// Foundation's URL accepts or refuses without saying why.

import Foundation
import PostgresNIO  // re-exports NIOSSL

/// The address, credentials and options of a connection to a PostgreSQL
/// server.
///
/// Make one from a connection URL, as libpq and most tools accept it:
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgres://app:s%40cret@db.internal:5432/shop?sslmode=require")
/// ```
///
/// or field by field with ``init(host:port:user:password:database:sslMode:applicationName:connectTimeout:)``.
///
/// The URL has the form `postgres://user[:password]@host[:port][/database][?option=value&…]`
/// (`postgresql://` works too):
///
/// - `user`: required. `password`: optional. Both are percent-decoded, so a
///   password with `@`, `:`, `/`, `?`, `#` or `%` must have them
///   percent-encoded (`%40` for `@`).
/// - `host`: a name (`db.internal`), an IPv4 address (`127.0.0.1`), or an IPv6
///   address in brackets (`[::1]`). One host only; Unix-domain socket paths
///   are not supported.
/// - `port`: 1 to 65535; 5432 when absent.
/// - `database`: percent-decoded; the user name when absent.
/// - Options: `sslmode` (`disable`, `prefer`, `require` or `verify-full`, see
///   ``SSLMode``; `prefer` when absent, as in libpq), `application_name`
///   (shown in `pg_stat_activity`), and `connect_timeout` (whole seconds,
///   as in libpq; 10 when absent). Any other option is refused, so that a
///   misspelled one does not go unnoticed.
///
/// A malformed URL throws a ``PostgresURLError`` that names the problem.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Whether and how the connection uses TLS (the URL option `sslmode`).
    ///
    /// The modes mean what they mean in libpq
    /// (<https://www.postgresql.org/docs/15/libpq-ssl.html>):
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, plain text otherwise; the server's
        /// certificate is not verified. libpq's default, and this type's.
        case prefer
        /// TLS or no connection; the server's certificate is not verified
        /// (the connection is encrypted, but an attacker who can intercept it
        /// can impersonate the server: use ``verifyFull`` against that).
        case require
        /// TLS or no connection, with the server's certificate verified
        /// against the system's trusted certificate authorities and its name
        /// against ``PostgresConfiguration/host``.
        case verifyFull = "verify-full"
    }

    /// The server's host name, IPv4 address or IPv6 address (without brackets).
    public var host: String
    /// The server's TCP port.
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

    /// Creates a configuration field by field.
    ///
    /// - Parameters:
    ///   - host: The server's host name or IP address (an IPv6 address without brackets).
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
    /// - Throws: ``PostgresURLError`` when the URL is malformed, with a
    ///   message that names the problem. The message never repeats the
    ///   password.
    public init(url: String) throws(PostgresURLError) {
        var parser = URLParser(Array(url.utf8))
        self = try parser.parse()
    }

    /// The configuration as a URL, with the password replaced by `***`: safe
    /// for logs. Unlike a URL, it always shows the port and the database.
    public var description: String {
        var text = "postgres://" + URLParser.percentEncoded(user)
        if password != nil { text += ":***" }
        text += "@" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)/" + URLParser.percentEncoded(database)
        var options = ["sslmode=\(sslMode.rawValue)"]
        if let applicationName { options.append("application_name=" + URLParser.percentEncoded(applicationName)) }
        if connectTimeout != PostgresConfiguration.defaultConnectTimeout {
            options.append("connect_timeout=\(connectTimeout.components.seconds)")
        }
        return text + "?" + options.joined(separator: "&")
    }

    /// The configuration of a PostgresNIO connection to the same server, for
    /// code that talks to PostgresNIO directly.
    ///
    /// Besides the fields of this configuration, it asks the server for the
    /// `UTF8` client encoding and the `UTC` time zone (startup parameters),
    /// which ``PostgresSession`` relies on to read and write text and dates.
    ///
    /// - Throws: An error of NIOSSL when the TLS context cannot be created.
    public func postgresNIOConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable:
            tls = .disable
        case .prefer, .require:
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            tlsConfiguration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: tlsConfiguration)
            tls = sslMode == .prefer ? .prefer(context) : .require(context)
        case .verifyFull:
            let context = try NIOSSLContext(configuration: TLSConfiguration.makeClientConfiguration())
            tls = .require(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        var parameters = [("client_encoding", "UTF8"), ("TimeZone", "UTC")]
        if let applicationName { parameters.append(("application_name", applicationName)) }
        configuration.options.additionalStartupParameters = parameters
        return configuration
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
    static let options = ["sslmode", "application_name", "connect_timeout"]

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
        let at = rest.lastIndex(of: UInt8(ascii: "@"))

        // User information.
        guard let at else {
            throw fail("the URL names no user: expected postgres://USER@HOST/DATABASE")
        }
        let userInfo = rest[..<at]
        let hostPort = rest[(at + 1)...]
        let user: String
        var password: String? = nil
        if let colon = userInfo.firstIndex(of: UInt8(ascii: ":")) {
            user = try decode(userInfo[..<colon], what: "user name")
            let decoded = try decode(userInfo[(colon + 1)...], what: "password")
            password = decoded.isEmpty ? nil : decoded
        } else {
            user = try decode(userInfo, what: "user name")
        }
        if user.isEmpty { throw fail("the user name is empty: expected postgres://USER@HOST/DATABASE") }

        // Host and port.
        let (host, port) = try parseHostPort(hostPort)

        // Database.
        var database = user
        if let path, !path.isEmpty {
            if path.contains(UInt8(ascii: "/")) {
                throw fail("the path must be one database name; percent-encode a / in it as %2F")
            }
            database = try decode(path, what: "database name")
        }

        var configuration = PostgresConfiguration(host: host, port: port, user: user, password: password, database: database)
        if let query { try parseOptions(query, into: &configuration) }
        return configuration
    }

    private func parseHostPort(_ text: ArraySlice<UInt8>) throws(PostgresURLError) -> (String, Int) {
        if text.isEmpty { throw fail("the host is empty: expected postgres://USER@HOST/DATABASE") }
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
            if name.contains(UInt8(ascii: ",")) {
                throw fail("several hosts are not supported: name one host")
            }
            if name.contains(UInt8(ascii: "%")) || name.first == UInt8(ascii: "/") {
                throw fail("Unix-domain socket paths are not supported: name a TCP host")
            }
            let allowed: (UInt8) -> Bool = { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
            if let bad = name.first(where: { !allowed($0) }) {
                throw fail("the host \"\(Self.shown(name))\" contains \"\(Self.shown([bad]))\": expected a name, an IPv4 address, or an IPv6 address in brackets")
            }
            if name.count > 253 { throw fail("the host name is longer than 253 characters") }
            host = String(decoding: name, as: UTF8.self)
            if host.allSatisfy({ $0.isNumber || $0 == "." }) && !Self.isIPv4Address(host) {
                throw fail("\"\(host)\" is not an IPv4 address")
            }
        }
        var port = PostgresConfiguration.defaultPort
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(value)
            else {
                throw fail("invalid port \"\(Self.shown(portText.prefix(20)))\": expected a number from 1 to 65535")
            }
            port = value
        }
        return (host, port)
    }

    private func parseOptions(_ query: ArraySlice<UInt8>, into configuration: inout PostgresConfiguration) throws(PostgresURLError) {
        var seen: Set<String> = []
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard let equal = pair.firstIndex(of: UInt8(ascii: "=")) else {
                throw fail("the option \"\(Self.shown(pair.prefix(40)))\" has no value: expected NAME=VALUE")
            }
            let name = try decode(pair[..<equal], what: "option name")
            let value = try decode(pair[(equal + 1)...], what: "value of the option \(name)")
            guard Self.options.contains(name) else {
                throw fail("unknown option \"\(Self.shown(Array(name.utf8).prefix(40)))\" (supported: \(Self.options.joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted else { throw fail("the option \(name) is given twice") }
            switch name {
            case "sslmode":
                guard let mode = PostgresConfiguration.SSLMode(rawValue: value) else {
                    throw fail("unsupported sslmode \"\(Self.shown(Array(value.utf8).prefix(40)))\" (supported: \(PostgresConfiguration.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                configuration.sslMode = mode
            case "application_name":
                configuration.applicationName = value
            default:  // connect_timeout
                guard !value.isEmpty, value.utf8.count <= 6, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                    let seconds = Int(value), seconds > 0
                else {
                    throw fail("invalid connect_timeout \"\(Self.shown(Array(value.utf8).prefix(20)))\": expected whole seconds from 1 to 999999")
                }
                configuration.connectTimeout = .seconds(seconds)
            }
        }
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
