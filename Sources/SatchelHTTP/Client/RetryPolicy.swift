import Foundation
import SatchelText

/// When and how often a failed request is sent again.
///
/// Only requests that are safe to repeat are retried: idempotent methods, and others that carry a
/// ``HTTPClient/Request/repeatabilityID``. Retries happen after connection failures and on the statuses in
/// ``retryableStatuses`` (429 and 503 by default), with exponential backoff and jitter; a `Retry-After` header
/// is honoured up to ``maximumRetryAfter``.
///
/// ```swift
/// var configuration = HTTPClient.Configuration()
/// configuration.retry = RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(100))
/// configuration.retry = .never
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retry.
    public var maximumAttempts: Int
    /// The wait before the first retry, before jitter (250 ms by default).
    public var initialDelay: Duration
    /// The longest wait between attempts, before jitter (10 seconds by default).
    public var maximumDelay: Duration
    /// How much each wait grows over the previous one (2 by default).
    public var multiplier: Double
    /// The share of each delay that is random (0 = none, 1 = "full jitter").
    public var jitter: Double
    /// Statuses that are retried (429 and 503 by default).
    public var retryableStatuses: Set<Int>
    /// Whether a timeout counts as a connection failure worth retrying.
    public var retriesTimeouts: Bool
    /// A `Retry-After` longer than this ends the retries with the error instead of waiting.
    public var maximumRetryAfter: Duration

    /// A policy of the given values; `maximumAttempts` is at least 1, and `jitter` is kept between 0 and 1.
    public init(
        maximumAttempts: Int = 3,
        initialDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(10),
        multiplier: Double = 2,
        jitter: Double = 0.5,
        retryableStatuses: Set<Int> = [429, 503],
        retriesTimeouts: Bool = false,
        maximumRetryAfter: Duration = .seconds(120)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = min(1, max(0, jitter))
        self.retryableStatuses = retryableStatuses
        self.retriesTimeouts = retriesTimeouts
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Three attempts, waits from 250 ms doubling up to 10 seconds, half of each random, on 429 and 503.
    public static let `default` = RetryPolicy()
    /// One attempt: nothing is retried.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before attempt `attempt + 1`, after attempt `attempt` failed (`attempt` starts at 1).
    public func delay(after attempt: Int, retryAfter: Duration? = nil) -> Duration {
        if let retryAfter { return retryAfter }
        let exponential = initialDelay.timeInterval * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(exponential, maximumDelay.timeInterval)
        let randomPart = capped * jitter * Double.random(in: 0...1)
        return .milliseconds(Int64(((capped * (1 - jitter)) + randomPart) * 1000))
    }

    func shouldRetry(_ error: HTTPTransferError) -> Bool {
        error.code == .connection || (retriesTimeouts && error.code == .timeout)
    }

    /// The `Retry-After` of a response (seconds or an HTTP date), if any.
    static func retryAfter(in headers: HTTPClient.Headers, now: Date = Date()) -> Duration? {
        guard let value = headers["Retry-After"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
