// Tests of TLS against real servers: two throwaway PostgreSQL clusters of the
// suite's own (scripts/postgres-server.sh start --ssl), which accept TCP
// connections over TLS only, with certificates the suite makes with openssl:
//
// - ca: the test certificate authority, and other-ca, an unrelated one;
// - server: signed by ca, for localhost (DNS:localhost, IP:127.0.0.1), the
//   certificate of the main server;
// - mismatch: signed by ca, for db.example only, the certificate of the second
//   server, whose name never matches 127.0.0.1;
// - client: signed by ca, a client certificate (the main server asks for one
//   signed by ca, and shows it in pg_stat_ssl).
//
// The servers start once for the suite and are stopped and deleted after it,
// failed or not. Without openssl or PostgreSQL's binaries, the suite is
// disabled and prints one line saying why. It does not use QUARRY_POSTGRES_URL.

import Foundation
import Quarry
import QuarryPostgres
import Testing

enum TLSTestServer {
    /// The files and ports of the servers of a run of the suite.
    struct Environment: Sendable {
        var directory: String
        /// The port of the server whose certificate names localhost and 127.0.0.1.
        var port: Int
        /// The port of the server whose certificate names db.example only.
        var mismatchPort: Int
        /// The directory of the main server's Unix-domain socket.
        var socketDirectory: String

        func file(_ name: String) -> String { directory + "/" + name }
    }

    @TaskLocal static var environment: Environment?

    static let scriptPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-server.sh").path

    /// Why the suite cannot run here, or nil.
    static let unavailableReason: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func inPath(_ name: String) -> Bool {
            path.contains { FileManager.default.isExecutableFile(atPath: $0 + "/" + name) }
        }
        if !inPath("openssl") { return "openssl is not installed" }
        if !inPath("bash") { return "bash is not installed" }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let packaged = versions.contains { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") }
        if !(inPath("initdb") && inPath("pg_ctl")) && !packaged {
            return "PostgreSQL's initdb and pg_ctl are not installed (in PATH or /usr/lib/postgresql/*/bin)"
        }
        if getuid() == 0 && getpwnam("postgres") == nil {
            return "running as root, but there is no postgres user to run the server as"
        }
        if !FileManager.default.fileExists(atPath: scriptPath) { return "\(scriptPath) is missing" }
        return nil
    }()

    static let enabled: Bool = {
        if let unavailableReason { print("PostgresTLSTests skipped: \(unavailableReason)") }
        return unavailableReason == nil
    }()

    /// Makes the certificates and keys in the current directory.
    static let certificateScript = #"""
        set -euo pipefail
        cat > ca.cnf <<'EOF'
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [v3_ca]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        EOF
        authority() {
            openssl req -x509 -config ca.cnf -extensions v3_ca -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
                -keyout "$1.key" -out "$1.crt" -days 2 -subj "/CN=$2"
        }
        leaf() {  # file, common name, subject alternative names (or ""), extended key usage
            {
                echo "basicConstraints = CA:FALSE"
                echo "keyUsage = critical, digitalSignature"
                echo "extendedKeyUsage = $4"
                if [ -n "$3" ]; then echo "subjectAltName = $3"; fi
            } > "$1.ext"
            openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2"
            openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 2 -extfile "$1.ext"
        }
        authority ca "Quarry Test CA"
        authority other-ca "Quarry Unrelated Test CA"
        leaf server localhost "DNS:localhost, IP:127.0.0.1" serverAuth
        leaf mismatch db.example "DNS:db.example" serverAuth
        leaf client quarry-client "" clientAuth
        """#

    /// Runs a program to its end (through bash, in `directory`, its output
    /// to a file); throws with its output when it fails.
    ///
    /// It spawns and waits for the process itself (posix_spawn, waitpid on a
    /// thread of its own): Foundation's Process did not always report the
    /// end of the server scripts, whose server outlives them.
    @discardableResult
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], directory: String
    ) async throws -> String {
        let outputPath = directory + "/output-\(UUID().uuidString).log"
        let command = ["bash", "-c", #"cd "$1" && out="$2" && shift 2 && exec "$@" >"$out" 2>&1 </dev/null"#, "bash", directory, outputPath]
            + arguments
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, argv, envp)
        guard spawned == 0 else { throw SetupError(message: "cannot run bash: error \(spawned)") }
        let child = pid
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: outputPath)
        guard status == 0 else {
            throw SetupError(message: "\(arguments.joined(separator: " ")) failed (wait status \(status)):\n\(text)")
        }
        return text
    }

    /// Starts a TLS-only server with a certificate; returns its port and
    /// the directory of its Unix-domain socket.
    static func startServer(certificate: String, in directory: String) async throws -> (port: Int, socketDirectory: String) {
        let state = directory + "/state-" + certificate
        try await run(
            ["bash", scriptPath, "start", "--ssl", directory + "/\(certificate).crt", directory + "/\(certificate).key", directory + "/ca.crt"],
            environment: ["QUARRY_POSTGRES_STATE_DIR": state], directory: directory)
        let stateText = try String(contentsOfFile: state + "/state", encoding: .utf8)
        let lines = stateText.split(separator: "\n")
        guard let portLine = lines.first(where: { $0.hasPrefix("PORT=") }), let port = Int(portLine.dropFirst("PORT=".count)),
            let directoryLine = lines.first(where: { $0.hasPrefix("DIR=") })
        else {
            throw SetupError(message: "no port or directory in \(state)/state:\n\(stateText)")
        }
        // The script writes it with printf %q: a mktemp name needs no quoting.
        return (port, String(directoryLine.dropFirst("DIR=".count)))
    }

    static func stopServer(certificate: String, in directory: String) async {
        _ = try? await run(
            ["bash", scriptPath, "stop"], environment: ["QUARRY_POSTGRES_STATE_DIR": directory + "/state-" + certificate],
            directory: directory)
    }

    struct SetupError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// Makes the certificates and starts the two servers around the whole suite,
/// then stops them and deletes every file, failed or not.
struct TLSServerScope: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quarry-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func cleanUp() async {
            async let main: Void = TLSTestServer.stopServer(certificate: "server", in: directory)
            async let mismatch: Void = TLSTestServer.stopServer(certificate: "mismatch", in: directory)
            _ = await (main, mismatch)
            try? FileManager.default.removeItem(atPath: directory)
        }
        do {
            try await TLSTestServer.run(["bash", "-c", TLSTestServer.certificateScript], directory: directory)
            async let main = TLSTestServer.startServer(certificate: "server", in: directory)
            async let mismatch = TLSTestServer.startServer(certificate: "mismatch", in: directory)
            let (server, mismatchServer) = try await (main, mismatch)
            let environment = TLSTestServer.Environment(
                directory: directory, port: server.port, mismatchPort: mismatchServer.port, socketDirectory: server.socketDirectory)
            try await TLSTestServer.$environment.withValue(environment) {
                try await function()
            }
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}

@Suite(.enabled(if: TLSTestServer.enabled), TLSServerScope())
struct PostgresTLSTests {
    let environment: TLSTestServer.Environment

    init() throws {
        environment = try #require(TLSTestServer.environment, "the suite's servers did not start")
    }

    func configuration(
        host: String = "localhost", mismatch: Bool = false, _ sslMode: PostgresConfiguration.SSLMode, rootCert: String? = "ca.crt"
    ) -> PostgresConfiguration {
        var configuration = PostgresConfiguration(
            host: host, port: mismatch ? environment.mismatchPort : environment.port, user: "postgres", database: "quarry_test",
            sslMode: sslMode, connectTimeout: .seconds(5))
        configuration.sslRootCert = rootCert.map(environment.file)
        return configuration
    }

    /// Connects, and answers whether the server sees TLS on the connection.
    func connectsOverTLS(_ configuration: PostgresConfiguration) async throws -> Bool {
        let session = try await PostgresSession.connect(to: configuration)
        let result = try await session.execute(sql: "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        try await session.close()
        return result.rows == [[.integer(1)]]
    }

    /// The error of a connection that must fail.
    func refusal(_ configuration: PostgresConfiguration) async -> DatabaseError? {
        do {
            let session = try await PostgresSession.connect(to: configuration)
            try? await session.close()
            Issue.record("connected with \(configuration)")
            return nil
        } catch let error as DatabaseError {
            return error
        } catch {
            Issue.record("not a DatabaseError: \(error)")
            return nil
        }
    }

    @Test func verifyFullWithTheRightAuthorityConnects() async throws {
        #expect(try await connectsOverTLS(configuration(host: "localhost", .verifyFull)))
        // The certificate names 127.0.0.1 too.
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", .verifyFull)))
    }

    @Test func verifyCAChecksTheChainButNotTheName() async throws {
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", .verifyCA)))
        // The certificate of db.example is signed by the right authority.
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", mismatch: true, .verifyCA)))
    }

    @Test func verifyFullRefusesACertificateForAnotherName() async throws {
        let error = try #require(await refusal(configuration(host: "127.0.0.1", mismatch: true, .verifyFull)))
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message.contains("127.0.0.1:\(environment.mismatchPort)"), "\(error.message)")
        #expect(error.message.contains("certificate"), "\(error.message)")
        #expect(error.message.contains("does not name the host \"127.0.0.1\""), "\(error.message)")
    }

    @Test(arguments: [PostgresConfiguration.SSLMode.verifyFull, .verifyCA, .require])
    func anUnrelatedAuthorityIsRefused(_ mode: PostgresConfiguration.SSLMode) async throws {
        // With sslrootcert, require verifies the chain too, as in libpq.
        let error = try #require(await refusal(configuration(host: "localhost", mode, rootCert: "other-ca.crt")))
        #expect(error.resultCode == .SQLITE_CANTOPEN)
        #expect(error.message.contains("TLS"), "\(error.message)")
        #expect(error.message.contains("certificate"), "\(error.message)")
    }

    @Test func requireAndPreferWithoutAnAuthorityConnectOverTLS() async throws {
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", .require, rootCert: nil)))
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", mismatch: true, .require, rootCert: nil)))
        #expect(try await connectsOverTLS(configuration(host: "127.0.0.1", .prefer, rootCert: nil)))
    }

    @Test func disableIsRefusedByATLSOnlyServer() async throws {
        let error = try #require(await refusal(configuration(host: "127.0.0.1", .disable, rootCert: nil)))
        #expect(error.sqlState == "28000", "\(error.message)")
        #expect(error.message.contains("no encryption"), "\(error.message)")
    }

    @Test func theClientCertificateIsPresented() async throws {
        var configuration = configuration(host: "localhost", .verifyFull)
        configuration.sslCert = environment.file("client.crt")
        configuration.sslKey = environment.file("client.key")
        let session = try await PostgresSession.connect(to: configuration)
        let result = try await session.execute(sql: "SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        try await session.close()
        #expect(result.rows == [[.text("/CN=quarry-client")]])

        // Without one, the server sees none.
        let anonymous = try await PostgresSession.connect(to: self.configuration(host: "localhost", .verifyFull))
        let none = try await anonymous.execute(sql: "SELECT client_dn FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        try await anonymous.close()
        #expect(none.rows == [[.null]])
    }

    @Test func theAuthorityFileBecomesTheTrustRoots() throws {
        let nio = try configuration(host: "localhost", .require).postgresNIOConfiguration()
        let tls = try #require(nio.tls.sslContext?.configuration)
        #expect(tls.certificateVerification == .noHostnameVerification)
        guard case .certificates(let certificates) = tls.trustRoots else {
            Issue.record("trust roots: \(String(describing: tls.trustRoots))")
            return
        }
        #expect(certificates.count == 1)
    }

    @Test func aUnixSocketConnectsWithoutTLS() async throws {
        // TLS is not used over a Unix-domain socket, whatever sslmode says, as in libpq.
        let encoded = try #require(environment.socketDirectory.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        for url in [
            "postgresql:///quarry_test?host=\(encoded)&port=\(environment.port)&user=postgres&sslmode=verify-full",
            "postgresql://postgres@\(encoded):\(environment.port)/quarry_test",
        ] {
            let configuration = try PostgresConfiguration(url: url)
            #expect(configuration.unixSocketPath == environment.socketDirectory + "/.s.PGSQL.\(environment.port)")
            let session = try await PostgresSession.connect(to: configuration)
            let result = try await session.execute(
                sql: "SELECT ssl::text, (inet_server_addr() IS NULL)::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            try await session.close()
            #expect(result.rows == [[.text("false"), .text("true")]], "\(url)")
        }
        // A directory without the server's socket.
        let missing = try #require(await refusal(PostgresConfiguration(url: "postgresql://postgres@%2Fnonexistent/quarry_test")))
        #expect(missing.message.contains("/nonexistent/.s.PGSQL.5432"), "\(missing.message)")
    }

    @Test func aPoolConnectsWithTheURLParameters() async throws {
        let encoded = try #require(environment.file("ca.crt").addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let pool = try PostgresDatabasePool(
            url: "postgresql://postgres@localhost:\(environment.port)/quarry_test?sslmode=verify-full&sslrootcert=\(encoded)&keepalives=1")
        #expect(pool.postgresConfiguration.ignoredURLParameters == ["keepalives"])
        let ssl = try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
        pool.close()
        #expect(ssl == "true")
    }
}
