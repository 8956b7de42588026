public import Foundation

/// What a server's sign-in keeps, in the metadata store so that every server process sharing it agrees: the secret
/// XSRF tokens are made with, cookie sessions, and the failed-login counts that slow down password guessing. A
/// session made through one process is honoured, extended and ended by any other; guesses spread over several
/// processes are counted once, together.
///
/// A session is kept by the SHA-256 of its id, never the id: what the store holds cannot be used as a cookie.
public protocol SessionStore: Sendable {
    // MARK: Secrets

    /// The secret named `name`: the one some process stored first, or `proposed` (then stored) when there is none.
    func sharedSecret(name: String, proposed: [UInt8]) async throws -> [UInt8]
    /// Replaces the secret named `name` with `value` (or stores it): what was made with the old one no longer holds.
    func replaceSecret(name: String, value: [UInt8]) async throws

    // MARK: Sessions

    /// Records a new session.
    func startSession(_ session: StoredSession) async throws
    /// The session whose id hashes to `digest` (lower-case hex SHA-256), live or expired, or nil.
    func session(digest: String) async throws -> StoredSession?
    /// Moves the session's expiry to `expires` (nothing happens when it has ended).
    func extendSession(digest: String, until expires: Date) async throws
    /// Ends the session; false when there was none.
    func endSession(digest: String) async throws -> Bool
    /// Forgets the sessions that expired before `time`; answers how many.
    func expireSessions(before time: Date) async throws -> Int

    // MARK: Failed logins

    /// In one step: reads the failure counts of `keys`, asks `admit` whether the attempt may go ahead, and if so
    /// counts one more failure for each key (a count whose last failure is before `forgetBefore` starts again at
    /// one), dated `time`. Answers whether it counted, and the counts as `admit` saw them.
    func admitLogin(
        keys: [String], at time: Date, forgetBefore: Date, admit: @escaping @Sendable ([String: LoginFailures]) -> Bool
    ) async throws -> (admitted: Bool, failures: [String: LoginFailures])
    /// After a success: forgets the counts of `clearing`, and takes one failure back from each of `takingBack`.
    func settleLogin(clearing: [String], takingBack: [String]) async throws
    /// Forgets the counts whose last failure is before `time`.
    func forgetLoginFailures(before time: Date) async throws
}

/// A cookie session, as the store keeps it.
public struct StoredSession: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the session id.
    public var digest: String
    /// The user signed in.
    public var user: String
    /// When it ends unless extended (whole milliseconds in the durable stores).
    public var expires: Date

    /// A session with these values.
    public init(digest: String, user: String, expires: Date) {
        self.digest = digest
        self.user = user
        self.expires = expires
    }
}

/// Failed logins counted against one key (a user name, a source address).
public struct LoginFailures: Sendable, Hashable {
    /// How many.
    public var count: Int
    /// When the last one was (whole milliseconds in the durable stores).
    public var last: Date

    /// A count with these values.
    public init(count: Int, last: Date) {
        self.count = count
        self.last = last
    }
}
