// A TCP proxy for the PostgreSQL fault tests: it listens on 127.0.0.1 (a free
// port) in front of a server, and a test points a pool or a session at it
// (`proxy.url()`), then breaks the connections at will by switching its mode:
// `.forward` passes bytes both ways, `.drop` closes connections cleanly (FIN),
// `.reset` aborts them (RST), `.blackhole` stalls them. Built on SwiftNIO, with
// one event loop thread of its own that `close()` shuts down.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import Synchronization

final class FaultProxy: Sendable {
    /// What the proxy does with connections. Switch with ``setMode(_:)`` at any time.
    enum Mode: Sendable, Hashable, CustomStringConvertible {
        /// Passes bytes both ways. New connections get a connection to the
        /// target of their own.
        case forward
        /// Closes every current connection cleanly (FIN), on both sides. New
        /// connections are accepted, then closed at once the same way, until
        /// the mode changes.
        case drop
        /// Aborts every current connection with a TCP RST (`SO_LINGER` 0, then
        /// close); the target's side is closed cleanly. New connections are
        /// accepted, then reset at once, until the mode changes.
        case reset
        /// Keeps every connection open but forwards nothing, either way: the
        /// client waits until its own timeout. New connections are accepted
        /// (and connected to the target) but nothing flows. Bytes are not lost:
        /// they wait, in the proxy or the kernel's buffers, and flow again when
        /// the mode goes back to `.forward`, like a network partition that heals.
        case blackhole

        var description: String {
            switch self {
            case .forward: "forward"
            case .drop: "drop"
            case .reset: "reset"
            case .blackhole: "blackhole"
            }
        }
    }

    /// The port the proxy listens on, at 127.0.0.1.
    let port: Int
    let targetHost: String
    let targetPort: Int

    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let state: ProxyState

    private init(port: Int, targetHost: String, targetPort: Int, group: MultiThreadedEventLoopGroup, listener: any Channel, state: ProxyState) {
        self.port = port
        self.targetHost = targetHost
        self.targetPort = targetPort
        self.group = group
        self.listener = listener
        self.state = state
    }

    /// Starts a proxy on 127.0.0.1, on a free port, in `.forward` mode.
    static func start(targetHost: String = "127.0.0.1", targetPort: Int) async throws -> FaultProxy {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = ProxyState(targetHost: targetHost, targetPort: targetPort)
        do {
            let listener = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                // The relays ask for each read themselves, so that a stalled
                // connection reads nothing.
                .childChannelOption(ChannelOptions.autoRead, value: false)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(AcceptedConnectionHandler(state: state))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = listener.localAddress?.port else {
                try? await listener.close().get()
                throw ProxyError(message: "the proxy's listening socket has no port")
            }
            return FaultProxy(port: port, targetHost: targetHost, targetPort: targetPort, group: group, listener: listener, state: state)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Starts a proxy in front of `targetHost:targetPort`, runs `body`, and
    /// closes the proxy afterwards, whether `body` returns or throws.
    static func with<T>(targetHost: String = "127.0.0.1", targetPort: Int, _ body: (FaultProxy) async throws -> T) async throws -> T {
        let proxy = try await start(targetHost: targetHost, targetPort: targetPort)
        let result: T
        do {
            result = try await body(proxy)
        } catch {
            await proxy.close()
            throw error
        }
        await proxy.close()
        return result
    }

    /// A URL through the proxy: `postgres://<user>@127.0.0.1:<port>/<database>`,
    /// with `connect_timeout` when given (whole seconds).
    func url(user: String = "postgres", database: String = "quarry_test", connectTimeoutSeconds: Int? = nil) -> String {
        let base = "postgres://\(user)@127.0.0.1:\(port)/\(database)"
        return connectTimeoutSeconds.map { base + "?connect_timeout=\($0)" } ?? base
    }

    /// The current mode.
    var mode: Mode { state.value.withLock { $0.mode } }

    /// How many client connections are open through the proxy now (accepted
    /// and not yet closed by either side or by the proxy). A stalled
    /// connection (`.blackhole`) reads nothing, so the proxy notices that its
    /// client or the server closed it only once the mode is `.forward` again.
    var connectionCount: Int { state.value.withLock { $0.links.count } }

    /// How many client connections the proxy accepted since it started,
    /// including those it closed or reset at once.
    var acceptedConnectionCount: Int { state.value.withLock { $0.acceptedCount } }

    /// Switches to `mode`. Returns once the current connections are dealt
    /// with: closed for `.drop` and `.reset` (their ``connectionCount`` is
    /// gone already), stalled for `.blackhole` (no byte is forwarded after this
    /// returns), flowing again for `.forward`.
    func setMode(_ mode: Mode) async {
        let links = state.value.withLock { value -> [Link] in
            value.mode = mode
            switch mode {
            case .forward, .blackhole:
                return Array(value.links.values)
            case .drop, .reset:
                // Gone from the count at once; closed below.
                defer { value.links.removeAll() }
                return Array(value.links.values)
            }
        }
        var closing: [EventLoopFuture<Void>] = []
        for link in links {
            switch mode {
            case .forward:
                link.resume()
            case .blackhole:
                // The relays check the mode before forwarding each read and
                // before asking for the next one: nothing else to do.
                break
            case .drop:
                closing.append(link.close())
            case .reset:
                closing.append(link.reset())
            }
        }
        for future in closing {
            _ = try? await future.get()
        }
    }

    /// Stops listening, closes every connection (FIN) and shuts down the
    /// proxy's event loop thread. Calling it again does nothing.
    func close() async {
        let (links, wasClosed) = state.value.withLock { value -> ([Link], Bool) in
            defer {
                value.isClosed = true
                value.links.removeAll()
            }
            return (Array(value.links.values), value.isClosed)
        }
        guard !wasClosed else { return }
        try? await listener.close().get()
        for link in links {
            _ = try? await link.close().get()
        }
        // Closes whatever channel is left (one still connecting to the
        // target) and joins the thread.
        try? await group.shutdownGracefully()
    }

    struct ProxyError: Error, CustomStringConvertible {
        var message: String
        var description: String { "FaultProxy: \(message)" }
    }
}

// MARK: - Implementation

/// The proxy's state, shared by the proxy and its handlers.
private final class ProxyState: Sendable {
    struct Value {
        var mode: FaultProxy.Mode = .forward
        var links: [ObjectIdentifier: Link] = [:]
        var acceptedCount = 0
        var isClosed = false
    }

    let targetHost: String
    let targetPort: Int
    let value = Mutex(Value())

    init(targetHost: String, targetPort: Int) {
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    var mode: FaultProxy.Mode { value.withLock { $0.mode } }

    /// Registers a new connection; returns the mode it starts in, or nil when
    /// the proxy is closed.
    func accept(_ link: Link) -> FaultProxy.Mode? {
        value.withLock { value in
            value.acceptedCount += 1
            guard !value.isClosed else { return nil }
            if value.mode == .forward || value.mode == .blackhole {
                value.links[ObjectIdentifier(link)] = link
            }
            return value.mode
        }
    }

    func remove(_ link: Link) {
        _ = value.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) }
    }
}

/// One client connection and its connection to the target.
private final class Link: Sendable {
    let client: any Channel
    private let upstreamState = Mutex<(channel: (any Channel)?, isClosed: Bool)>((nil, false))

    init(client: any Channel) {
        self.client = client
    }

    var upstream: (any Channel)? { upstreamState.withLock { $0.channel } }

    /// Records the connection to the target; closes it at once when the link
    /// was closed while it was being made. Returns whether the link is open.
    func setUpstream(_ channel: any Channel) -> Bool {
        let isClosed = upstreamState.withLock { state -> Bool in
            if !state.isClosed { state.channel = channel }
            return state.isClosed
        }
        if isClosed { channel.close(promise: nil) }
        return !isClosed
    }

    /// Closes both sides cleanly (FIN).
    func close() -> EventLoopFuture<Void> {
        let upstream = markClosed()
        upstream?.close(promise: nil)
        return client.close().recover { _ in }
    }

    /// Aborts the client's side with a RST, then closes the target's side
    /// (in this order: closing the target's side first would close the
    /// client's side with a FIN, through its relay).
    func reset() -> EventLoopFuture<Void> {
        let upstream = markClosed()
        return Link.reset(client).always { _ in upstream?.close(promise: nil) }
    }

    /// Sets `SO_LINGER` to 0 on `channel`, then closes it: the kernel sends a
    /// RST instead of a FIN and drops any unsent data.
    static func reset(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.close().recover { _ in }
        }
        return provider.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            .recover { _ in }
            .flatMap { channel.close() }
            .recover { _ in }
    }

    /// Makes both relays flush what they kept during a stall and read again.
    func resume() {
        for channel in [client, upstream].compactMap({ $0 }) {
            channel.pipeline.fireUserInboundEventTriggered(RelayEvent.resume)
        }
    }

    private func markClosed() -> (any Channel)? {
        upstreamState.withLock { state in
            state.isClosed = true
            return state.channel
        }
    }
}

private enum RelayEvent: Sendable {
    /// The mode is `.forward` again, or the target's side is connected.
    case resume
}

/// The first handler of an accepted connection: applies the mode, then
/// connects to the target and relays.
private final class AcceptedConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let state: ProxyState

    init(state: ProxyState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let link = Link(client: channel)
        switch state.accept(link) {
        case nil, .drop:
            context.close(promise: nil)
        case .reset:
            Link.reset(channel).whenComplete { _ in }
        case .forward, .blackhole:
            let state = self.state
            // Relays the client's bytes once the target is connected.
            do {
                try context.pipeline.syncOperations.addHandler(RelayHandler(state: state, link: link, side: .client))
            } catch {
                state.remove(link)
                context.close(promise: nil)
                return
            }
            ClientBootstrap(group: context.eventLoop)
                .channelOption(ChannelOptions.autoRead, value: false)
                .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(.seconds(10))
                .channelInitializer { upstream in
                    upstream.eventLoop.makeCompletedFuture {
                        try upstream.pipeline.syncOperations.addHandler(RelayHandler(state: state, link: link, side: .upstream))
                    }
                }
                .connect(host: state.targetHost, port: state.targetPort)
                .whenComplete { result in
                    switch result {
                    case .success(let upstream):
                        if link.setUpstream(upstream) { link.resume() }
                    case .failure:
                        // The target is down: the client sees its connection closed.
                        state.remove(link)
                        channel.close(promise: nil)
                    }
                }
        }
        context.fireChannelActive()
    }
}

/// Relays the bytes read on one side of a link to the other side, while the
/// mode is `.forward`; keeps them otherwise, and stops reading.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Side {
        case client, upstream
    }

    private let state: ProxyState
    private let link: Link
    private let side: Side
    /// Bytes read while the mode was not `.forward` or the other side was not
    /// connected yet.
    private var kept: [ByteBuffer] = []

    init(state: ProxyState, link: Link, side: Side) {
        self.state = state
        self.link = link
        self.side = side
    }

    private var peer: (any Channel)? {
        switch side {
        case .client: link.upstream
        case .upstream: link.client
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if state.mode == .forward, let peer {
            peer.write(bytes, promise: nil)
        } else {
            kept.append(bytes)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        peer?.flush()
        if state.mode == .forward, peer != nil {
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? RelayEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch event {
        case .resume:
            guard state.mode == .forward, let peer else { return }
            for bytes in kept {
                peer.write(bytes, promise: nil)
            }
            kept.removeAll()
            peer.flush()
            context.read()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // One side closed: so does the other.
        state.remove(link)
        _ = link.close()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
