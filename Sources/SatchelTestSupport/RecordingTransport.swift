public import Foundation
public import SatchelHTTP
import Synchronization

/// A transport that passes every request on and remembers it: what a test of a client's caching, paging or token
/// handling counts, against a real server.
///
/// ```swift
/// let recorder = RecordingTransport()
/// let session = try await CMISSession.connect(SessionParameters(url: url, transport: recorder))
/// recorder.count { $0.query("cmisselector") == "typeDefinition" }
/// ```
public final class RecordingTransport: HTTPTransport {
    /// One request as it left.
    public struct Sent: Sendable {
        public var method: HTTPClient.Method
        public var url: URL
        public var headers: HTTPClient.Headers

        /// A query parameter of the URL.
        public func query(_ name: String) -> String? {
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
        }
    }

    private let inner: any HTTPTransport
    private let sent = Mutex<[Sent]>([])

    public init(_ inner: any HTTPTransport = HTTPClient.defaultTransport()) { self.inner = inner }

    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        sent.withLock { $0.append(Sent(method: request.method, url: request.url, headers: request.headers)) }
        return try await inner.perform(request)
    }

    /// The requests so far, in order.
    public var requests: [Sent] { sent.withLock { $0 } }

    /// How many requests so far match.
    public func count(where matches: (Sent) -> Bool) -> Int { requests.count(where: matches) }
}
