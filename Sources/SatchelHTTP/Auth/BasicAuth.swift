import Synchronization
import Foundation

/// HTTP Basic authentication (RFC 7617), sent up front or only after a `401` challenge.
///
/// ```swift
/// let up = BasicAuth(user: "alice", password: secret)                         // every request
/// let lazy = BasicAuth(user: "alice", password: secret, mode: .onChallenge)   // after 401 + WWW-Authenticate
/// ```
///
/// In `.onChallenge` mode the origin that asked is remembered, so later requests to it carry credentials at once.
public final class BasicAuth: HTTPAuthProvider {
    /// When the credentials are sent.
    public enum Mode: Sendable {
        /// On every request, before any challenge.
        case preemptive
        /// Only after a `401` whose `WWW-Authenticate` offers Basic; from then on, at once to that origin (scheme, host
        /// and port).
        case onChallenge
    }

    private let headerValue: String
    /// When the credentials are sent (`.preemptive` by default).
    public let mode: Mode
    private let challengedOrigins = Mutex<Set<String>>([])

    /// Credentials of `user` and `password`, encoded once as the `Authorization` value.
    public init(user: String, password: String, mode: Mode = .preemptive) {
        headerValue = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        self.mode = mode
    }

    /// Sets `Authorization` unless the request already has one: always in `.preemptive` mode, and in `.onChallenge`
    /// mode once the request's origin has asked.
    public func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        guard !request.headers.contains("Authorization") else { return }
        let origin = Self.origin(of: request.url)
        if mode == .preemptive || challengedOrigins.withLock({ $0.contains(origin) }) {
            request.headers["Authorization"] = headerValue
        }
    }

    /// Asks for a resend after a `401` that offers Basic, when the request did not already carry these credentials (so
    /// wrong credentials end in the `401`); remembers the origin that asked.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    {
        guard response.status == 401, request.headers["Authorization"] != headerValue else { return false }
        let schemes = response.headers.values(for: "WWW-Authenticate").joined(separator: ",").lowercased()
        guard schemes.contains("basic") else { return false }
        challengedOrigins.withLock { _ = $0.insert(Self.origin(of: request.url)) }
        return true
    }

    static func origin(of url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
