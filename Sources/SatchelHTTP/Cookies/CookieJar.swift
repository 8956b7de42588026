import Synchronization
public import Foundation

/// The cookies of one client, in memory only: SSO tickets and session ids never touch the disk.
///
/// ```swift
/// let jar = CookieJar()
/// let client = HTTPClient(configuration: .init(cookieJar: jar))
/// _ = try await client.send(loginRequest)
/// print(jar.cookies(for: serviceURL).map(\.name))   // ["MYSAPSSO2", "SAP_SESSIONID_GW1_100"]
/// ```
public final class CookieJar: Sendable {
    private let storage = Mutex<[Cookie]>([])

    /// An empty jar.
    public init() {}

    /// Stores the cookies of a response's `Set-Cookie` fields; an expired cookie deletes the stored one.
    public func store(from headers: HTTPClient.Headers, for url: URL, now: Date = Date()) {
        let cookies = headers.values(for: "Set-Cookie").compactMap { SetCookieParser.parse($0, from: url, now: now) }
        guard !cookies.isEmpty else { return }
        storage.withLock { stored in
            for cookie in cookies {
                stored.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if !cookie.isExpired(at: now) { stored.append(cookie) }
            }
        }
    }

    /// Stores `cookie`, replacing one of the same name, domain and path.
    public func set(_ cookie: Cookie) {
        storage.withLock { stored in
            stored.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            stored.append(cookie)
        }
    }

    /// The cookies to send to `url`, longest path first (RFC 6265 §5.4).
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        storage.withLock { stored in
            stored.removeAll { $0.isExpired(at: now) }
            return stored.filter { $0.matches(url, at: now) }.sorted { $0.path.count > $1.path.count }
        }
    }

    /// The `Cookie` header value for `url`, or nil when no cookie applies.
    public func headerValue(for url: URL) -> String? {
        let cookies = cookies(for: url)
        return cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every stored cookie; expired ones until the next lookup drops them.
    public var all: [Cookie] { storage.withLock { $0 } }

    /// Forgets every cookie.
    public func removeAll() { storage.withLock { $0.removeAll() } }

    /// Removes the cookies called `name` (e.g. to drop an expired SSO ticket).
    public func remove(named name: String) { storage.withLock { $0.removeAll { $0.name == name } } }
}
