import HTTPTypes
import Hummingbird

extension Request {
    /// `scheme://host[:port]` as the client addressed the server (the `Host` header; `X-Forwarded-Proto` for the
    /// scheme behind a TLS proxy). Absolute URLs in responses start with it.
    public var serverBaseURL: String {
        let forwarded = headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        let scheme = forwarded == "https" ? "https" : "http"
        let host = head.authority ?? "127.0.0.1"
        // Only characters a host and port can have: never echo anything else into a URL.
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_".utf8)
        let safe = host.utf8.allSatisfy { allowed.contains($0) }
        return "\(scheme)://\(safe && !host.isEmpty ? host : "127.0.0.1")"
    }
}
