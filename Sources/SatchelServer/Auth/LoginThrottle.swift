import Foundation
import SatchelRepository
import Synchronization

/// How hard password guessing is slowed down: failed logins are counted per user name and per source address, and
/// past a few free failures each further attempt for that name or address must wait, twice as long after every
/// failure, up to a ceiling. A success clears the user name's count; counts nobody adds to are forgotten.
///
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: data)
/// configuration.loginThrottling.perUser = .init(freeFailures: 3, firstDelay: .seconds(2), maximumDelay: .seconds(120))
/// ```
public struct LoginThrottling: Sendable, Hashable {
    /// One counter's rule.
    public struct Rule: Sendable, Hashable {
        /// Failures allowed without any wait.
        public var freeFailures: Int
        /// The wait after the first failure past the free ones; it doubles with each further failure.
        public var firstDelay: Duration
        /// The longest wait.
        public var maximumDelay: Duration

        /// A rule of the given values.
        public init(freeFailures: Int, firstDelay: Duration, maximumDelay: Duration) {
            self.freeFailures = freeFailures
            self.firstDelay = firstDelay
            self.maximumDelay = maximumDelay
        }

        /// The wait after `failures` failures.
        func delay(after failures: Int) -> Duration {
            guard failures >= freeFailures else { return .zero }
            let doublings = min(failures - freeFailures, 30)
            return min(firstDelay * (1 << doublings), maximumDelay)
        }
    }

    /// Failures of one user name, from anywhere. Small, so an attacker cannot lock a user out for long; clients that
    /// already logged in keep working (verified credentials and sessions are not throttled).
    public var perUser: Rule
    /// Failures from one source address, whichever names they try.
    public var perSource: Rule
    /// A count with no new failure for this long is forgotten.
    public var forgetAfter: Duration

    /// Rules whose defaults are: 5 free failures per user name, then waits from 1 second up to 60; 10 per source
    /// address, then waits from 1 second up to 300; counts forgotten after 15 minutes without a failure.
    public init(
        perUser: Rule = Rule(freeFailures: 5, firstDelay: .seconds(1), maximumDelay: .seconds(60)),
        perSource: Rule = Rule(freeFailures: 10, firstDelay: .seconds(1), maximumDelay: .seconds(300)),
        forgetAfter: Duration = .seconds(900)
    ) {
        self.perUser = perUser
        self.perSource = perSource
        self.forgetAfter = forgetAfter
    }
}

/// The failure counts behind ``LoginThrottling``, kept in a ``SessionStore``: the metadata store, so that every
/// server process sharing it counts the same guesses.
final class LoginThrottle: Sendable {
    let rules: LoginThrottling
    private let store: any SessionStore
    /// When counts nobody added to for ``LoginThrottling/forgetAfter`` were last forgotten.
    private let lastPruned = Mutex(Date.distantPast)

    init(_ rules: LoginThrottling, store: any SessionStore) {
        self.rules = rules
        self.store = store
    }

    static func userKey(_ user: String) -> String { "user:" + user }
    static func sourceKey(_ source: String) -> String { "source:" + source }

    /// Whether a password may be checked now. If it may, the attempt is counted as a failure at once, in the same
    /// step of the store (guesses sent together, to any process, would otherwise all pass before the first failure
    /// is counted); if not, the wait is returned and nothing counted.
    func begin(user: String, source: String) async throws -> Duration? {
        let now = Date()
        try await pruneIfDue(now)
        let keys = (user: Self.userKey(user), source: Self.sourceKey(source))
        let rules = rules
        let forgetAfter = Self.seconds(rules.forgetAfter)
        let (admitted, seen) = try await store.admitLogin(
            keys: [keys.user, keys.source], at: now, forgetBefore: now - forgetAfter
        ) { seen in
            Self.wait(seen, keys: keys, rules: rules, now: now) <= .zero
        }
        return admitted ? nil : Self.wait(seen, keys: keys, rules: rules, now: now)
    }

    /// An attempt ``begin(user:source:)`` counted succeeded: clears the user name's count and takes the attempt back
    /// from the address's. The rest of the address's count stays until it is forgotten: otherwise an attacker with
    /// an account of their own could log in between guesses to start again.
    func recordSuccess(user: String, source: String) async throws {
        try await store.settleLogin(clearing: [Self.userKey(user)], takingBack: [Self.sourceKey(source)])
    }

    /// The longest wait the counts ask for.
    private static func wait(
        _ seen: [String: LoginFailures], keys: (user: String, source: String), rules: LoginThrottling, now: Date
    ) -> Duration {
        let waits = [(keys.user, rules.perUser), (keys.source, rules.perSource)].compactMap { key, rule in
            seen[key].map { failures in
                Duration.milliseconds(
                    Int64(
                        ((failures.last + seconds(rule.delay(after: failures.count))).timeIntervalSince(now) * 1000)
                            .rounded(.up)))
            }
        }
        return waits.max() ?? .zero
    }

    /// Forgets old counts at most once a minute (per process).
    private func pruneIfDue(_ now: Date) async throws {
        let due = lastPruned.withLock { last -> Bool in
            guard now.timeIntervalSince(last) > 60 else { return false }
            last = now
            return true
        }
        if due { try await store.forgetLoginFailures(before: now - Self.seconds(rules.forgetAfter)) }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
