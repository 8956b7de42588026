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

    /// Trusts `addresses` (none by default: forwarded headers are ignored).
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

    /// ``HostText/isValid(_:)``.
    static func isHost(_ text: String) -> Bool { HostText.isValid(text) }
}

/// What a `Host` or `X-Forwarded-Host` header may hold.
enum HostText {
    /// A host and an optional port, nothing else: a name of letters, digits and `.-_`, or an IPv6 literal in
    /// brackets (hex digits, `:` and `.`), then `:` and up to five digits. Links are made of it, so it must make a URL.
    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 255 else { return false }
        let bytes = Array(text.utf8)
        var rest = bytes[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
            let literal = bytes[1..<close]
            guard
                literal.allSatisfy({ byte in
                    isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                })
            else { return false }
            rest = bytes[(close + 1)...]
        } else {
            let name = bytes.prefix { $0 != UInt8(ascii: ":") }
            guard
                !name.isEmpty,
                name.allSatisfy({ byte in
                    isHexDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                })
            else { return false }
            rest = bytes[name.endIndex...]
        }
        guard !rest.isEmpty else { return true }
        let port = rest.dropFirst()
        return rest.first == UInt8(ascii: ":") && (1...5).contains(port.count)
            && port.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}
