import Foundation

/// Where a plain-HTTP request goes: host, port, the `Host` header and the request target.
struct SocketEndpoint: Sendable, Hashable {
    /// The host as `getaddrinfo` wants it (IPv6 literals without brackets).
    var host: String
    var port: Int
    /// `host[:port]` for the `Host` header, with IPv6 literals in brackets.
    var hostHeader: String
    /// Path and query, percent-encoded, never empty.
    var target: String

    /// Keep-alive connections are shared per host and port.
    var poolKey: String { "\(host.lowercased()):\(port)" }

    /// `host:port` for messages, with IPv6 literals in brackets.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    init(url: URL) throws(HTTPTransferError) {
        guard url.scheme?.lowercased() == "http" else {
            throw HTTPTransferError(
                .invalidRequest,
                "SocketTransport speaks plain http only; use AutomaticTransport (or NIOTransport, URLSessionTransport) for "
                    + (url.scheme ?? "this URL"),
                url: url
            )
        }
        guard var host = url.host(percentEncoded: false), !host.isEmpty else {
            throw HTTPTransferError(.invalidRequest, "the URL has no host", url: url)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? 80
        guard (1...65535).contains(port) else {
            throw HTTPTransferError(.invalidRequest, "the port \(port) is out of range", url: url)
        }
        self.host = host
        self.port = port
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == 80 ? bracketed : "\(bracketed):\(port)"
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?\(query)" }
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPTransferError(.invalidRequest, "the URL path contains spaces or control characters", url: url)
        }
        self.target = target
    }
}
