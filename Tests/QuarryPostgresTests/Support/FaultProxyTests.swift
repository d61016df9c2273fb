// Tests of FaultProxy, the fault tests' TCP proxy: PostgreSQL sessions through
// it in each mode, and raw sockets that tell a clean close (FIN) from a reset
// (RST). The target is the shared server of QUARRY_POSTGRES_URL when it is set
// (these tests never stop it), otherwise a PrivatePostgresServer that the tests
// running at the same time share (SharedPrivateServer).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Quarry
import QuarryPostgres
import QuarryTestSupport
import Synchronization
import Testing

/// Whether the proxy tests can run: with the shared server, or a private one.
private let faultProxyTestsEnabled = PostgresTestServer.url != nil || PrivatePostgresServer.isAvailable(for: "FaultProxyTests")

@Suite(.enabled(if: faultProxyTestsEnabled))
struct FaultProxyTests {
    /// Runs `body` with a proxy in front of a server, and a scope whose
    /// sessions connect through the proxy. Afterwards, closes the sessions,
    /// then the proxy (then the private server, if any).
    static func withProxy<T>(_ body: (FaultProxy, ProxiedSessions) async throws -> T) async throws -> T {
        func run(host: String, port: Int, user: String, database: String) async throws -> T {
            try await FaultProxy.with(targetHost: host, targetPort: port) { proxy in
                try await SessionScope.with { scope in
                    try await body(proxy, ProxiedSessions(proxy: proxy, user: user, database: database, scope: scope))
                }
            }
        }
        if PostgresTestServer.url != nil {
            let configuration = try PostgresTestServer.configuration
            return try await run(host: configuration.host, port: configuration.port, user: configuration.user, database: configuration.database)
        }
        let server = try await SharedPrivateServer.shared.acquire()
        let result: T
        do {
            result = try await run(host: "127.0.0.1", port: server.port, user: "postgres", database: "quarry_test")
        } catch {
            await SharedPrivateServer.shared.release()
            throw error
        }
        await SharedPrivateServer.shared.release()
        return result
    }

    /// Opens sessions through a proxy, in a ``SessionScope``.
    struct ProxiedSessions: Sendable {
        var proxy: FaultProxy
        var user: String
        var database: String
        var scope: SessionScope

        func connect(connectTimeoutSeconds: Int = 5) async throws -> PostgresSession {
            try await scope.connect(
                to: PostgresConfiguration(url: proxy.url(user: user, database: database, connectTimeoutSeconds: connectTimeoutSeconds)))
        }
    }

    @Test func forwardRunsQueriesAndCountsConnections() async throws {
        try await Self.withProxy { proxy, sessions in
            #expect(proxy.mode == .forward)
            let session = try await sessions.connect()
            #expect(try await session.execute(sql: "SELECT 1").rows == [[.integer(1)]])
            let other = try await sessions.connect()
            #expect(try await other.execute(sql: "SELECT 2").rows == [[.integer(2)]])
            #expect(proxy.connectionCount == 2)
            #expect(proxy.acceptedConnectionCount == 2)
            try await session.close()
            try await other.close()
            // The proxy sees the clients' FINs on its own event loop.
            #expect(try await eventually { proxy.connectionCount == 0 })
        }
    }

    /// `.drop` closes the sessions, `.reset` aborts them: either way, they
    /// and new connections fail at once, and `.forward` serves again.
    @Test(arguments: [FaultProxy.Mode.drop, .reset])
    func cuttingFailsSessionsQuicklyThenForwardWorksAgain(mode: FaultProxy.Mode) async throws {
        try await Self.withProxy { proxy, sessions in
            let session = try await sessions.connect()
            #expect(try await session.execute(sql: "SELECT 1").rows == [[.integer(1)]])
            await proxy.setMode(mode)
            #expect(proxy.connectionCount == 0)
            let queryError = await failure(within: .seconds(2) + TimingSlack.underSanitizers) { try await session.execute(sql: "SELECT 1") }
            #expect(queryError != nil && !(queryError is BoundedWaitTimeout), "\(String(describing: queryError))")
            // New connections are cut at once too.
            let connectError = await failure(within: .seconds(2) + TimingSlack.underSanitizers) { try await sessions.connect() }
            #expect(connectError != nil && !(connectError is BoundedWaitTimeout), "\(String(describing: connectError))")
            await proxy.setMode(.forward)
            let again = try await sessions.connect()
            #expect(try await again.execute(sql: "SELECT 3").rows == [[.integer(3)]])
        }
    }

    /// A raw socket tells the two ways of closing apart: `.drop` ends the
    /// stream (FIN: `recv` returns 0), `.reset` aborts it (RST: ECONNRESET),
    /// for connections open before the switch and for new ones.
    @Test func dropSendsFinAndResetSendsRst() async throws {
        try await Self.withProxy { proxy, _ in
            let dropped = try RawConnection(port: proxy.port)
            #expect(try await eventually { proxy.connectionCount == 1 })
            await proxy.setMode(.drop)
            #expect(dropped.receive() == .closed)
            #expect(try RawConnection(port: proxy.port).receive() == .closed)

            await proxy.setMode(.forward)
            let reset = try RawConnection(port: proxy.port)
            #expect(try await eventually { proxy.connectionCount == 1 })
            await proxy.setMode(.reset)
            #expect(reset.receive() == .reset)
            #expect(try RawConnection(port: proxy.port).receive() == .reset)
            #expect(proxy.acceptedConnectionCount == 4)
        }
    }

    @Test func blackholeStallsQueriesUntilTheProxyCloses() async throws {
        try await Self.withProxy { proxy, sessions in
            let session = try await sessions.connect()
            #expect(try await session.execute(sql: "SELECT 1").rows == [[.integer(1)]])
            await proxy.setMode(.blackhole)
            let query = PendingQuery(session: session, sql: "SELECT 5")
            try await Task.sleep(for: .milliseconds(300))
            #expect(!query.isDone, "a query through a blackhole was answered")
            #expect(proxy.connectionCount == 1)
            await proxy.close()
            let error = await failure(within: .seconds(3) + TimingSlack.underSanitizers) { try await query.task.value }
            #expect(error != nil && !(error is BoundedWaitTimeout), "\(String(describing: error))")
        }
    }

    @Test func blackholeThenForwardDeliversTheStalledQuery() async throws {
        try await Self.withProxy { proxy, sessions in
            let session = try await sessions.connect()
            await proxy.setMode(.blackhole)
            let query = PendingQuery(session: session, sql: "SELECT 6")
            try await Task.sleep(for: .milliseconds(300))
            #expect(!query.isDone, "a query through a blackhole was answered")
            await proxy.setMode(.forward)
            let rows = try await within(.seconds(3), "the stalled query") { try await query.task.value.rows }
            #expect(rows == [[.integer(6)]])
            try await session.close()
        }
    }

    @Test func blackholeMakesNewConnectionsTimeOut() async throws {
        try await Self.withProxy { proxy, sessions in
            await proxy.setMode(.blackhole)
            let clock = ContinuousClock()
            let start = clock.now
            let error = await failure(within: .seconds(5) + TimingSlack.underSanitizers) { try await sessions.connect(connectTimeoutSeconds: 1) }
            let elapsed = clock.now - start
            #expect(error != nil && !(error is BoundedWaitTimeout), "\(String(describing: error))")
            // It failed by the client's own timeout, not by the proxy closing it.
            #expect(elapsed >= .milliseconds(900), "failed after \(elapsed)")
            #expect(proxy.acceptedConnectionCount == 1)
        }
    }

    /// A target that refuses connections (a server that is down) makes the
    /// proxy close the client's connection; a closed proxy releases its port.
    @Test func closedTargetClosesClientsAndCloseReleasesThePort() async throws {
        // A closed proxy accepts no more connections on its port. The port
        // goes back to the system: a connection to it is refused, or reaches
        // whatever listener another test started there since (on a loaded
        // machine the system may hand the port out again at once), but never
        // this proxy.
        let first = try await FaultProxy.start(targetPort: 1)
        let releasedPort = first.port
        await first.close()
        let acceptedBefore = first.acceptedConnectionCount
        _ = try? RawConnection(port: releasedPort)
        #expect(first.acceptedConnectionCount == acceptedBefore)

        // Port 1: nothing listens there, connections are refused.
        let proxy = try await FaultProxy.start(targetPort: 1)
        let port = proxy.port
        #expect(try RawConnection(port: port).receive() == .closed)
        #expect(proxy.acceptedConnectionCount == 1)
        #expect(try await eventually { proxy.connectionCount == 0 })
        await proxy.close()
        // Closing again does nothing.
        await proxy.close()
        _ = try? RawConnection(port: port)
        #expect(proxy.acceptedConnectionCount == 1)
    }
}

// MARK: - Helpers

/// The error `operation` throws within `limit` (a ``BoundedWaitTimeout`` when
/// it takes longer), or nil when it succeeds.
func failure<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async -> (any Error)? {
    do {
        _ = try await within(limit, "operation", operation)
        return nil
    } catch {
        return error
    }
}

/// Whether `condition` becomes true within `limit`, checking every 10 ms.
func eventually(within limit: Duration = .seconds(2), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while !condition() {
        if clock.now >= deadline { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// One PrivatePostgresServer for the proxy tests that run at the same time,
/// when QUARRY_POSTGRES_URL is not set: starting a cluster per test would take
/// longer than the tests. The first `acquire()` starts it, the last
/// `release()` destroys it (a later `acquire()` starts another).
actor SharedPrivateServer {
    static let shared = SharedPrivateServer()

    private var server: Task<PrivatePostgresServer, any Error>?
    private var users = 0

    func acquire() async throws -> PrivatePostgresServer {
        let server = self.server ?? Task { try await PrivatePostgresServer.start() }
        self.server = server
        users += 1
        do {
            return try await server.value
        } catch {
            await release()
            throw error
        }
    }

    func release() async {
        users -= 1
        guard users == 0, let server else { return }
        // Forgotten before destroying it, so that an acquire() meanwhile
        // starts another.
        self.server = nil
        if let started = try? await server.value {
            await started.destroy()
        }
    }
}

/// The sessions of a test, all closed at its end whether it passes, fails or
/// throws: PostgresNIO traps (in debug builds) on a connection deinitialized
/// before being closed, which would end the whole test process. A session
/// that connects after the end (a connect that outlived its bounded wait) is
/// closed at once.
final class SessionScope: Sendable {
    private struct State {
        var sessions: [PostgresSession] = []
        var isClosed = false
    }

    private let state = Mutex(State())

    static func with<T>(_ body: (SessionScope) async throws -> T) async throws -> T {
        let scope = SessionScope()
        let result: T
        do {
            result = try await body(scope)
        } catch {
            await scope.closeAll()
            throw error
        }
        await scope.closeAll()
        return result
    }

    func connect(to configuration: PostgresConfiguration) async throws -> PostgresSession {
        let session = try await PostgresSession.connect(to: configuration)
        let isClosed = state.withLock { state -> Bool in
            if !state.isClosed { state.sessions.append(session) }
            return state.isClosed
        }
        if isClosed { try? await session.close() }
        return session
    }

    /// Closes every session, each within 5 seconds.
    func closeAll() async {
        let sessions = state.withLock { state -> [PostgresSession] in
            state.isClosed = true
            defer { state.sessions.removeAll() }
            return state.sessions
        }
        for session in sessions {
            _ = try? await within(.seconds(5), "closing a session") { try await session.close() }
        }
    }
}

/// A query running in a task of its own, whose completion a test can check.
final class PendingQuery: Sendable {
    private final class Flag: Sendable {
        let value = Mutex(false)
    }

    let task: Task<PostgresResultSet, any Error>
    private let done: Flag

    init(session: PostgresSession, sql: String) {
        let done = Flag()
        self.task = Task {
            defer { done.value.withLock { $0 = true } }
            return try await session.execute(sql: sql)
        }
        self.done = done
    }

    var isDone: Bool { done.value.withLock { $0 } }
}

/// A blocking client socket to 127.0.0.1, whose `receive()` tells how the
/// other side ended the connection. Receiving waits at most 2 seconds.
final class RawConnection {
    enum Outcome: Equatable {
        /// The other side closed cleanly (FIN): `recv` returned 0.
        case closed
        /// The other side aborted (RST): ECONNRESET.
        case reset
        /// Bytes arrived.
        case data
        /// Nothing within 2 seconds.
        case timedOut
        case failed(errno: Int32)
    }

    struct SocketError: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    private let descriptor: Int32

    init(port: Int) throws {
        #if os(Linux)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        // Generous: a loaded 2-core machine (the whole suite, a build) can
        // delay the proxy's event loop by seconds; an answer returns at once.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            let code = errno
            _ = Self.closeDescriptor(descriptor)
            throw SocketError(call: "setsockopt(SO_RCVTIMEO)", code: code)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            _ = Self.closeDescriptor(descriptor)
            throw SocketError(call: "connect", code: code)
        }
        self.descriptor = descriptor
    }

    func receive() -> Outcome {
        // A signal (the test process's children exiting: SIGCHLD) interrupts
        // recv with EINTR: then again, until 10 seconds have passed.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while true {
            var byte: UInt8 = 0
            let count = recv(descriptor, &byte, 1, 0)
            if count > 0 { return .data }
            if count == 0 { return .closed }
            let code = errno
            if code == EINTR && clock.now < deadline { continue }
            if code == ECONNRESET { return .reset }
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .timedOut }
            return .failed(errno: code)
        }
    }

    deinit {
        _ = Self.closeDescriptor(descriptor)
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        close(descriptor)
    }
}
