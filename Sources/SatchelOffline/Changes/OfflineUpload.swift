import Foundation
import GRDB
import SatchelHTTP
import SatchelOData

/// How ``OfflineStore/upload(categories:transactions:)`` sends the queue.
public enum OfflineUploadMode: Sendable, Hashable {
    /// `$batch` requests of at most `maximumRequests` queued requests, each its own changeset (a refusal fails only
    /// that request) unless requests share a transaction id. A service that answers `$batch` with 404, 405 or 501
    /// gets one request at a time instead.
    case batch(maximumRequests: Int)
    /// One HTTP request per queued request (a transaction of several still goes as one changeset).
    case oneByOne
}

/// How a local change is queued.
public struct OfflineChangeOptions: Sendable, Hashable {
    /// Changes with the same transaction id are uploaded in one changeset: the service applies all or none. Such a
    /// change is merged only into a queued request of the same transaction.
    public var transactionID: String?
    /// The request's upload category: ``OfflineStore/upload(categories:transactions:)`` sends only the categories it
    /// names.
    public var uploadCategory: String?
    /// A request no later change is merged into and that a deletion does not cancel: it reaches the server as made.
    public var unmodifiable: Bool

    /// Options for a change; the defaults queue a plain change: no transaction, no category, mergeable.
    public init(transactionID: String? = nil, uploadCategory: String? = nil, unmodifiable: Bool = false) {
        self.transactionID = transactionID
        self.uploadCategory = uploadCategory
        self.unmodifiable = unmodifiable
    }
}

/// An entity of the store: its set and entity id.
struct OfflineEntityRef: Hashable, Sendable {
    let entitySet: String
    let entityID: Int64
}

/// A queued request as the upload reads it.
struct OfflineQueuedRequest: Sendable {
    let id: Int64
    let entitySet: String
    let entityID: Int64
    let method: String
    let body: String?
    let ifMatch: String?
    let repeatabilityID: String
    let firstSent: String
    let transactionID: String?
    /// Whether it is in the ErrorArchive (a transaction's requests are read with their failed ones).
    let failed: Bool
    /// The entities it binds navigation properties to.
    let links: [OfflineLink]
    /// A creation's related entities created inline with it (deep insert).
    let deep: [OfflineLink]

    init(_ row: Row) throws {
        id = row["id"]
        entitySet = row["entity_set"]
        entityID = row["entity_id"]
        method = row["method"]
        body = row["body"]
        ifMatch = row["if_match"]
        repeatabilityID = row["repeatability_id"]
        firstSent = row["first_sent"]
        transactionID = row["transaction_id"]
        failed = row["failed"]
        links = try OfflineLinks.decode(row["links"])
        deep = try OfflineLinks.decode(row["deep"])
    }

    var entity: OfflineEntityRef { OfflineEntityRef(entitySet: entitySet, entityID: entityID) }

    /// Its `Repeatability-Request-ID` and `Repeatability-First-Sent`, when requests are sent `repeatable`
    /// (``OfflineStore/Configuration/repeatableRequests``).
    func repeatabilityHeaders(_ repeatable: Bool) -> HTTPClient.Headers {
        repeatable ? ["Repeatability-Request-ID": repeatabilityID, "Repeatability-First-Sent": firstSent] : [:]
    }
}

/// What a queued request becomes on the wire. `localLinks` bind entities created earlier in the same changeset
/// whose keys the server assigns: they are addressed by that creation's Content-ID (V4 `Nav@odata.bind: "$1"`).
enum OfflineOperation: Sendable {
    case create(ODataPath, ODataEntity, localLinks: [OfflineLink])
    case update(ODataPath, ODataEntity, ODataUpdateMethod, ifMatch: String?, localLinks: [OfflineLink])
    case delete(ODataPath, ifMatch: String?)
    /// `LINK`/`UNLINK` requests: `$ref` (V4) or `$links` (V2); no target clears a to-one link. A target created in
    /// the same changeset without a key yet is `localTarget` (addressed by its Content-ID).
    case link(
        ODataPath, navigation: String, target: ODataPath?, replace: Bool, removing: Bool,
        localTarget: OfflineEntityRef?)
}

/// The requests one exchange sends: one alone, or a `$batch` of changesets with its own repeatability id.
struct OfflineUploadRound: Sendable {
    var changesets: [[OfflineQueuedRequest]] = []
    var batchID = ""
    var batchFirstSent = ""
    /// Requests found held (an earlier request on their entity failed or is not being uploaded).
    var held: [Int64] = []
    /// A `$batch` sent before whose answer was never written, sent again: exactly as it was, or not at all.
    var isResend = false

    var requests: [OfflineQueuedRequest] { changesets.flatMap { $0 } }
}

/// Which queued requests an upload sends next (docs/offline.md, "Upload").
struct OfflineUploadSelection: Sendable {
    let categories: Set<String>?
    /// Only the requests of these transactions (``OfflineChangeOptions/transactionID``), when given.
    var transactions: Set<String>? = nil

    /// Whether a request is one the upload sends, as SQL that is never NULL; nil when every request is.
    private var selected: String? {
        func member(_ column: String, _ values: Set<String>?) -> String? {
            values.map {
                "(\(column) IS NOT NULL AND \(column) IN (\($0.sorted().map(sqlText).joined(separator: ", "))))"
            }
        }
        let parts = [member("custom_tag", categories), member("transaction_id", transactions)].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " AND ")
    }

    private var categoryCondition: String {
        guard let selected else { return "" }
        return " AND \(selected)"
    }

    func pendingCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM q_requests WHERE failed = 0" + categoryCondition) ?? 0
    }

    /// The next round, marked attempted in the same transaction (from then on no local change is merged into
    /// these requests). A `$batch` interrupted before its answer was written is sent again exactly as it was, with
    /// its repeatability id: a service that kept the answer replays it.
    ///
    /// `held` are skipped; a request on one of the `blocked` entities, or linking to one, is held (their requests
    /// were deferred in this upload).
    func nextRound(
        _ db: Database, skipping held: Set<Int64>, blocked: Set<OfflineEntityRef> = [], maximum: Int
    ) throws -> OfflineUploadRound {
        var round = OfflineUploadRound()
        var chosen: Set<Int64> = []
        // The requests of a transaction held whole in this round.
        var heldWhole: Set<Int64> = []
        var entities: Set<OfflineEntityRef> = []
        // Entities whose earliest request waits: their later requests wait too (FIFO per entity).
        var waiting: Set<OfflineEntityRef> = []
        // Entities with a request held in this upload: their later requests, and requests linking to them, are held
        // too (one entity's requests go in order).
        var blocked = blocked
        var after: Int64 = 0
        // In chunks, the first about what the round needs, then larger ones: requests that wait or are held may be
        // many before one that can go.
        var chunk = max(maximum, 1) * 2 + 16
        rows: while true {
            let pending = try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT * FROM q_requests WHERE failed = 0\(categoryCondition) AND id > ? ORDER BY id LIMIT ?"),
                arguments: [after, chunk])
            chunk = min(chunk * 4, 4096)
            guard let last = pending.last else { break }
            after = last["id"]
            for row in pending {
                let request = try OfflineQueuedRequest(row)
                if chosen.contains(request.id) { continue }
                if held.contains(request.id) || heldWhole.contains(request.id) {
                    blocked.insert(request.entity)
                    continue
                }
                // A transaction's requests are one group, found by its id alone: it goes whole or waits whole.
                var group = [request]
                if let transaction = request.transactionID {
                    group = try Row.fetchAll(
                        db, sql: "SELECT * FROM q_requests WHERE transaction_id = ? ORDER BY id",
                        arguments: [transaction]
                    ).map(OfflineQueuedRequest.init)
                }
                if try group.contains(where: { held.contains($0.id) }) || isHeld(group, blocked: blocked, db: db) {
                    let ids = group.filter { !$0.failed }.map(\.id).filter {
                        !held.contains($0) && !heldWhole.contains($0)
                    }
                    round.held += ids
                    heldWhole.formUnion(ids)
                    blocked.formUnion(group.map(\.entity))
                    continue
                }
                // A transaction waits for the requests outside it that came earlier on its entities (they are later
                // in this scan, or in this round already): it goes in a later round, after them.
                if group.count > 1, try waitsForEarlier(group, chosen: chosen, db: db) { continue }
                if let batch = row["batch_id"] as String? {
                    // An earlier batch without its answer: again, alone and unchanged.
                    guard round.changesets.isEmpty else { break rows }
                    let members = try Row.fetchAll(
                        db, sql: "SELECT * FROM q_requests WHERE batch_id = ? AND failed = 0 ORDER BY id",
                        arguments: [batch])
                    round.batchID = batch
                    round.isResend = true
                    round.batchFirstSent =
                        try String.fetchOne(
                            db, sql: "SELECT batch_first_sent FROM q_requests WHERE batch_id = ?", arguments: [batch])
                        ?? ""
                    var groups: [String: Int] = [:]
                    for member in try members.map(OfflineQueuedRequest.init) {
                        if let transaction = member.transactionID, let index = groups[transaction] {
                            round.changesets[index].append(member)
                        } else {
                            if let transaction = member.transactionID { groups[transaction] = round.changesets.count }
                            round.changesets.append([member])
                        }
                    }
                    return round
                }
                if row["attempted"] as Bool, group.count == 1 {
                    // Sent alone before without an answer written: alone again, with its own repeatability id (a
                    // service that kept that id's answer replays it; in a new `$batch` it would be applied twice).
                    // A transaction's requests go together again, each with its own repeatability id.
                    guard round.changesets.isEmpty else { break rows }
                    round.changesets = [[request]]
                    return round
                }
                // A request waits while an entity it links to is still to be created (its creation goes first, in
                // this round or a later one) or changes in this round outside its changeset; and while an earlier
                // request on its entity waits.
                let createdInGroup = Set(group.filter { $0.method == "POST" }.map(\.entity))
                var waits = false
                for member in group {
                    if waiting.contains(member.entity) { waits = true }
                    // An entity created inline with another waits for that creation.
                    if member.method != "POST",
                        let owner = try OfflineDeepInsert.owner(of: member.entity, unsent: false, db: db),
                        !group.contains(where: { $0.id == owner })
                    {
                        waits = true
                    }
                    for link in member.links where !createdInGroup.contains(link.target) {
                        if entities.contains(link.target) || waiting.contains(link.target) { waits = true }
                        if try Self.isUncreated(link.target, db: db) { waits = true }
                    }
                }
                if waits {
                    waiting.formUnion(group.map(\.entity))
                    continue
                }
                if OfflineMediaTable.isMedia(method: request.method) {
                    // Content goes alone, never in a `$batch`.
                    guard round.changesets.isEmpty else { break rows }
                    round.changesets = [[request]]
                    break rows
                }
                // One request per entity and batch outside a transaction: the next needs this one's answer (its key
                // or ETag).
                if !round.changesets.isEmpty, group.contains(where: { entities.contains($0.entity) }) { break rows }
                if !round.changesets.isEmpty, round.requests.count + group.count > maximum { break rows }
                round.changesets.append(group)
                for member in group {
                    chosen.insert(member.id)
                    entities.insert(member.entity)
                }
                if round.requests.count >= maximum { break rows }
            }
        }
        guard !round.changesets.isEmpty else { return round }
        let ids = round.requests.map(\.id)
        if ids.count > 1 {
            round.batchID = UUID().uuidString.lowercased()
            round.batchFirstSent = HTTPDate.format(Date())
        }
        try db.execute(
            sql: """
                UPDATE q_requests SET attempted = 1, batch_id = ?, batch_first_sent = ?
                WHERE id IN (SELECT value FROM json_each(?))
                """,
            arguments: [
                ids.count > 1 ? round.batchID : nil, ids.count > 1 ? round.batchFirstSent : nil,
                "[" + ids.map(String.init).joined(separator: ",") + "]",
            ])
        return round
    }

    /// Whether a group (one request, or a transaction's) waits whole: one of its requests is in the ErrorArchive, is
    /// on a `blocked` entity or links to one, is held (``isHeld(_:db:)``), or is not among the requests this upload
    /// sends.
    private func isHeld(_ group: [OfflineQueuedRequest], blocked: Set<OfflineEntityRef>, db: Database) throws -> Bool {
        for member in group {
            if member.failed { return true }
            if try Self.isBlocked(member, by: blocked) || isHeld(member, db: db) { return true }
        }
        guard group.count > 1, let selected else { return false }
        let unselected = try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM q_requests WHERE id IN (SELECT value FROM json_each(?)) AND NOT \(selected)",
            arguments: ["[" + group.map { String($0.id) }.joined(separator: ",") + "]"])
        return (unselected ?? 0) > 0
    }

    /// Held: an earlier request on the same entity failed or waits in a category this upload does not send; or a
    /// request on an entity it links to (earlier or not: a link needs the target's creation) did.
    private func isHeld(_ request: OfflineQueuedRequest, db: Database) throws -> Bool {
        var condition = "failed = 1"
        if let selected {
            condition = "(failed = 1 OR NOT \(selected))"
        }
        let own = try db.cachedStatement(
            sql: """
                SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id < ? AND \(condition)
                """)
        if try Bool.fetchOne(own, arguments: [request.entitySet, request.entityID, request.id]) == true { return true }
        let linked = try db.cachedStatement(
            sql:
                "SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id <> ? AND \(condition)"
        )
        for target in request.links.map(\.target) {
            if try Bool.fetchOne(linked, arguments: [target.entitySet, target.entityID, request.id]) == true {
                return true
            }
        }
        return false
    }

    /// Whether a member of a transaction has a queued request on its entity that came before it, is not part of the
    /// transaction, and is not already sent in this round: the transaction must go after it (one entity's requests
    /// go in order). Two transactions that cross each other so both wait, and stay queued.
    private func waitsForEarlier(_ group: [OfflineQueuedRequest], chosen: Set<Int64>, db: Database) throws -> Bool {
        let members = Set(group.map(\.id))
        let earlier = try db.cachedStatement(
            sql: "SELECT id FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id < ? AND failed = 0")
        for member in group {
            let ids = try Int64.fetchAll(earlier, arguments: [member.entitySet, member.entityID, member.id])
            if ids.contains(where: { !members.contains($0) && !chosen.contains($0) }) { return true }
        }
        return false
    }

    /// Whether a request is on one of the `blocked` entities or links to one.
    static func isBlocked(_ request: OfflineQueuedRequest, by blocked: Set<OfflineEntityRef>) -> Bool {
        !blocked.isEmpty
            && (blocked.contains(request.entity) || request.links.contains { blocked.contains($0.target) })
    }

    /// Whether an entity's creation is still queued (its key is not known yet).
    static func isUncreated(_ entity: OfflineEntityRef, db: Database) throws -> Bool {
        let own =
            try Bool.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ?
                            AND method IN ('POST', 'POSTMEDIA')
                        """), arguments: [entity.entitySet, entity.entityID]) ?? false
        // Or created inline with another entity whose creation is still queued.
        return try own || OfflineDeepInsert.owner(of: entity, unsent: false, db: db) != nil
    }

    /// Forgets a batch whose answer is written (or that never reached the service): what is left of it goes in a
    /// new batch next time.
    static func forgetBatch(_ batchID: String, db: Database) throws {
        guard !batchID.isEmpty else { return }
        try db.execute(
            sql: "UPDATE q_requests SET batch_id = NULL, batch_first_sent = NULL WHERE batch_id = ?",
            arguments: [batchID])
    }
}
