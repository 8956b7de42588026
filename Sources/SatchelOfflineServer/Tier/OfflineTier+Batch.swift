import Foundation
import Logging
import SatchelHTTP
import SatchelOData
import SatchelRepository

/// `$batch` through the middle tier: each top-level request and each changeset in order, every modifying request
/// through the upload ledger; a changeset of several requests (a transaction) goes to the back-end as one
/// changeset of a `$batch`, so it stays all or nothing.
extension OfflineTier {
    func batch(
        _ request: OfflineTierRequest, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws
        -> OfflineTierResponse
    {
        try checkSize(request)
        let type = MediaType(request.headers["Content-Type"] ?? "")
        guard type.type == "multipart/mixed", let boundary = type.parameter("boundary"), !boundary.isEmpty else {
            throw OfflineTierFailure(
                415, code: "satchel.unsupportedBatch",
                "a $batch to the middle tier is multipart/mixed with a boundary, not \(type.type)")
        }
        let parts: [MultipartMixed.Part]
        do {
            parts = try MultipartMixed.parse(request.body, boundary: boundary)
        } catch let error as ODataError {
            throw OfflineTierFailure(400, code: "satchel.invalidBatch", "the $batch cannot be read: \(error.message)")
        }
        var writer = OfflineBatchWriter()
        for (index, part) in parts.enumerated() {
            if let members = part.parts {
                let requests = try members.enumerated().map { number, member in
                    try subrequest(member, of: request, label: "part \(number + 1) of changeset \(index + 1)")
                }
                if requests.count == 1 {
                    let answer = await handle(endpoint: endpoint.configuration.name, requests[0].request)
                    writer.changeset([(answer, requests[0].contentID)])
                } else if !requests.isEmpty {
                    let answers = try await transaction(
                        requests, of: request, endpoint: endpoint, version: version)
                    switch answers {
                    case .applied(let responses): writer.changeset(responses)
                    case .refused(let response): writer.single(response, contentID: nil)
                    }
                }
            } else {
                let single = try subrequest(part, of: request, label: "part \(index + 1)")
                guard single.request.method == "GET" || single.request.method == "HEAD" else {
                    throw OfflineTierFailure(
                        400, code: "satchel.invalidBatch",
                        "part \(index + 1) of the $batch changes data outside a changeset")
                }
                writer.single(await handle(endpoint: endpoint.configuration.name, single.request), contentID: nil)
            }
        }
        return writer.response(version: version)
    }

    /// A request inside the `$batch`, addressed to the same endpoint, with the caller's identity.
    private func subrequest(
        _ part: MultipartMixed.Part, of batch: OfflineTierRequest, label: String
    ) throws -> (request: OfflineTierRequest, contentID: String?) {
        let parsed: ODataBatchPartRequest
        do {
            parsed = try ODataBatchReader.parseHTTPRequest(part.body, label: label)
        } catch let error as ODataError {
            throw OfflineTierFailure(400, code: "satchel.invalidBatch", error.message)
        }
        var target = parsed.target
        let rootPath = URL(string: batch.root)?.path ?? ""
        if target.hasPrefix(batch.root) {
            target = String(target.dropFirst(batch.root.count))
        } else if target.hasPrefix("/") {
            let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
            guard target.hasPrefix(prefix) else {
                throw OfflineTierFailure(
                    400, code: "satchel.invalidBatch", "\(label) addresses \(target), outside this endpoint")
            }
            target = String(target.dropFirst(prefix.count))
        } else if target.contains("://") {
            throw OfflineTierFailure(
                400, code: "satchel.invalidBatch", "\(label) addresses \(target), outside this endpoint")
        }
        if target.hasPrefix("$batch") {
            throw OfflineTierFailure(400, code: "satchel.invalidBatch", "\(label) is a $batch inside a $batch")
        }
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers = parsed.headers
        if headers["Repeatability-Request-ID"] == nil, let id = part.headers["Repeatability-Request-ID"] {
            headers.add("Repeatability-Request-ID", id)
        }
        let request = OfflineTierRequest(
            method: parsed.method, path: String(pieces[0]), query: pieces.count > 1 ? String(pieces[1]) : "",
            headers: headers, body: parsed.body, user: batch.user, password: batch.password, root: batch.root)
        return (request, part.headers["Content-ID"] ?? parsed.headers["Content-ID"])
    }

    enum TransactionAnswer {
        case applied([(OfflineTierResponse, String?)])
        case refused(OfflineTierResponse)
    }

    /// A changeset of several requests: all replayed from the ledger when all were applied, else sent to the
    /// back-end together in one changeset.
    private func transaction(
        _ requests: [(request: OfflineTierRequest, contentID: String?)], of batch: OfflineTierRequest,
        endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws -> TransactionAnswer {
        let backend = try endpoint.backend(user: batch.user, password: batch.password)
        try await sweepLedger(endpoint)
        // The ledger entry of each request, in the changeset's order (nil: a request without an id).
        let ledgered: [OfflineLedgerRequest?] = requests.map { request, _ in
            request.headers[Self.repeatabilityID].flatMap { $0.isEmpty ? nil : $0 }.map {
                Self.ledgerRequest(request, id: $0, endpoint: endpoint)
            }
        }
        let entries = ledgered.compactMap { $0 }
        // A repeated id with another body is refused before anything is claimed (a claim would leave the other
        // requests in doubt).
        for entry in entries {
            if let existing = try await store.uploadEntry(entry.key), !existing.matches(entry) {
                throw Self.mismatch(entry, known: existing)
            }
        }
        var known: [OfflineLedgerEntry] = []
        for entry in entries {
            if case .known(let entryKnown) = try await store.claimUpload(entry, at: clock()) {
                known.append(entryKnown)
            }
        }
        // Every request applied before: the same answers again.
        if entries.count == requests.count, known.count == entries.count,
            known.allSatisfy({ $0.state == .done && $0.answer != nil })
        {
            if Set(known.map { $0.answer! }).count == 1, let answer = known.first?.answer, answer.status >= 400 {
                return .refused(Self.replayed(answer))
            }
            return .applied(zip(known, requests).map { (Self.replayed($0.answer!), $1.contentID) })
        }
        let resends = known.map { $0.attempts - 1 }.max() ?? 0
        if resends > endpoint.configuration.maxDeltaResends {
            return .refused(
                try await refuseAll(
                    entries, 409, code: "satchel.tooManyResends",
                    "the transaction was sent to the back-end \(resends) times without success"
                        + " (max_delta_resends = \(endpoint.configuration.maxDeltaResends))", version: version))
        }
        let inDoubt = known.contains { $0.state == .sent || $0.state == .done }
        if inDoubt, !endpoint.honoursRepeatability, requests.contains(where: { $0.request.effectiveMethod == "POST" }) {
            return .refused(
                try await refuseAll(
                    entries, 409, code: "satchel.outcomeUnknown",
                    "the transaction reached the back-end, but its answer was lost and the back-end cannot tell"
                        + " whether it was applied; it is not sent again", version: version))
        }
        // One changeset in a $batch of its own.
        let outer = "satchel_batch_\(UUID().uuidString)"
        let inner = "satchel_changeset_\(UUID().uuidString)"
        var body = Data()
        func line(_ text: String = "") { body.append(contentsOf: Array((text + "\r\n").utf8)) }
        line("--\(outer)")
        line("Content-Type: multipart/mixed; boundary=\(inner)")
        line()
        for (index, (request, contentID)) in requests.enumerated() {
            line("--\(inner)")
            line("Content-Type: application/http")
            line("Content-Transfer-Encoding: binary")
            line("Content-ID: \(contentID ?? String(index + 1))")
            line()
            line("\(request.method) \(request.target) HTTP/1.1")
            for name in Self.forwardedHeaders where name != "Content-ID" {
                for value in request.headers.values(for: name) { line("\(name): \(value)") }
            }
            if !request.body.isEmpty { line("Content-Length: \(request.body.count)") }
            line()
            body.append(request.body)
            line()
        }
        line("--\(inner)--")
        line("--\(outer)--")
        var headers = backend.service.headers(for: version)
        headers.add("Content-Type", "multipart/mixed; boundary=\(outer)")
        if let id = batch.headers[Self.repeatabilityID] {
            headers.add("Repeatability-Request-ID", id)
            if let first = batch.headers["Repeatability-First-Sent"] { headers.add("Repeatability-First-Sent", first) }
        }
        let forward = OfflineTierRequest(
            method: "POST", path: "$batch", headers: headers, body: body, user: batch.user, password: batch.password,
            root: batch.root)
        let response = try await send(forward, to: backend, endpoint: endpoint)
        if response.headers["Repeatability-Result"] != nil { endpoint.honoursRepeatability = true }
        guard response.isSuccess else {
            let answer = rewritten(response, endpoint, batch)
            try await finishAll(entries, answer, state: response.status >= 500 ? .failed : .done)
            return .refused(answer)
        }
        let items: [ODataBatchReader.Item]
        do {
            items = try ODataBatchReader().read(response.body, contentType: response.headers["Content-Type"])
        } catch {
            // Sent, but its answer cannot be read: in doubt, as if it had been lost.
            throw OfflineTierFailure(
                502, code: "satchel.backendAnswer", "the back-end's answer to a transaction cannot be read: \(error)")
        }
        switch items.first {
        case .changeset(let results)?:
            var answers: [(OfflineTierResponse, String?)] = []
            for (index, result) in results.enumerated() {
                let answer = rewritten(try result.get(), backend: backend, endpoint: endpoint, batch)
                if index < ledgered.count, let entry = ledgered[index] {
                    try await store.finishUpload(
                        entry.key, state: .done, answer: OfflineLedgerAnswer(answer), at: clock())
                }
                answers.append((answer, index < requests.count ? requests[index].contentID : nil))
            }
            return .applied(answers)
        case .single(let result)?:
            let answer = rewritten(try result.get(), backend: backend, endpoint: endpoint, batch)
            try await finishAll(entries, answer, state: answer.status >= 500 ? .failed : .done)
            return .refused(answer)
        case nil:
            throw OfflineTierFailure(
                502, code: "satchel.backendAnswer", "the back-end answered a transaction with no part")
        }
    }

    private func finishAll(
        _ entries: [OfflineLedgerRequest], _ answer: OfflineTierResponse, state: OfflineLedgerEntry.State
    ) async throws {
        let stored = OfflineLedgerAnswer(answer)
        for entry in entries { try await store.finishUpload(entry.key, state: state, answer: stored, at: clock()) }
    }

    private func refuseAll(
        _ entries: [OfflineLedgerRequest], _ status: Int, code: String, _ message: String, version: ODataVersion
    ) async throws -> OfflineTierResponse {
        logger.warning("offline transaction refused", metadata: ["code": "\(code)", "requests": "\(entries.count)"])
        let response = OfflineTierResponse.error(status, code: code, message, version: version)
        try await finishAll(entries, response, state: .done)
        return response
    }

    /// A part of the back-end's `$batch` answer with its URLs pointing at the middle tier.
    private func rewritten(
        _ part: ODataBatchPartResponse, backend: OfflineBackend, endpoint: OfflineEndpoint,
        _ request: OfflineTierRequest
    ) -> OfflineTierResponse {
        rewritten(
            HTTPClient.Response(status: part.status, headers: part.headers, url: backend.serviceURL, body: part.body),
            endpoint, request)
    }
}

/// Writes a `$batch` response: single responses and changesets, each an `application/http` part.
struct OfflineBatchWriter {
    let boundary = "satchel_batchresponse_\(UUID().uuidString)"
    private var body = Data()

    private mutating func line(_ text: String = "") { body.append(contentsOf: Array((text + "\r\n").utf8)) }

    private mutating func http(_ response: OfflineTierResponse, contentID: String?) {
        line("Content-Type: application/http")
        line("Content-Transfer-Encoding: binary")
        if let contentID { line("Content-ID: \(contentID)") }
        line()
        line("HTTP/1.1 \(response.status) \(Self.reason(response.status))")
        for field in response.headers where field.name.lowercased() != "content-length" {
            line("\(field.name): \(field.value)")
        }
        line("Content-Length: \(response.body.count)")
        line()
        body.append(response.body)
        line()
    }

    mutating func single(_ response: OfflineTierResponse, contentID: String?) {
        line("--\(boundary)")
        http(response, contentID: contentID)
    }

    mutating func changeset(_ responses: [(OfflineTierResponse, String?)]) {
        let inner = "satchel_changesetresponse_\(UUID().uuidString)"
        line("--\(boundary)")
        line("Content-Type: multipart/mixed; boundary=\(inner)")
        line()
        for (response, contentID) in responses {
            line("--\(inner)")
            http(response, contentID: contentID)
        }
        line("--\(inner)--")
    }

    mutating func response(version: ODataVersion) -> OfflineTierResponse {
        line("--\(boundary)--")
        var headers = HTTPClient.Headers()
        headers.add("Content-Type", "multipart/mixed; boundary=\(boundary)")
        headers.add(version == .v2 ? "DataServiceVersion" : "OData-Version", version == .v2 ? "2.0" : "4.0")
        return OfflineTierResponse(status: version == .v2 ? 202 : 200, headers: headers, body: body)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        default: "Status"
        }
    }
}
