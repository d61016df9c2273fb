// BookEventsController: GET /books/events, a Server-Sent Events stream of the
// book count and the latest books, fed by a Quarry ValueObservation: one event
// now, then one after each commit that changed the `book` table — on SQLite
// and on PostgreSQL, this process's commits and other processes' alike.

import Foundation
import Hummingbird
import Logging
import Quarry
import ServiceLifecycle
import Synchronization

/// The `data:` of a `books` event:
/// `{"count": 12, "latest": [{"id": 12, "title": "…"}, …]}`.
struct BooksSnapshot: Codable, Sendable, Equatable {
    /// A book as the stream shows it.
    struct Entry: Codable, Sendable, Equatable {
        /// The book's id.
        var id: Int64
        /// The book's title.
        var title: String
    }

    /// How many books there are.
    var count: Int
    /// The most recent books (highest ids first), at most ``BookEventsController/latestCount``.
    var latest: [Entry]
}

/// The `/books/events` route.
///
/// `GET /books/events[?limit=N]` answers `text/event-stream`: an event
/// `books` with the current ``BooksSnapshot``, then one after each commit
/// that touched the `book` table. Commits to other tables (authors, reviews)
/// send nothing: the observation tracks the region its fetch read. A comment
/// line (`: heartbeat`) goes out every `heartbeat`. The
/// stream ends after `limit` events (1…1000; none by default), when the
/// client goes away (a write fails), or when the server shuts down.
///
/// Other processes' commits count too, so that several `bookshelf`
/// processes can serve one database: on SQLite, the pool polls the file's
/// `PRAGMA data_version` (``BookshelfConfiguration/foreignCommitPollingInterval``,
/// 250 ms by default), so another process's book shows up within about that
/// long; on PostgreSQL, the server notifies every commit to `book` (the
/// trigger of migration `observeBookChanges`, LISTEN/NOTIFY on a connection
/// of the pool's own while streams run).
struct BookEventsController: Sendable {
    let database: BookshelfDatabase
    /// How often a heartbeat comment is sent.
    let heartbeat: Duration

    /// How many of the latest books each event lists.
    static let latestCount = 5
    /// The largest `limit`.
    static let maximumLimit = 1000

    /// The count and the latest books, observed. Each commit of this
    /// process to `book` on SQLite gives an event, also when the snapshot is
    /// unchanged (an update of a price); commits elsewhere give none. A
    /// commit Quarry learns of from outside — another process's on SQLite,
    /// any on PostgreSQL — gives an event only when the snapshot changed.
    static let observation = ValueObservation.tracking { db in
        let count = try Book.fetchCount(db)
        let latest = try Book.all().select(\.id, \.title).order(.desc(\.id)).limit(latestCount).fetchAll(db)
        return BooksSnapshot(count: count, latest: latest.compactMap { id, title in id.map { .init(id: $0, title: title) } })
    }

    func addRoutes(to group: RouterGroup<BookshelfRequestContext>) {
        group.get("events", use: events)
    }

    /// `GET /books/events?limit=N`.
    @Sendable func events(_ request: Request, context: BookshelfRequestContext) async throws -> Response {
        let limit = try request.queryInt("limit", in: 1...Self.maximumLimit)
        let stream = BookEventStream(
            values: Self.observation.values(in: database.writer, bufferingPolicy: .bufferingNewest(1)),
            heartbeat: heartbeat, limit: limit, logger: context.logger)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await stream.write(to: &writer)
        })
    }
}

/// One client's event stream: runs the observation and the heartbeat timer,
/// and writes what they produce, one write at a time, to the response body.
struct BookEventStream: Sendable {
    let values: AsyncValueObservation<BooksSnapshot>
    let heartbeat: Duration
    let limit: Int?
    let logger: Logger

    /// Why the stream ended, for the log.
    enum EndReason: String, Sendable {
        case limitReached = "limit reached"
        case clientGone = "client gone"
        case shutdown = "server shutting down"
        case cancelled = "cancelled"
        case observationFailed = "observation failed"
        case observationFinished = "observation finished"
    }

    /// What wakes the writing loop up.
    enum Wakeup: Sendable {
        case value, heartbeat
    }

    /// Shared by the writing loop and its feeders: the snapshot not written
    /// yet (only the latest is kept) and the reason the stream ends, if
    /// decided by a feeder.
    final class Mailbox: Sendable {
        struct State {
            var pending: BooksSnapshot?
            var endReason: EndReason?
        }

        let state = Mutex(State())
    }

    /// Writes the events to `writer` until the stream ends, then finishes the
    /// response. A failed write ends the stream and is rethrown (Hummingbird
    /// then closes the connection); anything else ends it cleanly.
    func write(to writer: inout any ResponseBodyWriter) async throws {
        let mailbox = Mailbox()
        let (wakeups, wakeup) = AsyncStream<Wakeup>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let encoder = BookshelfRequestContext.makeJSONEncoder()
        var sent = 0
        var writeError: (any Error)?
        var reason: EndReason?

        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await feed(mailbox: mailbox, wakeup: wakeup) }
                group.addTask {
                    while (try? await Task.sleep(for: heartbeat)) != nil {
                        wakeup.yield(.heartbeat)
                    }
                }
                loop: for await event in wakeups {
                    // Any wake-up delivers the pending snapshot; a heartbeat
                    // with none pending sends a comment.
                    let pending = mailbox.state.withLock { state in
                        defer { state.pending = nil }
                        return state.pending
                    }
                    let text: String
                    if let pending {
                        do {
                            text = "event: books\ndata: \(String(decoding: try encoder.encode(pending), as: UTF8.self))\n\n"
                        } catch {
                            logger.error("book events: encoding failed", metadata: ["error": "\(error)"])
                            reason = .observationFailed
                            break loop
                        }
                    } else if event == .heartbeat {
                        text = ": heartbeat\n\n"
                    } else {
                        continue
                    }
                    do {
                        try await writer.write(ByteBuffer(string: text))
                    } catch {
                        writeError = error
                        reason = .clientGone
                        break loop
                    }
                    if pending != nil {
                        sent += 1
                        if let limit, sent >= limit {
                            reason = .limitReached
                            break loop
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            mailbox.state.withLock { $0.endReason = $0.endReason ?? .shutdown }
            wakeup.finish()
        }
        wakeup.finish()

        let endReason = reason ?? mailbox.state.withLock { $0.endReason } ?? .cancelled
        logger.debug("book events stream ended", metadata: ["reason": "\(endReason.rawValue)", "events": "\(sent)"])
        if let writeError { throw writeError }
        try await writer.finish(nil)
    }

    /// Runs the observation: each value goes to the mailbox (replacing one
    /// not written yet) and wakes the loop up. When the observation ends,
    /// ends the loop too.
    private func feed(mailbox: Mailbox, wakeup: AsyncStream<Wakeup>.Continuation) async {
        do {
            for try await snapshot in values {
                mailbox.state.withLock { $0.pending = snapshot }
                wakeup.yield(.value)
            }
            if !Task.isCancelled {
                mailbox.state.withLock { $0.endReason = $0.endReason ?? .observationFinished }
            }
        } catch {
            if !Task.isCancelled {
                logger.error("book events: observation failed", metadata: ["error": "\(error)"])
                mailbox.state.withLock { $0.endReason = $0.endReason ?? .observationFailed }
            }
        }
        wakeup.finish()
    }
}
