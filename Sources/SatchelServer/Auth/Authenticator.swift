import Crypto
import Foundation
import Synchronization

/// Checks credentials and keeps sessions: HTTP Basic (with a short cache of verified headers, since PBKDF2 on
/// every request would cost more than the request) and cookie sessions from form login.
///
/// Every caller gets an XSRF token: an HMAC, under a secret drawn at start, of the user and the session id.
/// Basic callers share the session id `basic`, so their token is stable for the life of the process.
public final class Authenticator: Sendable {
    /// The cookie that carries a form-login session.
    public static let sessionCookie = "satchel_session"

    private let users: UsersFile
    private let secret: SymmetricKey
    private let basicCacheTTL: Duration
    private let sessionTTL: Duration
    private let state = Mutex(State())

    private struct State {
        /// SHA-256 of an Authorization header → user, XSRF token and when the entry expires.
        var verified: [Data: Entry] = [:]
        /// Cookie session id → user, XSRF token and expiry.
        var sessions: [String: Entry] = [:]
    }

    /// A verified caller. The token is computed once per entry: an HMAC on every request costs more than the
    /// request's own lookups.
    private struct Entry {
        var user: String
        var token: String
        var expires: ContinuousClock.Instant
    }

    /// - Parameters:
    ///   - basicCacheTTL: how long a verified Basic header is trusted without hashing the password again.
    ///   - sessionTTL: how long a cookie session lives without use.
    public init(users: UsersFile, basicCacheTTL: Duration = .seconds(60), sessionTTL: Duration = .seconds(8 * 3600)) {
        self.users = users
        secret = SymmetricKey(size: .bits256)
        self.basicCacheTTL = basicCacheTTL
        self.sessionTTL = sessionTTL
    }

    /// The user names known.
    public var userNames: [String] { users.entries.keys.sorted() }

    /// Checks a user name and password (PBKDF2: slow on purpose).
    public func verify(user: String, password: String) -> Bool {
        guard let hash = users.entries[user] else {
            // Spend comparable time on unknown users so timing does not tell which names exist.
            _ = try? PasswordHash.derive(password: password, salt: [0], rounds: 1_000)
            return false
        }
        return hash.verify(password: password)
    }

    /// The user and XSRF token of an `Authorization: Basic …` header value (session id `basic`), or nil when it
    /// is malformed or wrong.
    public func basicCaller(header: String) -> (user: String, token: String)? {
        let key = Data(SHA256.hash(data: Data(header.utf8)))
        let now = ContinuousClock.now
        if let hit = state.withLock({ state -> Entry? in
            guard let entry = state.verified[key] else { return nil }
            if entry.expires < now {
                state.verified[key] = nil
                return nil
            }
            return entry
        }) {
            return (hit.user, hit.token)
        }
        guard let credentials = Self.parseBasic(header), verify(user: credentials.0, password: credentials.1) else {
            return nil
        }
        let user = credentials.0
        let token = token(user: user, sessionId: "basic")
        state.withLock { state in
            if state.verified.count > 10_000 { state.verified = state.verified.filter { $0.value.expires >= now } }
            state.verified[key] = Entry(user: user, token: token, expires: now + basicCacheTTL)
        }
        return (user, token)
    }

    /// Splits `Basic base64(user:password)`.
    static func parseBasic(_ header: String) -> (String, String)? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "basic " else { return nil }
        guard let decoded = Data(base64Encoded: String(trimmed.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// Starts a cookie session for `user` and returns its id (the cookie value).
    public func startSession(user: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let id = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let now = ContinuousClock.now
        let token = token(user: user, sessionId: id)
        state.withLock { state in
            if state.sessions.count > 100_000 { state.sessions = state.sessions.filter { $0.value.expires >= now } }
            state.sessions[id] = Entry(user: user, token: token, expires: now + sessionTTL)
        }
        return id
    }

    /// The user and XSRF token of a live cookie session (and extends it), or nil.
    public func sessionCaller(id: String) -> (user: String, token: String)? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard var entry = state.sessions[id] else { return nil }
            guard entry.expires >= now else {
                state.sessions[id] = nil
                return nil
            }
            entry.expires = now + sessionTTL
            state.sessions[id] = entry
            return (entry.user, entry.token)
        }
    }

    /// Ends a cookie session.
    public func endSession(_ id: String) {
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// The XSRF token of `user` in session `sessionId` (`basic` for HTTP Basic callers).
    public func token(user: String, sessionId: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(user)\n\(sessionId)".utf8), using: secret)
        return Data(mac).prefix(24).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }
}
