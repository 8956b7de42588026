import Synchronization
import Foundation

/// A transport that answers from a closure instead of the network: for unit tests of code built on
/// ``HTTPClient``.
///
/// It records every request it receives, and writes answers to a file when the client downloads.
///
/// ```swift
/// let transport = InMemoryTransport { request in
///     request.url.path == "/token" ? .init(status: 200, headers: ["X-CSRF-Token": "abc"]) : .init(status: 404)
/// }
/// let client = HTTPClient(transport: transport)
/// ```
public final class InMemoryTransport: HTTPTransport {
    /// Answers one request.
    public typealias Handler = @Sendable (TransportRequest) async throws -> TransportResponse

    private let handler: Handler
    private let log = Mutex<[TransportRequest]>([])

    /// A transport answering every request with `handler`.
    public init(handler: @escaping Handler) { self.handler = handler }

    /// Every request received so far, in order.
    public var requests: [TransportRequest] { log.withLock { $0 } }

    /// Records `request` and answers it with the handler; throws `.responseTooLarge` past a memory destination's limit,
    /// and writes the body to a file destination.
    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        log.withLock { $0.append(request) }
        var response = try await handler(request)
        if let body = request.body { request.progress?.sent(body.length, of: body.length) }
        switch request.destination {
        case .memory(let limit):
            if response.body.count > limit {
                throw HTTPTransferError(
                    .responseTooLarge, "the response is larger than the \(limit) bytes allowed in memory")
            }
        case .file(let url):
            do {
                try response.body.write(to: url)
            } catch {
                throw HTTPTransferError(.fileSystem, "cannot write \(url.path)", underlying: error)
            }
            response.body = Data()
        }
        request.progress?.received(response.bodyLength, of: response.bodyLength)
        return response
    }
}
