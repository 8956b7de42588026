import Foundation
import Metrics
import Prometheus
public import SatchelRepository

/// What `/metrics` reports, in the Prometheus text format: swift-metrics counters and timers made by a
/// `PrometheusMetricsFactory` over a registry of this server's own (so several servers in one process, as in tests,
/// keep apart, and nothing depends on the process-wide metrics system).
///
/// - `satchel_http_requests_total{route,method,status}` and `satchel_http_request_duration_seconds{route,method,status}`
///   (a histogram): every request. `route` is the API the path belongs to (`/cmis/browser`, `/nuxeo/api`, `/health`,
///   …, `other`), never the path itself, so the series stay few whatever clients send.
/// - `satchel_login_refusals_total{reason}`: credentials refused (`wrong`), throttled (`throttled`), or not checked
///   because the password checker or the store was busy (`busy`).
/// - `satchel_store_duration_seconds{operation,outcome}`: the metadata store's reads and writes (SQLite) or
///   statements and transactions (PostgreSQL).
/// - `satchel_blob_duration_seconds{operation,outcome}`: the blob back-end's calls (`store`, `open`, `remove`, …).
/// - `satchel_upload_bytes_total`: the bytes of every blob stored (uploads, appends).
/// - `satchel_response_cache_hits_total`: reads answered from the kept answers (`ResponseCache`).
public final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// Metrics kept in a registry of their own.
    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
    }

    /// Every series, in the Prometheus text format (version 0.0.4).
    public func render() -> [UInt8] { registry.emitToBuffer() }

    /// Counts a request and its duration.
    func request(path: String, method: String, status: Int, duration: Duration) {
        let dimensions = [
            ("route", Self.route(of: path)), ("method", Self.method(method)), ("status", String(status)),
        ]
        Counter(label: "satchel_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Metrics.Timer(label: "satchel_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .record(duration: duration)
    }

    /// Counts a read answered from the kept answers.
    func responseCacheHit() {
        Counter(label: "satchel_response_cache_hits_total", factory: factory).increment()
    }

    /// Counts a refused login.
    func loginRefused(_ outcome: Authenticator.Outcome) {
        let reason: String
        switch outcome {
        case .accepted: return
        case .refused: reason = "wrong"
        case .throttled: reason = "throttled"
        case .busy: reason = "busy"
        }
        Counter(label: "satchel_login_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Reports the metadata store's operations.
    public func observe(store timings: OperationTimings) {
        timings.observe { [factory] event in
            Metrics.Timer(
                label: "satchel_store_duration_seconds", dimensions: Self.dimensions(event), factory: factory
            ).record(duration: event.duration)
        }
    }

    /// Reports the blob back-end's operations, and the bytes stored.
    public func observe(blobs timings: OperationTimings) {
        timings.observe { [factory] event in
            Metrics.Timer(
                label: "satchel_blob_duration_seconds", dimensions: Self.dimensions(event), factory: factory
            ).record(duration: event.duration)
            if event.operation == "store", !event.failed, let bytes = event.bytes {
                Counter(label: "satchel_upload_bytes_total", factory: factory).increment(by: bytes)
            }
        }
    }

    private static func dimensions(_ event: OperationTimings.Event) -> [(String, String)] {
        [("operation", event.operation), ("outcome", event.failed ? "failed" : "ok")]
    }

    /// The API a path belongs to: a few fixed values.
    static func route(of path: String) -> String {
        for exact in ["/health", "/ready", "/metrics", "/login", "/logout", "/cmis-endpoints.json"] where path == exact
        {
            return exact
        }
        let prefixes = [
            MountPoints.mobileDocumentsBrowser, MountPoints.mobileDocumentsAtom, MountPoints.cmisBrowser,
            MountPoints.cmisAtom, NuxeoRoutes.apiRoot, NuxeoRoutes.siteAutomation, "/nuxeo", "/offline",
        ]
        for prefix in prefixes where path == prefix || path.hasPrefix(prefix + "/") { return prefix }
        return "other"
    }

    /// The method, or `other` for one HTTP does not define.
    static func method(_ method: String) -> String {
        ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].contains(method) ? method : "other"
    }
}
