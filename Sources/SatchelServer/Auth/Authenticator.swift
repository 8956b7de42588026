import Crypto
import Foundation
public import SatchelRepository
import Synchronization

/// Checks credentials and keeps sessions: HTTP Basic (with a short cache of verified headers, since PBKDF2 on
/// every request would cost more than the request) and cookie sessions from form login.
///
/// Passwords are hashed on a password hasher's own low-priority threads, never on the concurrency pool that
/// serves requests; failed attempts are throttled per user name and per source address (``LoginThrottling``); an
/// unknown user name costs a full hash too, so timing does not tell which names exist.
///
/// Every caller gets an XSRF token: an HMAC of the user and the session id, under a secret every server process
/// sharing the metadata store shares (`SessionStore.sharedSecret(name:proposed:)`). Basic callers share the session
/// id `basic`, so their token is the same on every process and stays so across restarts.
///
/// Cookie sessions and failed-login counts live in the store too (`SessionStore`): a session started through one
/// process works on the others, ends on all of them at a logout through any, and guesses spread over processes are
/// counted together.
public final class Authenticator: Sendable {
    /// The cookie that carries a form-login session.
    public static let sessionCookie = "satchel_session"

    /// A verified caller.
    public struct Caller: Sendable, Hashable {
        /// The user name, as in the users file.
        public var user: String
        /// The session's XSRF token.
        public var token: String
        /// Whether the users file marks the user `"admin": true`.
        public var isAdministrator: Bool

        /// The engine's view of this caller.
        public var context: CallerContext {
            CallerContext(user: user, sessionToken: token, isAdministrator: isAdministrator)
        }
    }

    /// The answer to a credential.
    public enum Outcome: Sendable, Hashable {
        /// The credential is right: this is the caller.
        case accepted(Caller)
        /// Wrong user name or password (or a malformed header).
        case refused
        /// Too many failures for this user name or source address: try again after this long. The password was
        /// not checked.
        case throttled(retryAfter: Duration)
        /// Too many passwords are waiting to be checked.
        case busy
    }

    private let users: UsersFile
    /// Tokens issued to applications (``AccessTokens``).
    public let tokens: AccessTokens
    private let secret: SymmetricKey
    private let basicCacheTTL: Duration
    private let sessionTTL: Duration
    private let throttle: LoginThrottle
    /// Cookie sessions and failed-login counts.
    private let sessions: any SessionStore

    /// The name of the XSRF tokens' secret in the store.
    public static let xsrfSecretName = "xsrf"

    /// A new random secret for ``xsrfSecretName`` (256 bits).
    public static func proposedSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
    private let hasher: PasswordHasher
    /// Verified for unknown names, so they cost what a real user's check costs.
    private let decoy: PasswordHash
    private let state = Mutex(State())
    /// When expired sessions were last forgotten.
    private let sessionSweep = Mutex(Date.distantPast)

    private struct State {
        /// SHA-256 of an Authorization header → caller and when the entry expires.
        var verified: [Data: Entry] = [:]
        /// Credentials (SHA-256 of name and password) being checked now → requests waiting for that answer.
        var checking: [Data: [CheckedContinuation<Outcome?, Never>]] = [:]
    }

    /// A verified caller. The token is computed once per entry: an HMAC on every request costs more than the
    /// request's own lookups.
    private struct Entry {
        var caller: Caller
        var expires: ContinuousClock.Instant
        /// A Basic credential is checked again after this at the latest, however busy its client.
        var verifiedUntil: ContinuousClock.Instant = .now
    }

    /// The longest a verified Basic credential is used without hashing its password again.
    static let maximumVerificationAge: Duration = .seconds(8 * 3600)

    /// - Parameters:
    ///   - users: the users and their password hashes.
    ///   - basicCacheTTL: how long a verified Basic header stays trusted without being used (each use extends it, up
    ///     to eight hours after it was verified).
    ///   - sessionTTL: how long a cookie session lives without use.
    ///   - throttling: how failed logins are slowed down.
    ///   - tokens: where access tokens are kept; `nil` keeps them in memory, for this process only.
    ///   - sessions: where cookie sessions and failed-login counts are kept; `nil` keeps them in memory, for this
    ///     process only.
    ///   - secret: the XSRF tokens' secret (``xsrfSecretName`` in the store); `nil` draws one for this process.
    public init(
        users: UsersFile, basicCacheTTL: Duration = .seconds(60), sessionTTL: Duration = .seconds(8 * 3600),
        throttling: LoginThrottling = LoginThrottling(), tokens: AccessTokens? = nil,
        sessions: (any SessionStore)? = nil, secret: [UInt8]? = nil
    ) {
        self.users = users
        // In memory only unless the server names a store.
        self.tokens = tokens ?? AccessTokens()
        let sessions = sessions ?? MemoryMetadataStore()
        self.sessions = sessions
        self.secret = secret.map { SymmetricKey(data: $0) } ?? SymmetricKey(size: .bits256)
        self.basicCacheTTL = basicCacheTTL
        self.sessionTTL = sessionTTL
        throttle = LoginThrottle(throttling, store: sessions)
        hasher = PasswordHasher()
        // The decoy takes the round count most users have, so a miss costs what a hit costs.
        let rounds = Dictionary(grouping: users.entries.values, by: \.rounds).max { $0.value.count < $1.value.count }?
            .key
        decoy = PasswordHash(
            rounds: rounds ?? PasswordHash.defaultRounds, salt: Array(repeating: 0x5a, count: 16),
            hash: Array(repeating: 0, count: 32))
    }

    /// The user names known.
    public var userNames: [String] { users.entries.keys.sorted() }

    /// Stops the password-hashing threads (when the server stops).
    public func shutdown() { hasher.stop() }

    /// Checks a user name and password from `source` (a client address): throttled, and hashed off the request
    /// threads. The caller accepted carries the token of the Basic session (``startSession(user:)`` makes others).
    ///
    /// The same name and password checked by several requests at once (a client opening its connections) is
    /// checked once, and counted once by the throttle: the others wait for that answer.
    public func login(user: String, password: String, source: String) async -> Outcome {
        // Merged only for the same source: the throttle's verdict is per source.
        var key = SHA256()
        for part in [user, password, source] {
            key.update(data: Data(part.utf8))
            key.update(data: [0])
        }
        let credential = Data(key.finalize())
        while true {
            let first = state.withLock { state -> Bool in
                if state.checking[credential] != nil { return false }
                state.checking[credential] = []
                return true
            }
            if first { break }
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                let waiting = state.withLock { state -> Bool in
                    guard state.checking[credential] != nil else { return false }
                    state.checking[credential]?.append(continuation)
                    return true
                }
                // The check ended in between: check again (its answer is cached for Basic, or throttled).
                if !waiting { continuation.resume(returning: nil) }
            }
            if let answer { return answer }
        }
        let outcome = await check(user: user, password: password, source: source)
        let waiting = state.withLock { $0.checking.removeValue(forKey: credential) ?? [] }
        for continuation in waiting { continuation.resume(returning: outcome) }
        return outcome
    }

    private func check(user: String, password: String, source: String) async -> Outcome {
        do {
            if let wait = try await throttle.begin(user: user, source: source) { return .throttled(retryAfter: wait) }
        } catch {
            // The counts cannot be read: no password is checked unthrottled.
            return .busy
        }
        let hash = users.entries[user]
        let matches: Bool
        do {
            matches = try await hasher.run { [decoy] in
                // Unknown names are checked against the decoy: the same work, and never a match.
                (hash ?? decoy).verify(password: password) && hash != nil
            }
        } catch {
            return .busy
        }
        guard matches else { return .refused }  // counted by begin
        // A count left behind is forgotten in time: the login stands.
        try? await throttle.recordSuccess(user: user, source: source)
        return .accepted(caller(user: user, sessionId: "basic"))
    }

    /// The caller of an `Authorization: Basic …` header value (session id `basic`): from the cache of verified
    /// headers when it was seen lately, else checked as ``login(user:password:source:)`` does.
    public func basicCaller(header: String, source: String) async -> Outcome {
        let key = Data(SHA256.hash(data: Data(header.utf8)))
        let now = ContinuousClock.now
        if let hit = state.withLock({ state -> Entry? in
            guard var entry = state.verified[key] else { return nil }
            if entry.expires < now || entry.verifiedUntil < now {
                state.verified[key] = nil
                return nil
            }
            // Kept while the client is busy: a client in use is not made to log in again (and so is not caught by
            // a throttle someone else's guesses set off for its name or address).
            entry.expires = now + basicCacheTTL
            state.verified[key] = entry
            return entry
        }) {
            return .accepted(hit.caller)
        }
        guard let credentials = Self.parseBasic(header) else { return .refused }
        let outcome = await login(user: credentials.0, password: credentials.1, source: source)
        if case .accepted(let caller) = outcome {
            state.withLock { state in
                if state.verified.count > 10_000 { state.verified = state.verified.filter { $0.value.expires >= now } }
                state.verified[key] = Entry(
                    caller: caller, expires: now + basicCacheTTL, verifiedUntil: now + Self.maximumVerificationAge)
            }
        }
        return outcome
    }

    private func caller(user: String, sessionId: String) -> Caller {
        Caller(
            user: user, token: token(user: user, sessionId: sessionId),
            isAdministrator: users.administrators.contains(user))
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

    /// The caller an `X-Authentication-Token` stands for, with what the token allows; nil for a token never issued,
    /// revoked, or of a user no longer in the users file. Session id `token:` and the token's digest, so each token
    /// has its own XSRF token.
    public func tokenCaller(_ token: String) async throws -> (caller: Caller, grant: AccessTokens.Grant)? {
        guard let grant = try await tokens.grant(for: token), users.entries[grant.user] != nil else { return nil }
        return (caller(user: grant.user, sessionId: "token:" + grant.digest), grant)
    }

    /// Starts a cookie session for `user` (already verified) and returns its id (the cookie value) and caller. The
    /// store keeps the id's SHA-256 only.
    public func startSession(user: String) async throws -> (id: String, caller: Caller) {
        let id = Data(Self.proposedSecret()).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        try await sessions.startSession(
            StoredSession(digest: Self.digest(id), user: user, expires: Date() + LoginThrottle.seconds(sessionTTL)))
        return (id, caller(user: user, sessionId: id))
    }

    /// The caller of a live cookie session, or nil. The session is extended, in the store at most once a minute.
    /// Expired sessions are forgotten now and then.
    public func sessionCaller(id: String) async throws -> Caller? {
        let now = Date()
        let ttl = LoginThrottle.seconds(sessionTTL)
        if sessionSweep.withLock({ last in
            guard now.timeIntervalSince(last) > 300 else { return false }
            last = now
            return true
        }) {
            _ = try await sessions.expireSessions(before: now)
        }
        let digest = Self.digest(id)
        guard let session = try await sessions.session(digest: digest), session.expires >= now,
            users.entries[session.user] != nil
        else { return nil }
        if session.expires.timeIntervalSince(now) < ttl - 60 {
            try await sessions.extendSession(digest: digest, until: now + ttl)
        }
        return caller(user: session.user, sessionId: id)
    }

    /// Ends a cookie session, on every process sharing the store.
    public func endSession(_ id: String) async throws {
        _ = try await sessions.endSession(digest: Self.digest(id))
    }

    /// Lower-case hex SHA-256 of a session id.
    static func digest(_ id: String) -> String {
        SHA256.hash(data: Data(id.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The XSRF token of `user` in session `sessionId` (`basic` for HTTP Basic callers).
    public func token(user: String, sessionId: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(user)\n\(sessionId)".utf8), using: secret)
        return Data(mac).prefix(24).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }
}
