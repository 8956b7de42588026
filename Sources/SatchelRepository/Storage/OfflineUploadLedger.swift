public import Foundation

/// The offline middle tier's upload ledger (docs/offline-server.md, "Uploads: the ledger"): every modifying
/// request a client uploads through the middle tier, keyed by endpoint, user and the request's
/// `Repeatability-Request-ID`, recorded *before* it is forwarded to the back-end and completed with the back-end's
/// answer after. A retried upload (a lost answer, a killed client or server) finds its entry and is answered from
/// it instead of being applied twice. Implemented by ``SQLiteMetadataStore``, ``MemoryMetadataStore`` and the
/// PostgreSQL store (`SatchelRepositoryPostgres`).
public protocol OfflineUploadLedger: Sendable {
    /// Claims `request` for forwarding. A request never seen is recorded as ``OfflineLedgerEntry/State/sent`` with
    /// one attempt and answered ``OfflineLedgerClaim/new``; a request already recorded is answered with its entry
    /// as it was, and the caller decides. When that entry is not done and is the same request, it is counted as one
    /// more attempt and recorded as sent again.
    func claimUpload(_ request: OfflineLedgerRequest, at time: Date) async throws -> OfflineLedgerClaim
    /// Records the back-end's answer to a claimed request: `done` (it was applied, or refused for good) or
    /// `failed` (a 5xx or a lost connection: the client may send it again).
    func finishUpload(
        _ key: OfflineLedgerKey, state: OfflineLedgerEntry.State, answer: OfflineLedgerAnswer?, at time: Date
    ) async throws
    /// The entry of `key`, if any.
    func uploadEntry(_ key: OfflineLedgerKey) async throws -> OfflineLedgerEntry?
    /// Forgets the entries finished before `time` (`local_change_expiry`). Returns how many.
    func forgetUploads(endpoint: String, finishedBefore time: Date) async throws -> Int
}

/// Which uploaded request: the endpoint, the user who sent it, its `Repeatability-Request-ID`.
public struct OfflineLedgerKey: Sendable, Hashable, CustomStringConvertible {
    /// The middle tier endpoint the request was sent to.
    public var endpoint: String
    /// The user who sent it.
    public var user: String
    /// Its `Repeatability-Request-ID`.
    public var requestID: String

    /// The request `requestID` of `user` at `endpoint`.
    public init(endpoint: String, user: String, requestID: String) {
        self.endpoint = endpoint
        self.user = user
        self.requestID = requestID
    }

    /// `endpoint: user's request id`, for messages.
    public var description: String { "\(endpoint): \(user)'s request \(requestID)" }
}

/// A request as the ledger identifies it: the same id must always come with the same method, URL and body.
public struct OfflineLedgerRequest: Sendable, Hashable {
    /// Which request.
    public var key: OfflineLedgerKey
    /// The HTTP method.
    public var method: String
    /// The request's path and query under the endpoint.
    public var target: String
    /// SHA-256 of the body.
    public var bodyHash: Data

    /// A request with these values.
    public init(key: OfflineLedgerKey, method: String, target: String, bodyHash: Data) {
        self.key = key
        self.method = method
        self.target = target
        self.bodyHash = bodyHash
    }
}

/// What the back-end answered to a request, kept to answer the request's retries.
public struct OfflineLedgerAnswer: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The headers a client needs again (`ETag`, `Location`, `OData-EntityId`, `Content-Type`), in order.
    public var headers: [String: String]
    /// The response body.
    public var body: Data

    /// An answer with these values.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The headers as the durable stores keep them: `Name: value` lines, sorted (a header value holds no line
    /// break).
    package var headerText: String {
        headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }

    /// Headers read back from ``headerText``.
    package static func headers(fromText text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...].dropFirst())
        }
        return headers
    }
}

/// One request in the ledger.
public struct OfflineLedgerEntry: Sendable, Hashable {
    /// Where a request stands; the raw value is what the durable stores keep.
    public enum State: String, Sendable, Hashable {
        /// Forwarded (or about to be), its answer not recorded: if the middle tier died meanwhile, *in doubt*.
        case sent
        /// Answered by the back-end with something final (applied, or refused with a 4xx).
        case done
        /// Answered with a 5xx or not answered: the client may send it again, up to `max_delta_resends` times.
        case failed
    }

    /// The request, as first recorded under its key.
    public var request: OfflineLedgerRequest
    /// Where it stands.
    public var state: State
    /// How many times the request was claimed for forwarding.
    public var attempts: Int
    /// The back-end's answer, once recorded.
    public var answer: OfflineLedgerAnswer?
    /// When the entry last changed (whole milliseconds in the durable stores).
    public var updatedAt: Date

    /// An entry with these values.
    public init(
        request: OfflineLedgerRequest, state: State, attempts: Int, answer: OfflineLedgerAnswer?, updatedAt: Date
    ) {
        self.request = request
        self.state = state
        self.attempts = attempts
        self.answer = answer
        self.updatedAt = updatedAt
    }

    /// Whether `other` is the same request (method, target and body), as a retry must be.
    public func matches(_ other: OfflineLedgerRequest) -> Bool {
        request.method == other.method && request.target == other.target && request.bodyHash == other.bodyHash
    }
}

/// The answer to ``OfflineUploadLedger/claimUpload(_:at:)``.
public enum OfflineLedgerClaim: Sendable, Hashable {
    /// Never seen: recorded as sent, forward it.
    case new
    /// Seen before; its entry as it was before this claim, with `attempts` already counting this one.
    case known(OfflineLedgerEntry)
}

/// The memory store's ledger, kept beside its other state.
package struct MemoryUploadLedger: Sendable {
    var entries: [OfflineLedgerKey: OfflineLedgerEntry] = [:]

    package init() {}

    package mutating func claim(_ request: OfflineLedgerRequest, at time: Date) -> OfflineLedgerClaim {
        guard var entry = entries[request.key] else {
            entries[request.key] = OfflineLedgerEntry(
                request: request, state: .sent, attempts: 1, answer: nil, updatedAt: time)
            return .new
        }
        guard entry.state != .done, entry.matches(request) else { return .known(entry) }
        var before = entry
        entry.attempts += 1
        entry.state = .sent
        entry.updatedAt = time
        entries[request.key] = entry
        before.attempts = entry.attempts
        return .known(before)
    }

    package mutating func finish(
        _ key: OfflineLedgerKey, state: OfflineLedgerEntry.State, answer: OfflineLedgerAnswer?, at time: Date
    ) {
        guard var entry = entries[key] else { return }
        entry.state = state
        entry.answer = answer
        entry.updatedAt = time
        entries[key] = entry
    }

    package mutating func forget(endpoint: String, before time: Date) -> Int {
        let old = entries.filter { $0.key.endpoint == endpoint && $0.value.state != .sent && $0.value.updatedAt < time }
        for key in old.keys { entries[key] = nil }
        return old.count
    }
}
