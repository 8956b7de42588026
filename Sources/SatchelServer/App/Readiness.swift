import Foundation
public import Logging
import SatchelRepository
import Synchronization

/// Whether this server can do its work now: what `/ready` answers (200 when every dependency answers, 503 when one
/// does not), so a load balancer takes the node out while its metadata store or its object store is unreachable and
/// puts it back once they answer again. `/health` stays the cheap liveness check: the process is up.
///
/// Each check is one cheap call (a keyed lookup in the metadata store; a one-key listing of the bucket, or a look at
/// the blob folder), all run at once, each given at most ``timeout``: a dependency that hangs counts as failing and
/// never holds the probe. An answer is reused for a second, so probing often costs the dependencies nothing more.
/// The answer names which checks fail, never why (the reasons name internal hosts); the reasons go to the log.
public final class Readiness: Sendable {
    /// One dependency: its name in the answer, and a call that throws when it cannot be used.
    public struct Check: Sendable {
        /// The name in the answer (`metadata`, `blobs`).
        public var name: String
        /// Throws when the dependency cannot be used.
        public var probe: @Sendable () async throws -> Void

        /// A check called `name`.
        public init(name: String, probe: @escaping @Sendable () async throws -> Void) {
            self.name = name
            self.probe = probe
        }
    }

    /// One check's outcome: nil when it passed, or why it failed.
    public typealias Result = (name: String, failure: String?)

    /// The checks, in the order the answer lists them.
    public let checks: [Check]
    /// The longest one check may take (2 seconds by default).
    public let timeout: Duration
    /// How long an answer is reused (1 second by default).
    public let reuse: Duration
    private let last = Mutex<(at: ContinuousClock.Instant, results: [Result])?>(nil)

    /// Readiness over `checks`.
    public init(checks: [Check], timeout: Duration = .seconds(2), reuse: Duration = .seconds(1)) {
        self.checks = checks
        self.timeout = timeout
        self.reuse = reuse
    }

    /// The checks of a server: its metadata store (a lookup of a content hash nothing has) and its blob store.
    static func server(store: any MetadataStore, blobs: BlobStore) -> Readiness {
        let probe = String(repeating: "0", count: 64)
        return Readiness(checks: [
            Check(name: "metadata") { _ = try await store.isContentReferenced(probe) },
            Check(name: "blobs") { try await blobs.checkAvailable() },
        ])
    }

    /// Runs every check at once (or reuses an answer younger than ``reuse``).
    public func run() async -> [Result] {
        let now = ContinuousClock.now
        if let kept = last.withLock({ $0 }), kept.at.duration(to: now) < reuse { return kept.results }
        var results: [Result] = []
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { [timeout] in await (index, Self.bounded(check.probe, timeout: timeout)) }
            }
            results = checks.map { ($0.name, "not run") }
            for await (index, failure) in group { results[index].failure = failure }
        }
        last.withLock { $0 = (ContinuousClock.now, results) }
        return results
    }

    /// `probe`'s failure, or a timeout's; nil when it passed in time. The probe runs in a task of its own, so one
    /// that ignores cancellation and hangs is left behind instead of holding the answer.
    private static func bounded(
        _ probe: @escaping @Sendable () async throws -> Void, timeout: Duration
    ) async
        -> String?
    {
        let answer = Mutex<CheckedContinuation<String?, Never>?>(nil)
        let resume = { @Sendable (failure: String?) in
            answer.withLock { continuation in
                continuation?.resume(returning: failure)
                continuation = nil
            }
        }
        return await withCheckedContinuation { continuation in
            answer.withLock { $0 = continuation }
            Task {
                do {
                    try await probe()
                    resume(nil)
                } catch {
                    resume("\(error)")
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                resume("no answer within \(timeout)")
            }
        }
    }

    /// Logs each failure at error level.
    func log(_ results: [Result], to logger: Logger) {
        for result in results {
            if let failure = result.failure { logger.error("not ready: \(result.name): \(failure)") }
        }
    }
}
