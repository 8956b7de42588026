import Foundation
public import Logging
import SatchelRepository

/// Whether this server can do its work now: what `/ready` answers (200 when every dependency answers, 503 when one
/// does not), so a load balancer takes the node out while its metadata store or its object store is unreachable and
/// puts it back once they answer again. `/health` stays the cheap liveness check: the process is up.
///
/// Each check is one cheap call (a keyed lookup in the metadata store, an existence check in the blob store), all run
/// at once and each bounded by ``timeout``: a dependency that hangs counts as failing instead of hanging the probe.
/// The answer names which checks fail, never why (the reasons name internal hosts); the reasons go to the log.
public struct Readiness: Sendable {
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

    /// The checks, in the order the answer lists them.
    public var checks: [Check]
    /// The longest one check may take (2 seconds by default).
    public var timeout: Duration

    /// Readiness over `checks`.
    public init(checks: [Check], timeout: Duration = .seconds(2)) {
        self.checks = checks
        self.timeout = timeout
    }

    /// The checks of a server: its metadata store (a lookup of a content hash nothing has) and its blob store.
    static func server(store: any MetadataStore, blobs: BlobStore) -> Readiness {
        let probe = String(repeating: "0", count: 64)
        return Readiness(checks: [
            Check(name: "metadata") { _ = try await store.isContentReferenced(probe) },
            Check(name: "blobs") { _ = try await blobs.contains(probe) },
        ])
    }

    /// Runs every check at once; each result is nil when it passed, or why it failed.
    public func run() async -> [(name: String, failure: String?)] {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask {
                    await (index, Self.bounded(check.probe, timeout: timeout))
                }
            }
            var results: [(name: String, failure: String?)] = checks.map { ($0.name, "not run") }
            for await (index, failure) in group { results[index].failure = failure }
            return results
        }
    }

    /// `probe`'s failure, or a timeout's; nil when it passed in time.
    private static func bounded(
        _ probe: @escaping @Sendable () async throws -> Void, timeout: Duration
    ) async
        -> String?
    {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await probe()
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return "no answer within \(timeout)"
            }
            let first = await group.next() ?? "no answer"
            group.cancelAll()
            return first
        }
    }

    /// Logs each failure at error level.
    func log(_ results: [(name: String, failure: String?)], to logger: Logger) {
        for result in results {
            if let failure = result.failure { logger.error("not ready: \(result.name): \(failure)") }
        }
    }
}
