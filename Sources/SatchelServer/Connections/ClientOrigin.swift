import HTTPTypes
public import Hummingbird
import NIOCore
import Foundation

/// The proxies whose `X-Forwarded-For`, `X-Forwarded-Host` and `X-Forwarded-Proto` headers the server believes.
///
/// Anyone can send those headers: from anybody else they would let a client choose the links the server writes
/// into its answers (`X-Forwarded-Proto: javascript`) or the address its login failures are counted against. So
/// they count only on connections from an address listed here (`satchel serve --trusted-proxy 10.0.0.5`), and
/// even then only a scheme of `http` or `https` and a host made of host-name characters are used.
public struct TrustedProxies: Sendable, Hashable {
    /// IP addresses, as `inet_ntop` writes them (`10.0.0.5`, `::1`).
    public var addresses: Set<String>

    public init(_ addresses: Set<String> = []) {
        self.addresses = addresses
    }

    /// Whether a connection from `peer` may speak for the client.
    func trusts(_ peer: SocketAddress?) -> Bool {
        guard !addresses.isEmpty, let ip = peer?.ipAddress else { return false }
        return addresses.contains(ip)
    }
}

extension ServerRequestContext {
    /// The client's address: the peer's, or behind a trusted proxy the nearest `X-Forwarded-For` entry that is
    /// not itself a trusted proxy. What failed logins are counted against.
    func clientAddress(_ request: Request, proxies: TrustedProxies) -> String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        guard trustsForwardedHeaders else { return peer }
        let hops = request.headers[values: .xForwardedFor].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !proxies.addresses.contains($0) } ?? peer
    }
}

extension Request {
    /// `scheme://host[:port]` as the client addressed the server: the `Host` header, or from a trusted proxy
    /// (``ServerRequestContext/trustsForwardedHeaders``) its `X-Forwarded-Host` and `X-Forwarded-Proto`. Absolute
    /// URLs in responses start with it; nothing but host-name characters is ever echoed into one.
    public func serverBaseURL(_ context: ServerRequestContext) -> String {
        var scheme = context.isSecure ? "https" : "http"
        var host = head.authority
        if context.trustsForwardedHeaders {
            if let proto = firstValue(.xForwardedProto)?.lowercased(), proto == "https" || proto == "http" {
                scheme = proto
            }
            if let forwarded = firstValue(.xForwardedHost), Self.isHost(forwarded) { host = forwarded }
        }
        guard let host, Self.isHost(host) else { return scheme + "://127.0.0.1" }
        return scheme + "://" + host
    }

    /// The first of a comma-separated header's values (proxies in a chain append theirs).
    private func firstValue(_ name: HTTPField.Name) -> String? {
        headers[name].flatMap { $0.split(separator: ",").first }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Letters, digits, `.-_:` and the brackets of an IPv6 literal: a host, an optional port, nothing else.
    static func isHost(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
                    UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                    true
                default: false
                }
            }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
