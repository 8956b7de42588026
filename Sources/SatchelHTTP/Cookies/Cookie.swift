public import Foundation

/// A cookie as a server set it (RFC 6265).
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name.
    public var name: String
    /// The cookie's value: a secret, never shown in `description`.
    public var value: String
    /// The host the cookie belongs to, lowercased, without a leading dot.
    public var domain: String
    /// Whether the cookie also goes to subdomains (the server sent a `Domain` attribute).
    public var includesSubdomains: Bool
    /// The path the cookie is sent under (`/` by default).
    public var path: String
    /// When the cookie expires; nil for a session cookie, kept while the jar lives.
    public var expires: Date?
    /// Sent over `https` only (or to `localhost` and `127.0.0.1`).
    public var isSecure: Bool
    /// The server's `HttpOnly` attribute, kept as it was set.
    public var isHTTPOnly: Bool

    /// A host-only cookie for the whole site by default; `domain` is lowercased.
    public init(
        name: String,
        value: String,
        domain: String,
        includesSubdomains: Bool = false,
        path: String = "/",
        expires: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.includesSubdomains = includesSubdomains
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
    }

    /// Cookie values are secrets (session ids, SSO tickets): never shown.
    public var description: String { "\(name)=\(Redaction.placeholder); domain=\(domain); path=\(path)" }

    func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    func matches(_ url: URL, at now: Date) -> Bool {
        guard let host = url.host?.lowercased(), !isExpired(at: now) else { return false }
        let domainMatches =
            host == domain || (includesSubdomains && host.hasSuffix("." + domain))
        guard domainMatches else { return false }
        if isSecure && url.scheme?.lowercased() != "https" && host != "localhost" && host != "127.0.0.1" {
            return false
        }
        let requestPath = url.path.isEmpty ? "/" : url.path
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).first == "/"
    }
}
