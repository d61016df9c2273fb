// Test support: a tiny raw HTTP/1.1 client for Server-Sent Events. The
// HummingbirdTesting clients buffer whole responses; this one reads a
// chunked response as it arrives, on a thread of its own, and keeps the
// events parsed so far, so a test can wait for them one by one.

import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One Server-Sent Event: its `event:` name and its `data:` lines, joined with newlines.
struct ServerSentEvent: Sendable, Equatable {
    var event: String?
    var data: String

    /// The data decoded from JSON.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(data.utf8))
    }
}

/// A GET request whose response is read incrementally: the status line and
/// headers, the events as they arrive, comments (heartbeats) counted, and
/// whether the body ended (the last chunk arrived) or the connection closed.
final class EventStreamClient: Sendable {
    /// What the reader thread has seen so far.
    struct Snapshot: Sendable {
        /// The status code, once the head arrived.
        var status: Int?
        /// The response headers, names lowercased.
        var headers: [String: String] = [:]
        /// The events, in order.
        var events: [ServerSentEvent] = []
        /// How many comment lines (`: …`, heartbeats) arrived.
        var comments = 0
        /// The last chunk (`0\r\n\r\n`) arrived: the server ended the response.
        var ended = false
        /// The connection closed (EOF or an error).
        var closed = false
    }

    enum ClientError: Error, CustomStringConvertible {
        case connectFailed(String)
        case timeout(String)

        var description: String {
            switch self {
            case .connectFailed(let message): "could not connect: \(message)"
            case .timeout(let message): "timed out: \(message)"
            }
        }
    }

    private let fd: Int32
    private let state = Mutex(Snapshot())
    /// True until the reader closed the socket; guards `fd` against reuse.
    private let isOpen = Mutex(true)

    /// Connects to `localhost:port` (trying each address `localhost` has),
    /// sends `GET path`, and starts reading the response on a thread.
    init(port: Int, path: String) throws {
        fd = try Self.connect(host: "localhost", port: port)
        let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            guard result > 0 else {
                isOpen.withLock { $0 = false }
                close(fd)
                throw ClientError.connectFailed("send failed (errno \(errno))")
            }
            sent += result
        }
        let thread = Thread { [self] in readLoop() }
        thread.name = "EventStreamClient"
        thread.start()
    }

    deinit { disconnect() }

    /// What arrived so far.
    var snapshot: Snapshot { state.withLock { $0 } }

    /// Closes the connection (the reader thread then stops). Idempotent.
    func disconnect() {
        // shutdown wakes the reader's recv; the reader then closes the socket.
        isOpen.withLock { isOpen in
            if isOpen { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits until at least `count` events arrived, polling until `timeout`;
    /// returns all the events received by then.
    ///
    /// - throws: ``ClientError/timeout(_:)`` when they do not arrive in time.
    func waitForEvents(count: Int, timeout: Duration = .seconds(10)) async throws -> [ServerSentEvent] {
        try await waitFor("\(count) event(s)", timeout: timeout) { $0.events.count >= count }.events
    }

    /// Waits until the server ended the response (its last chunk arrived).
    func waitForEnd(timeout: Duration = .seconds(10)) async throws -> Snapshot {
        try await waitFor("the end of the response", timeout: timeout) { $0.ended }
    }

    /// Polls the snapshot every 10 ms until `condition` holds or `timeout` passes.
    func waitFor(_ what: String, timeout: Duration, _ condition: (Snapshot) -> Bool) async throws -> Snapshot {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = snapshot
            if condition(current) { return current }
            guard ContinuousClock.now < deadline else {
                throw ClientError.timeout("waiting for \(what); got \(current)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: - Connection

    private static func connect(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw ClientError.connectFailed("getaddrinfo: \(status)") }
        defer { freeaddrinfo(list) }
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let info = candidate {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                #if canImport(Glibc)
                let connected = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
                #else
                let connected = Darwin.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
                #endif
                if connected == 0 { return fd }
                close(fd)
            }
            candidate = info.pointee.ai_next
        }
        throw ClientError.connectFailed("no address of \(host) accepted a connection on port \(port)")
    }

    // MARK: - Reading and parsing (on the reader thread)

    private func readLoop() {
        var parser = ResponseParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            parser.feed(buffer[0..<count])
            let parsed = parser
            state.withLock { snapshot in
                snapshot.status = parsed.status
                snapshot.headers = parsed.headers
                snapshot.events = parsed.events
                snapshot.comments = parsed.comments
                snapshot.ended = parsed.ended
            }
        }
        state.withLock { $0.closed = true }
        isOpen.withLock { isOpen in
            isOpen = false
            close(fd)
        }
    }
}

/// An incremental parser of one HTTP/1.1 response whose body is an event
/// stream, chunked (or, if not chunked, read until the connection closes).
struct ResponseParser: Sendable {
    private enum Phase: Sendable { case head, chunkSize, chunkData(remaining: Int), chunkDataEnd, done, plainBody }

    private var phase = Phase.head
    private var raw: [UInt8] = []
    private var body: [UInt8] = []

    private(set) var status: Int?
    private(set) var headers: [String: String] = [:]
    private(set) var events: [ServerSentEvent] = []
    private(set) var comments = 0
    private(set) var ended = false

    private static let crlf: [UInt8] = [13, 10]

    mutating func feed(_ bytes: ArraySlice<UInt8>) {
        raw.append(contentsOf: bytes)
        var progressed = true
        while progressed { progressed = step() }
        parseEvents()
    }

    /// Consumes what it can of `raw` in the current phase; false when it needs more bytes.
    private mutating func step() -> Bool {
        switch phase {
        case .head:
            guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { return false }
            let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
            raw.removeSubrange(..<end.upperBound)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            status = statusLine.count > 1 ? Int(statusLine[1]) : nil
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            phase = headers["transfer-encoding"]?.lowercased() == "chunked" ? .chunkSize : .plainBody
            return true
        case .chunkSize:
            guard let end = raw.firstRange(of: Self.crlf) else { return false }
            let line = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
            raw.removeSubrange(..<end.upperBound)
            let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) ?? 0
            if size == 0 {
                ended = true
                phase = .done
            } else {
                phase = .chunkData(remaining: size)
            }
            return true
        case .chunkData(let remaining):
            guard !raw.isEmpty else { return false }
            let taken = min(remaining, raw.count)
            body.append(contentsOf: raw[..<taken])
            raw.removeSubrange(..<taken)
            phase = taken == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - taken)
            return true
        case .chunkDataEnd:
            guard raw.count >= 2 else { return false }
            raw.removeSubrange(..<2)
            phase = .chunkSize
            return true
        case .plainBody:
            guard !raw.isEmpty else { return false }
            body.append(contentsOf: raw)
            raw.removeAll()
            return true
        case .done:
            return false
        }
    }

    /// Moves each complete event (ended by a blank line) from `body` to `events`.
    private mutating func parseEvents() {
        while let end = body.firstRange(of: [10, 10]) {
            let block = String(decoding: body[..<end.lowerBound], as: UTF8.self)
            body.removeSubrange(..<end.upperBound)
            var name: String?
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments += 1
                    continue
                }
                let field: Substring
                var value: Substring
                if let colon = line.firstIndex(of: ":") {
                    field = line[..<colon]
                    value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                } else {
                    field = line
                    value = ""
                }
                switch field {
                case "event": name = String(value)
                case "data": data.append(String(value))
                default: break
                }
            }
            if !data.isEmpty {
                events.append(ServerSentEvent(event: name, data: data.joined(separator: "\n")))
            }
        }
    }
}
