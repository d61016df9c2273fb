// Tracing and metrics backends that accept everything and keep nothing, for
// the `quarry-traced` contender: Quarry creates every span, attribute and
// metric as with a real backend, and the backend does no work of its own.

import CoreMetrics
import Tracing

struct DiscardingTracer: Tracer {
    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> DiscardingSpan {
        DiscardingSpan(context: context(), operationName: operationName)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}
}

/// Keeps its attributes in a dictionary, as a real span does, then drops them.
final class DiscardingSpan: Span, @unchecked Sendable {
    let context: ServiceContext
    var operationName: String
    var attributes: SpanAttributes = [:]
    let isRecording = true

    init(context: ServiceContext, operationName: String) {
        self.context = context
        self.operationName = operationName
    }

    func setStatus(_ status: SpanStatus) {}
    func addEvent(_ event: SpanEvent) {}
    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {}
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
}

final class DiscardingMetrics: MetricsFactory, CounterHandler, FloatingPointCounterHandler, RecorderHandler, TimerHandler, MeterHandler,
    @unchecked Sendable
{
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { self }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { self }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { self }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { self }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { self }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
    func increment(by: Int64) {}
    func increment(by: Double) {}
    func decrement(by: Double) {}
    func reset() {}
    func record(_ value: Int64) {}
    func record(_ value: Double) {}
    func set(_ value: Int64) {}
    func set(_ value: Double) {}
    func recordNanoseconds(_ duration: Int64) {}
}
