public import Foundation
import Synchronization

/// ``OfflineUploadLedger`` in memory: the same rules as the SQLite store's.
extension MemoryMetadataStore: OfflineUploadLedger {
    /// Under the store's lock: two claims of one request never both get `new`.
    public func claimUpload(_ request: OfflineLedgerRequest, at time: Date) async throws -> OfflineLedgerClaim {
        ledger.withLock { $0.claim(request, at: time) }
    }

    /// Does nothing for a key that was never claimed.
    public func finishUpload(
        _ key: OfflineLedgerKey, state: OfflineLedgerEntry.State, answer: OfflineLedgerAnswer?, at time: Date
    ) async throws {
        ledger.withLock { $0.finish(key, state: state, answer: answer, at: time) }
    }

    /// A dictionary lookup.
    public func uploadEntry(_ key: OfflineLedgerKey) async throws -> OfflineLedgerEntry? {
        ledger.withLock { $0.entries[key] }
    }

    /// Entries still `sent` are kept, however old.
    public func forgetUploads(endpoint: String, finishedBefore time: Date) async throws -> Int {
        ledger.withLock { $0.forget(endpoint: endpoint, before: time) }
    }
}
