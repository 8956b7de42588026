import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
import SatchelOData
import Synchronization
import SatchelStore

extension OfflineStore {
    /// The queued requests, oldest first.
    public func requests() async throws -> [OfflineRequest] {
        let opened = try current()
        return try await opened.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM q_requests ORDER BY id").map {
                OfflineRequest(
                    requestID: $0["id"], entitySet: $0["entity_set"], entityID: $0["entity_id"], method: $0["method"],
                    repeatabilityRequestID: $0["repeatability_id"], repeatabilityFirstSent: $0["first_sent"],
                    failed: $0["failed"], transactionID: $0["transaction_id"], uploadCategory: $0["custom_tag"],
                    unmodifiable: $0["unmodifiable"], resends: $0["resends"], lastFailure: $0["last_failure"])
            }
        }
    }

    /// The ErrorArchive: requests the service refused, oldest first.
    public func errors() async throws -> [OfflineErrorArchiveEntry] {
        let opened = try current()
        return try await opened.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM q_errors ORDER BY id").map {
                OfflineErrorArchiveEntry(
                    errorID: $0["id"], requestID: $0["request_id"], entitySet: $0["entity_set"],
                    entityID: $0["entity_id"], httpStatus: $0["http_status"], code: $0["code"],
                    message: $0["message"], innerError: $0["inner_error"], requestMethod: $0["method"],
                    requestURL: $0["url"], requestBody: $0["body"], currentETag: $0["current_etag"])
            }
        }
    }

    /// Sends the queued requests, oldest first (``Configuration/upload``: in `$batch` requests, each request its own
    /// changeset and the requests of one transaction together in one; or one by one). Every request carries its
    /// `Repeatability-Request-ID` and `Repeatability-First-Sent`, and a `$batch` its own, the same on every attempt
    /// and across restarts. A request the service refuses goes to the ErrorArchive and holds the later requests on
    /// its entity; the others go on. A request the service fails (a 5xx, 408 or 429 answer: it may or may not have
    /// applied it) stays queued to be sent again, with the same repeatability id, at the next upload, and is skipped
    /// for the rest of this one with the requests that depend on it (later ones on its entity, ones that link to
    /// it); the others go on. After ``Configuration/maximumResends`` such failures it goes to the ErrorArchive with
    /// the service's last answer, so one request never blocks the queue for good. A failure to reach the service,
    /// or a 401, stops the upload and keeps the request queued.
    ///
    /// With `categories`, only the requests of those upload categories are sent; with `transactions`, only the
    /// requests of those transactions (SAP's upload of chosen transactions); a request waits while an earlier
    /// request on its entity, or one on an entity it links to, is not being sent.
    @discardableResult
    public func upload(
        categories: Set<String>? = nil, transactions: Set<String>? = nil
    ) async throws
        -> OfflineUploadResult
    {
        let opened = try current()
        try beginExchange(.uploading)
        defer { endExchange() }
        var result = OfflineUploadResult(sent: 0, failed: 0, held: 0)
        let selection = OfflineUploadSelection(categories: categories, transactions: transactions)
        let total = try await opened.store.database.read { db in try selection.pendingCount(db) }
        signals.emit(.processedRequests(done: 0, of: total))
        var held: Set<Int64> = []
        var deferrals = OfflineDeferrals()
        while true {
            try signals.check()
            let batching = uploadBatchSize
            let passed = held.union(deferrals.requests)
            let blocked = deferrals.entities
            let round = try await opened.store.database.write { db in
                try selection.nextRound(db, skipping: passed, blocked: blocked, maximum: batching)
            }
            held.formUnion(round.held)
            result.held += round.held.count
            guard !round.requests.isEmpty else { break }
            // Properties' bodies here; content is counted as it is sent.
            signals.count(
                sent: round.requests.reduce(0) {
                    $0 + (OfflineMediaTable.isMedia(method: $1.method) ? 0 : $1.body?.utf8.count ?? 0)
                })
            do {
                // A request once sent in a `$batch` goes in a `$batch` again (the service may know that batch's id).
                if round.requests.count == 1, round.batchID.isEmpty {
                    try await sendAlone(round.requests[0], opened: opened, result: &result)
                } else {
                    try await sendBatch(round, opened: opened, result: &result, deferrals: &deferrals)
                }
            } catch let error as ODataError where Self.isServerFailure(error) {
                // The service failed the whole exchange: every request of it waits for the next upload (those
                // deferred while it was prepared are counted once).
                let requests = round.requests.filter { !deferrals.requests.contains($0.id) }
                let archived = try await opened.store.database.write { [maximum = configuration.maximumResends] db in
                    try Self.deferOrArchive(requests, after: error, maximum: maximum, schema: opened.schema, db: db)
                }
                result.failed += archived.count
                deferrals.add(requests.filter { !archived.contains($0.id) }, after: error)
            }
            result.deferred = deferrals.requests.count
            result.lastFailure = deferrals.lastFailure
            signals.emit(.processedRequests(done: result.processed, of: total))
        }
        signals.emit(.processedRequests(done: result.processed, of: total))
        try await recordSync(download: false, opened: opened)
        return result
    }

    /// A failure the service answered with and may pass on a later attempt (the request may or may not have been
    /// applied): a 5xx, 408 or 429. Not a connection failure, and not a 401 (nothing would pass until signed in).
    static func isServerFailure(_ error: ODataError) -> Bool {
        guard let status = error.status, error.code != .connection else { return false }
        return (500..<600).contains(status) || status == 408 || status == 429
    }

    /// Counts one more failure of each request (with the service's answer); a request failed more than `maximum`
    /// times goes to the ErrorArchive with that answer. Returns the ids of the archived ones.
    static func deferOrArchive(
        _ requests: [OfflineQueuedRequest], after error: ODataError, maximum: Int, schema: OfflineSchema,
        db: Database
    ) throws -> Set<Int64> {
        let failure = OfflineDeferrals.summary(of: error)
        var archived: Set<Int64> = []
        for request in requests {
            try db.execute(
                sql: "UPDATE q_requests SET resends = resends + 1, last_failure = ? WHERE id = ?",
                arguments: [failure, request.id])
            let resends =
                try Int.fetchOne(
                    db, sql: "SELECT resends FROM q_requests WHERE id = ?", arguments: [request.id]) ?? 0
            guard resends > maximum else { continue }
            var final = error
            final.message =
                "the service failed this request \(resends) times (at most \(maximum) resends); its last answer: "
                + error.message
            try archive(final, request: request, schema: schema, db: db)
            archived.insert(request.id)
        }
        return archived
    }

    /// How many requests one `$batch` may carry now: 1 when the configuration says one by one, or once the service
    /// answered a `$batch` with 404, 405 or 501.
    private var uploadBatchSize: Int {
        if state.withLock({ $0.batchUnsupported }) { return 1 }
        switch configuration.upload {
        case .oneByOne: return 1
        case .batch(let maximum): return max(1, maximum)
        }
    }

    /// A definite refusal (most 4xx): the request goes to the ErrorArchive. Failures that may pass or may have
    /// been applied (401, 408, 429, 5xx, no answer) stop the upload and keep the request queued.
    static func isRefusal(_ error: ODataError) -> Bool {
        guard let status = error.status, error.code != .connection else { return false }
        return (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    /// One request on its own (a transaction of several always goes as a `$batch` changeset).
    private func sendAlone(
        _ request: OfflineQueuedRequest, opened: Opened, result: inout OfflineUploadResult
    )
        async throws
    {
        do {
            let written: ODataWriteResult
            if OfflineMediaTable.isMedia(method: request.method) {
                written = try await sendMedia(request, opened: opened)
            } else {
                written = try await sendProperties(request, opened: opened)
            }
            try await opened.store.database.write { db in
                try Self.complete(request, with: written, schema: opened.schema, db: db)
            }
            result.sent += 1
        } catch let error as ODataError where Self.isRefusal(error) {
            try await opened.store.database.write { db in
                try Self.archive(error, request: request, schema: opened.schema, db: db)
            }
            result.failed += 1
        }
    }

    private func sendProperties(_ request: OfflineQueuedRequest, opened: Opened) async throws -> ODataWriteResult {
        let service = configuration.service
        let written: ODataWriteResult
        switch try await operation(for: request, opened: opened) {
        case .create(let path, let entity, _):
            written = try await service.create(path, entity, headers: request.repeatabilityHeaders(repeatable))
        case .update(let path, let entity, let method, let ifMatch, _):
            written = try await service.update(
                path, with: entity, method: method, ifMatch: ifMatch, headers: request.repeatabilityHeaders(repeatable))
        case .delete(let path, let ifMatch):
            do {
                try await service.delete(path, ifMatch: ifMatch, headers: request.repeatabilityHeaders(repeatable))
            } catch let error as ODataError where error.code == .notFound {
                // Already gone (a retry after the first attempt was applied, or deleted by someone else).
            }
            written = ODataWriteResult()
        case .link(let path, let navigation, let target, let replace, let removing, _):
            if removing {
                try await service.removeLink(
                    from: path, navigation: navigation, to: target, headers: request.repeatabilityHeaders(repeatable))
            } else if let target {
                try await service.addLink(
                    from: path, navigation: navigation, to: target, replace: replace,
                    headers: request.repeatabilityHeaders(repeatable))
            }
            written = ODataWriteResult()
        }
        return written
    }

    /// Several requests in one `$batch`: each its own changeset, a transaction's requests in one. The answers are
    /// written in one transaction; a request the service failed stays queued and waits for the next upload
    /// (``deferOrArchive(_:after:maximum:schema:db:)``), one it did not answer for stops the upload.
    private func sendBatch(
        _ round: OfflineUploadRound, opened: Opened, result: inout OfflineUploadResult,
        deferrals: inout OfflineDeferrals
    )
        async throws
    {
        var batch = ODataBatch(continueOnError: true)
        if repeatable {
            batch.headers = [
                "Repeatability-Request-ID": round.batchID, "Repeatability-First-Sent": round.batchFirstSent,
            ]
        }
        var sent: [(request: OfflineQueuedRequest, reference: ODataBatchReference)] = []
        var refused: [(OfflineQueuedRequest, ODataError)] = []
        for group in round.changesets {
            // Prepared before the changeset is built: a change whose ETag must be read first may turn out a conflict.
            var operations: [(OfflineQueuedRequest, OfflineOperation)] = []
            var groupRefusal: ODataError?
            var createdHere: Set<OfflineEntityRef> = []
            do {
                for request in group {
                    do {
                        let made = try await operation(for: request, createdHere: createdHere, opened: opened)
                        operations.append((request, made))
                        if request.method == "POST" { createdHere.insert(request.entity) }
                    } catch let error as ODataError where Self.isRefusal(error) {
                        refused.append((request, error))
                        groupRefusal = groupRefusal ?? error
                    }
                }
            } catch let error as ODataError where Self.isServerFailure(error) {
                // A batch sent before goes again exactly as it was (the service may replay its answer by position):
                // all of it waits for the next upload.
                if round.isResend { throw error }
                // The service failed a read this group needed (an ETag): the group waits for the next upload, a
                // failure counted on each of its requests (none was sent), and the rest of the round goes on.
                try await deferUnsent(group, after: error, opened: opened, result: &result, deferrals: &deferrals)
                continue
            }
            if let groupRefusal {
                // A transaction goes all or none: the rest of it is refused with it.
                refused += operations.map { ($0.0, groupRefusal) }
                continue
            }
            batch.changeset { changes in
                // An entity created earlier in the same changeset is addressed by its Content-ID.
                var created: [OfflineEntityRef: ODataBatchReference] = [:]
                for (request, operation) in operations {
                    let headers = request.repeatabilityHeaders(repeatable)
                    let reference: ODataBatchReference
                    func bound(_ entity: ODataEntity, _ links: [OfflineLink]) -> ODataEntity {
                        var entity = entity
                        for link in links {
                            if let reference = created[link.target] {
                                entity.bind(link.navigation, to: reference.path.description)
                            }
                        }
                        return entity
                    }
                    switch operation {
                    case .create(let path, let entity, let links):
                        reference = changes.create(path, bound(entity, links), headers: headers)
                        created[request.entity] = reference
                    case .update(let path, let entity, let method, let ifMatch, let links):
                        let entity = bound(entity, links)
                        let target = created[request.entity]
                        reference = changes.update(
                            target?.path ?? path, with: entity, method: method, ifMatch: ifMatch, headers: headers)
                    case .delete(let path, let ifMatch):
                        let target = created[request.entity]
                        reference = changes.delete(target?.path ?? path, ifMatch: ifMatch, headers: headers)
                    case .link(let path, let navigation, let target, let replace, let removing, let local):
                        let source = created[request.entity]?.path ?? path
                        let linked = local.flatMap { created[$0]?.path } ?? target
                        if removing {
                            reference = changes.removeLink(
                                from: source, navigation: navigation, to: linked, headers: headers)
                        } else {
                            reference = changes.addLink(
                                from: source, navigation: navigation, to: linked ?? path, replace: replace,
                                headers: headers)
                        }
                    }
                    sent.append((request, reference))
                }
            }
        }
        if sent.isEmpty {
            try await opened.store.database.write { [refused] db in
                for (request, error) in refused {
                    try Self.archive(error, request: request, schema: opened.schema, db: db)
                }
                try OfflineUploadSelection.forgetBatch(round.batchID, db: db)
            }
            result.failed += refused.count
            return
        }
        let response: ODataBatchResponse
        do {
            response = try await configuration.service.send(batch)
        } catch let error as ODataError where [404, 405, 501].contains(error.status ?? 0) {
            // No `$batch` here: one by one from now on; these requests were not applied.
            state.withLock { $0.batchUnsupported = true }
            try await opened.store.database.write { db in
                try OfflineUploadSelection.forgetBatch(round.batchID, db: db)
            }
            return
        }
        let maximum = configuration.maximumResends
        let outcome = try await opened.store.database.write { [refused, sent] db in
            var outcome = (
                sent: 0, failed: refused.count, stop: ODataError?.none,
                deferred: [(OfflineQueuedRequest, ODataError)]()
            )
            for (request, error) in refused {
                try Self.archive(error, request: request, schema: opened.schema, db: db)
            }
            for (request, reference) in sent {
                let part = response[reference]
                if part.succeeded || (request.method == "DELETE" && part.status == 404) {
                    let written = ODataWriteResult(
                        entity: try? part.entity(), etag: part.etag, location: part.location)
                    try Self.complete(request, with: written, schema: opened.schema, db: db)
                    outcome.sent += 1
                    continue
                }
                var error = part.error ?? ODataError(.notExecuted, "no answer for \(part.operation)")
                if error.status == nil { error.status = part.status }
                if Self.isRefusal(error) {
                    try Self.archive(error, request: request, schema: opened.schema, db: db)
                    outcome.failed += 1
                } else if Self.isServerFailure(error) {
                    let archived = try Self.deferOrArchive(
                        [request], after: error, maximum: maximum, schema: opened.schema, db: db)
                    if archived.isEmpty { outcome.deferred.append((request, error)) } else { outcome.failed += 1 }
                } else if outcome.stop == nil {
                    outcome.stop = error
                }
            }
            // What stays queued goes in a new `$batch` next time: this one's answer is known now.
            try OfflineUploadSelection.forgetBatch(round.batchID, db: db)
            return outcome
        }
        result.sent += outcome.sent
        result.failed += outcome.failed
        for (request, error) in outcome.deferred { deferrals.add([request], after: error) }
        if let stop = outcome.stop { throw stop }
    }
}

extension OfflineStore {
    /// A group the service failed before it was sent: it becomes sendable again (not attempted, in no `$batch`), one
    /// failure is counted on each of its requests, and it is deferred; beyond ``Configuration/maximumResends`` the
    /// whole group goes to the ErrorArchive (a transaction goes all or none).
    fileprivate func deferUnsent(
        _ group: [OfflineQueuedRequest], after error: ODataError, opened: Opened, result: inout OfflineUploadResult,
        deferrals: inout OfflineDeferrals
    ) async throws {
        let archived = try await opened.store.database.write { [maximum = configuration.maximumResends] db in
            try db.execute(
                sql: """
                    UPDATE q_requests SET attempted = 0, batch_id = NULL, batch_first_sent = NULL
                    WHERE id IN (SELECT value FROM json_each(?))
                    """, arguments: ["[" + group.map { String($0.id) }.joined(separator: ",") + "]"])
            var archived = try Self.deferOrArchive(group, after: error, maximum: maximum, schema: opened.schema, db: db)
            if !archived.isEmpty {
                for request in group where !archived.contains(request.id) {
                    try Self.archive(error, request: request, schema: opened.schema, db: db)
                    archived.insert(request.id)
                }
            }
            return archived
        }
        result.failed += archived.count
        deferrals.add(group.filter { !archived.contains($0.id) }, after: error)
    }
}

/// The requests the service failed during one upload: skipped for the rest of it, with every request on their
/// entities and every request that links to those entities.
struct OfflineDeferrals: Sendable {
    var requests: Set<Int64> = []
    var entities: Set<OfflineEntityRef> = []
    var lastFailure: String?

    mutating func add(_ deferred: [OfflineQueuedRequest], after error: ODataError) {
        guard !deferred.isEmpty else { return }
        for request in deferred {
            requests.insert(request.id)
            entities.insert(request.entity)
        }
        lastFailure = Self.summary(of: error)
    }

    /// How a failing answer is kept and shown: its status, then the service's message (`500 deadlock detected`).
    static func summary(of error: ODataError) -> String {
        "\(error.status.map { "\($0) " } ?? "")\(error.message)"
    }
}
