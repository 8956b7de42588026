public import Foundation

/// Picks the fastest transport for each URL: ``SocketTransport`` for `http`, another for `https`: by default
/// ``NIOTransport``'s shared one where it is built (Linux), URLSession elsewhere. It is the default client's
/// transport on Linux.
///
/// ``SocketTransport`` downloads at twice `curl`'s speed on loopback (and four times ``NIOTransport``'s) but speaks
/// no TLS. This transport routes plain `http` URLs — local services, test servers, on-premise gateways behind a
/// TLS-terminating proxy — to the socket transport, and everything else to the secure one, so one client handles
/// both.
///
/// ```swift
/// let client = HTTPClient(transport: AutomaticTransport())
/// // sockets
/// try await client.download(HTTPClient.Request(url: URL(string: "http://127.0.0.1:8080/big.iso")!), to: file)
/// try await client.send(HTTPClient.Request(url: URL(string: "https://example.com/api")!))  // NIO (Linux)
/// ```
public struct AutomaticTransport: HTTPTransport {
    /// Carries `http` URLs.
    public let plain: any HTTPTransport
    /// Carries `https` (and anything else).
    public let secure: any HTTPTransport

    /// - Parameters:
    ///   - plain: carries `http`.
    ///   - secure: carries `https`; nil for ``NIOTransport``'s shared one where it is built (Linux), URLSession
    ///     elsewhere.
    public init(plain: any HTTPTransport = SocketTransport(), secure: (any HTTPTransport)? = nil) {
        self.plain = plain
        self.secure = secure ?? Platform.secureTransport()
    }

    /// The transport that carries `url`.
    public func transport(for url: URL) -> any HTTPTransport {
        url.scheme?.lowercased() == "http" ? plain : secure
    }

    /// Sends `request` through the transport for its URL.
    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        try await transport(for: request.url).perform(request)
    }
}

extension AutomaticTransport: HTTPStreamingTransport {
    /// Streams through the transport for the URL; one that cannot stream reads the body first and hands it over
    /// as one chunk.
    public func performStreaming(
        _ request: TransportRequest, into channel: ResponseBodyChannel
    ) async throws -> TransportResponse {
        let transport = transport(for: request.url)
        if let streaming = transport as? any HTTPStreamingTransport {
            return try await streaming.performStreaming(request, into: channel)
        }
        var response = try await transport.perform(request)
        _ = try channel.offer(response.body)
        channel.finish()
        response.body = Data()
        return response
    }
}
