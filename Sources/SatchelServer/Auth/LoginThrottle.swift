import Foundation
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

/// The failure counts behind ``LoginThrottling``.
final class LoginThrottle: Sendable {
    private enum Key: Hashable {
        case user(String)
        case source(String)
    }

    private struct Entry {
        var failures: Int
        var lastFailure: ContinuousClock.Instant
    }

    /// Counts kept before old ones are dropped.
    static let capacity = 100_000

    let rules: LoginThrottling
    private let entries = Mutex([Key: Entry]())

    init(_ rules: LoginThrottling) {
        self.rules = rules
    }

    /// Whether a password may be checked now. If it may, the attempt is counted as a failure at once, in the same
    /// step (guesses sent together would otherwise all pass before the first failure is counted); if not, the
    /// wait is returned and nothing counted.
    func begin(user: String, source: String) -> Duration? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            let waits = [
                entries[.user(user)].map { $0.lastFailure + rules.perUser.delay(after: $0.failures) - now },
                entries[.source(source)].map { $0.lastFailure + rules.perSource.delay(after: $0.failures) - now },
            ]
            let longest = waits.compactMap { $0 }.max() ?? .zero
            if longest > .zero { return longest }
            if entries.count >= Self.capacity { prune(&entries, now: now) }
            for key in [Key.user(user), .source(source)] {
                var entry = entries[key] ?? Entry(failures: 0, lastFailure: now)
                if now - entry.lastFailure > rules.forgetAfter { entry.failures = 0 }
                entry.failures += 1
                entry.lastFailure = now
                entries[key] = entry
            }
            return nil
        }
    }

    /// An attempt ``begin(user:source:)`` counted succeeded: clears the user name's count and takes the attempt back
    /// from the address's. The rest of the address's count stays until it is forgotten: otherwise an attacker with
    /// an account of their own could log in between guesses to start again.
    func recordSuccess(user: String, source: String) {
        entries.withLock { entries in
            entries[.user(user)] = nil
            if var entry = entries[.source(source)] {
                entry.failures -= 1
                entries[.source(source)] = entry.failures > 0 ? entry : nil
            }
        }
    }

    /// Drops forgotten counts, then (under a flood of distinct names) the older half.
    private func prune(_ entries: inout [Key: Entry], now: ContinuousClock.Instant) {
        entries = entries.filter { now - $0.value.lastFailure <= rules.forgetAfter }
        guard entries.count >= Self.capacity / 2 else { return }
        let cutoff = entries.values.map(\.lastFailure).sorted()[entries.count / 2]
        entries = entries.filter { $0.value.lastFailure > cutoff }
    }
}
