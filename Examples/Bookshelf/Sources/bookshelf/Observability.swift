// Observability: the optional OpenTelemetry exporter of `bookshelf serve`
// (swift-otel), off by default: `--otel` or BOOKSHELF_OTEL=1.

import BookshelfService
import Logging
import OTel
import ServiceLifecycle

/// What `--otel` / BOOKSHELF_OTEL started: nothing when off.
struct Observability {
    /// The services to run first, and stop last, in the application's
    /// service group: swift-otel's exporter, or none.
    var services: [any Service]

    /// The swift-otel configuration: service name `bookshelf`, metrics and
    /// traces exported with OTLP/HTTP to the default endpoint
    /// (http://localhost:4318; the `OTEL_*` environment variables override
    /// it), logs not exported (they go to stderr through the one
    /// `LoggingSystem.bootstrap`; bootstrapping logging twice would trap).
    static var otelConfiguration: OTel.Configuration {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "bookshelf"
        configuration.logs.enabled = false
        return configuration
    }

    /// The metadata the log handler adds to each message: the current span's
    /// trace and span IDs when OpenTelemetry is on, none otherwise.
    static func loggingMetadataProvider(_ settings: ServeSettings) -> Logger.MetadataProvider? {
        settings.otel ? OTel.makeLoggingMetadataProvider() : nil
    }

    /// Bootstraps swift-otel's metrics and tracing backends
    /// (`MetricsSystem`, `InstrumentationSystem`) when `settings.otel` is on,
    /// and returns its exporter service; when off, bootstraps and starts
    /// nothing. Call once, after `LoggingSystem.bootstrap`.
    ///
    /// - throws: swift-otel's configuration error (an invalid `OTEL_*`
    ///   variable, say).
    static func bootstrap(_ settings: ServeSettings) throws -> Observability {
        guard settings.otel else { return Observability(services: []) }
        let service = try OTel.bootstrap(configuration: otelConfiguration)
        return Observability(services: [service])
    }
}
