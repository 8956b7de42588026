import Crypto
import Foundation
import Logging
import SatchelHTTP
import SatchelOData
import SatchelRepository
import Synchronization

/// Changes through the upload ledger, and reads passed to the back-end (docs/offline-server.md, "Uploads: the
/// ledger").
extension OfflineTier {
    static let repeatabilityID = "Repeatability-Request-ID"

    /// One modifying request: forwarded once, answered again from the ledger when it comes back.
    func upload(
        _ request: OfflineTierRequest, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws
        -> OfflineTierResponse
    {
        try checkSize(request)
        let backend = try endpoint.backend(user: request.user, password: request.password)
        try await sweepLedger(endpoint)
        guard let id = request.headers[Self.repeatabilityID], !id.isEmpty else {
            // Without an id nothing tells a retry from a new request: passed on as it is.
            return rewritten(try await send(request, to: backend, endpoint: endpoint), endpoint, request)
        }
        let entry = Self.ledgerRequest(request, id: id, endpoint: endpoint)
        switch try await store.claimUpload(entry, at: clock()) {
        case .new:
            return try await forwardRecording(request, entry, backend: backend, endpoint: endpoint)
        case .known(let known):
            return try await retry(
                request, entry, known: known, backend: backend, endpoint: endpoint, version: version)
        }
    }

    /// Removes the ledger's entries finished more than `local_change_expiry` ago, at most once an hour per
    /// endpoint.
    func sweepLedger(_ endpoint: OfflineEndpoint) async throws {
        let now = clock()
        let due = endpoint.lastLedgerSweep.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= 3600 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let expiry = Double(endpoint.configuration.localChangeExpiry.components.seconds)
        let forgotten = try await store.forgetUploads(
            endpoint: endpoint.configuration.name, finishedBefore: now.addingTimeInterval(-expiry))
        if forgotten > 0 {
            logger.debug(
                "offline ledger swept",
                metadata: ["endpoint": "\(endpoint.configuration.name)", "removed": "\(forgotten)"])
        }
    }

    /// Refuses a body over ``OfflineTierLimits/maxUploadBytes``.
    func checkSize(_ request: OfflineTierRequest) throws(OfflineTierFailure) {
        guard request.body.count <= limits.maxUploadBytes else {
            throw OfflineTierFailure(
                413, code: "satchel.tooLarge",
                "the request body has \(request.body.count) bytes; the limit is \(limits.maxUploadBytes)")
        }
    }

    /// `request` as the ledger identifies it.
    static func ledgerRequest(
        _ request: OfflineTierRequest, id: String, endpoint: OfflineEndpoint
    ) -> OfflineLedgerRequest {
        OfflineLedgerRequest(
            key: OfflineLedgerKey(endpoint: endpoint.configuration.name, user: request.user, requestID: id),
            method: request.effectiveMethod, target: request.target, bodyHash: Data(SHA256.hash(data: request.body)))
    }

    /// The refusal of an id sent again with another method, target or body.
    static func mismatch(_ entry: OfflineLedgerRequest, known: OfflineLedgerEntry) -> OfflineTierFailure {
        OfflineTierFailure(
            422, code: "satchel.repeatabilityMismatch",
            "request \(entry.key.requestID) was first sent as \(known.request.method) \(known.request.target)"
                + " with another body; a repeated request must be the same")
    }

    /// A request the ledger has seen: replayed, sent again, or refused, by its state.
    private func retry(
        _ request: OfflineTierRequest, _ entry: OfflineLedgerRequest, known: OfflineLedgerEntry,
        backend: OfflineBackend, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws -> OfflineTierResponse {
        guard known.matches(entry) else { throw Self.mismatch(entry, known: known) }
        if known.state == .done, let answer = known.answer { return Self.replayed(answer) }
        let resends = known.attempts - 1
        if resends > endpoint.configuration.maxDeltaResends {
            return try await refuse(
                entry, 409, code: "satchel.tooManyResends",
                "request \(entry.key.requestID) was sent to the back-end \(resends) times without success"
                    + " (max_delta_resends = \(endpoint.configuration.maxDeltaResends))",
                inner: known.answer.map { OfflineLedgerAnswerText(status: $0.status, body: $0.body) }, version: version)
        }
        let method = entry.method
        if method == "POST", !endpoint.honoursRepeatability {
            // It may have been created (in doubt, or a back-end that stores and then fails): only its whole key in
            // the body can tell.
            let created = try await keyOfCreated(request, backend: backend, endpoint: endpoint, version: version)
            if let created,
                var found = try await existing(created, request, backend: backend, endpoint: endpoint, version: version)
            {
                found.status = 201
                let answer = OfflineLedgerAnswer(found)
                try await store.finishUpload(entry.key, state: .done, answer: answer, at: clock())
                return Self.replayed(answer)
            }
            if known.state == .sent, created == nil {
                return try await refuse(
                    entry, 409, code: "satchel.outcomeUnknown",
                    "request \(entry.key.requestID) (POST \(entry.target)) reached the back-end, but its answer was"
                        + " lost and the back-end cannot tell whether it was applied; it is not sent again",
                    inner: nil, version: version)
            }
        }
        // A 5xx answer, a back-end that recognises the id, a creation known not to exist, or a change that applied
        // twice leaves one state: sent again.
        var response = try await forwardRecording(request, entry, backend: backend, endpoint: endpoint)
        if method == "DELETE", known.state == .sent, response.status == 404 {
            response = OfflineTierResponse(status: 204)
            try await store.finishUpload(
                entry.key, state: .done, answer: OfflineLedgerAnswer(status: 204, headers: [:], body: Data()),
                at: clock())
        }
        return response
    }

    /// Records a final refusal in the ledger (a later retry gets the same) and answers it.
    private func refuse(
        _ entry: OfflineLedgerRequest, _ status: Int, code: String, _ message: String,
        inner: OfflineLedgerAnswerText?, version: ODataVersion
    ) async throws -> OfflineTierResponse {
        logger.warning(
            "offline upload refused",
            metadata: ["request": "\(entry.key)", "code": "\(code)", "target": "\(entry.target)"])
        let response = OfflineTierResponse.error(status, code: code, message, version: version, inner: inner)
        try await store.finishUpload(entry.key, state: .done, answer: OfflineLedgerAnswer(response), at: clock())
        return response
    }

    /// Forwards a claimed request and records the back-end's answer: final (2xx–4xx) as done, a 5xx as failed.
    /// A request whose answer never came stays `sent` (in doubt).
    private func forwardRecording(
        _ request: OfflineTierRequest, _ entry: OfflineLedgerRequest, backend: OfflineBackend,
        endpoint: OfflineEndpoint
    ) async throws -> OfflineTierResponse {
        let response = rewritten(try await send(request, to: backend, endpoint: endpoint), endpoint, request)
        if response.headers["Repeatability-Result"] != nil { endpoint.honoursRepeatability = true }
        try await store.finishUpload(
            entry.key, state: response.status >= 500 ? .failed : .done, answer: OfflineLedgerAnswer(response),
            at: clock())
        return response
    }

    /// A recorded answer given again, marked as a replay.
    static func replayed(_ answer: OfflineLedgerAnswer) -> OfflineTierResponse {
        var response = OfflineTierResponse(
            status: answer.status, headers: HTTPClient.Headers(answer.headers.sorted { $0.key < $1.key }),
            body: answer.body)
        response.headers.add("Repeatability-Result", "accepted")
        return response
    }

    // MARK: In-doubt creations

    /// The key predicate of the entity a POST creates, when its body holds every key property.
    private func keyOfCreated(
        _ request: OfflineTierRequest, backend: OfflineBackend, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws -> (set: String, key: String)? {
        let set = request.path.removingPercentEncoding ?? request.path
        guard !set.isEmpty, set.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
            return nil
        }
        let metadata = try await endpoint.metadata(using: backend)
        guard let type = metadata.entityType(ofSet: set) else { return nil }
        let wrapped = version == .v2 ? Data(#"{"d":"#.utf8) + request.body + Data("}".utf8) : request.body
        guard
            let entity = try? ODataPayloadReader(version: version, metadata: metadata).entity(
                from: wrapped, type: type),
            let key = try? OfflineRowCodec(keyProperties: metadata.key(of: type), version: version).key(of: entity)
        else { return nil }
        return (set, key)
    }

    /// The entity an in-doubt POST would have created, read from the back-end; nil when it does not exist.
    private func existing(
        _ created: (set: String, key: String), _ request: OfflineTierRequest, backend: OfflineBackend,
        endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws -> OfflineTierResponse? {
        var read = HTTPClient.Request(
            .get, url: backend.url(created.set + created.key, sapClient: endpoint.configuration.sapClient),
            headers: backend.service.headers(for: version), operation: "read \(created.set)\(created.key)")
        read.validatesStatus = false
        let response = try await backend.client.send(read)
        guard response.isSuccess else { return nil }
        return rewritten(response, endpoint, request)
    }

    // MARK: Forwarding

    /// Headers a client's request carries to the back-end.
    static let forwardedHeaders = [
        "Accept", "Accept-Language", "Content-Type", "If-Match", "If-None-Match", "Prefer", "OData-Version",
        "OData-MaxVersion", "DataServiceVersion", "MaxDataServiceVersion", "X-HTTP-Method", "Range",
        "Repeatability-Request-ID", "Repeatability-First-Sent", "Content-ID", "Slug",
    ]

    /// Sends `request` to the back-end with `backend`'s credentials, once.
    func send(
        _ request: OfflineTierRequest, to backend: OfflineBackend, endpoint: OfflineEndpoint
    ) async throws
        -> HTTPClient.Response
    {
        var headers = HTTPClient.Headers()
        for name in Self.forwardedHeaders {
            for value in request.headers.values(for: name) { headers.add(name, value) }
        }
        var outgoing = HTTPClient.Request(
            HTTPClient.Method(rawValue: request.method),
            url: backend.url(request.target, sapClient: endpoint.configuration.sapClient), headers: headers,
            body: request.body.isEmpty && request.method == "GET"
                ? nil : .data(request.body, contentType: request.headers["Content-Type"]),
            operation: "\(request.method) \(request.path)")
        outgoing.validatesStatus = false
        do {
            return try await backend.client.send(outgoing)
        } catch let error as HTTPTransferError {
            throw OfflineTierFailure(
                502, code: "satchel.backendUnreachable",
                "the back-end of \(endpoint.configuration.name) did not answer \(request.method) \(request.path):"
                    + " \(error.message)")
        }
    }

    /// A read that is not a defining query, passed to the back-end with the user's credentials (the service
    /// account's for `$metadata` and the service document when the user signed in without a password).
    func passThrough(_ request: OfflineTierRequest, endpoint: OfflineEndpoint) async throws -> OfflineTierResponse {
        let backend: OfflineBackend
        do {
            backend = try endpoint.backend(user: request.user, password: request.password)
        } catch {
            guard ["", "$metadata"].contains(request.path), let account = endpoint.serviceAccount else { throw error }
            backend = account
        }
        return rewritten(try await send(request, to: backend, endpoint: endpoint), endpoint, request)
    }

    /// The back-end's answer with its URLs pointing at the middle tier.
    func rewritten(
        _ response: HTTPClient.Response, _ endpoint: OfflineEndpoint, _ request: OfflineTierRequest
    ) -> OfflineTierResponse {
        let backendRoot = Self.rootText(endpoint.configuration.backendURL)
        var headers = HTTPClient.Headers()
        for name in [
            "Content-Type", "ETag", "Location", "OData-EntityId", "Content-Location", "OData-Version",
            "DataServiceVersion", "Preference-Applied", "Repeatability-Result", "Content-Range", "Accept-Ranges",
            "Content-Disposition", "Last-Modified", "Cache-Control",
        ] {
            for value in response.headers.values(for: name) {
                headers.add(
                    name, value.hasPrefix(backendRoot) ? request.root + value.dropFirst(backendRoot.count) : value)
            }
        }
        let type = (response.headers["Content-Type"] ?? "").lowercased()
        let textual = ["json", "xml", "text/"].contains { type.contains($0) }
        let body =
            textual
            ? Self.replace(in: response.body, backendRoot: backendRoot, root: request.root) : response.body
        return OfflineTierResponse(status: response.status, headers: headers, body: body)
    }

    static func rootText(_ url: URL) -> String {
        let text = url.absoluteString
        return text.hasSuffix("/") ? text : text + "/"
    }

    /// `body` with the back-end's root replaced by the middle tier's, written plainly or with JSON's `\/`.
    static func replace(in body: Data, backendRoot: String, root: String) -> Data {
        var text = String(decoding: body, as: UTF8.self)
        guard text.utf8.count == body.count else { return body }
        let escapedBackend = backendRoot.replacingOccurrences(of: "/", with: "\\/")
        let escapedRoot = root.replacingOccurrences(of: "/", with: "\\/")
        text = text.replacingOccurrences(of: backendRoot, with: root)
            .replacingOccurrences(of: escapedBackend, with: escapedRoot)
        return Data(text.utf8)
    }
}
