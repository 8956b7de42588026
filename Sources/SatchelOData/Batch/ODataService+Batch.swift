import Foundation
import SatchelHTTP
import SatchelJSON

extension ODataService {
    /// Sends a batch as one `POST …/$batch` and returns a result per request, in request order.
    ///
    /// Only a failure of the outer request throws (transport, auth, a non-2xx `$batch` status, a body that is
    /// not a batch response); a failed part has its ``ODataBatchResult/error`` and the others are kept. The
    /// CSRF token (`CSRFTokenAuth`) travels on the outer POST only.
    ///
    /// ```swift
    /// var batch = ODataBatch()
    /// let count = batch.count("StudentSet")
    /// batch.changeset { $0.delete(ODataPath("StudentSet").key("0042"), ifMatch: "*") }
    /// let response = try await service.send(batch)
    /// print(try response[count].count(), response.allSucceeded)
    /// ```
    public func send(_ batch: ODataBatch) async throws -> ODataBatchResponse {
        try await send(batch, writer: ODataBatchWriter())
    }

    /// Builds a batch in `build` and sends it; the results are in the order the requests were added.
    ///
    /// ```swift
    /// let response = try await service.batch { batch in
    ///     batch.page("People", query: ODataQuery().top(5))
    ///     batch.changeset { changes in
    ///         let created = changes.create("People", person)
    ///         changes.addLink(from: created.path, navigation: "Friends", to: ODataPath("People").key("russell"))
    ///     }
    /// }
    /// let people = try response[0].page().entities
    /// ```
    public func batch(
        format: ODataBatchFormat? = nil, continueOnError: Bool = false, _ build: (inout ODataBatch) throws -> Void
    ) async throws -> ODataBatchResponse {
        var batch = ODataBatch(format: format, continueOnError: continueOnError)
        try build(&batch)
        return try await send(batch)
    }

    func send(_ batch: ODataBatch, writer: ODataBatchWriter) async throws -> ODataBatchResponse {
        let plan = try await plan(batch)
        let request = batchRequest(plan, writer: writer)
        let response = try await send(request)
        let items: [ODataBatchReader.Item]
        do {
            items = try ODataBatchReader().read(response.body, contentType: response.headers["Content-Type"])
        } catch var error as ODataError {
            error.status = response.status
            error.method = request.method
            error.url = request.url
            throw error
        }
        // Parts answered in Atom teach ``ODataPayloadFormat/automatic`` that the service speaks it.
        for item in items {
            let parts: [Result<ODataBatchPartResponse, ODataError>] =
                switch item {
                case .single(let part): [part]
                case .changeset(let parts): parts
                }
            for case .success(let part) in parts where (200..<300).contains(part.status) {
                noteFormat(contentType: part.headers["Content-Type"])
            }
        }
        let reader = try await reader()
        let results = match(items, to: plan).enumerated().map { index, outcome in
            result(for: plan.parts[index], outcome: outcome, reader: reader)
        }
        return ODataBatchResponse(results: results, status: response.status, headers: response.headers)
    }

    /// The outer `POST $batch` request.
    func batchRequest(_ plan: ODataBatchPlan, writer: ODataBatchWriter) -> HTTPClient.Request {
        let (body, contentType) = writer.write(plan)
        var request = request(
            .post, url(path: "$batch"), version: plan.version, operation: "batch of \(plan.parts.count) requests",
            body: .data(body, contentType: contentType))
        request.headers["Accept"] = plan.format == .json ? "application/json" : "multipart/mixed"
        for field in plan.headers { request.headers[field.name] = field.value }
        if plan.version == .v4, plan.continueOnError { request.headers["Prefer"] = "odata.continue-on-error" }
        return request
    }

    // MARK: Matching responses to requests

    /// What the response said about one request.
    enum PartOutcome {
        case response(ODataBatchPartResponse)
        /// The part could not be read, or it belongs to a changeset that failed.
        case failed(ODataError)
        case missing
    }

    /// One outcome per planned part, in request order.
    func match(_ items: [ODataBatchReader.Item], to plan: ODataBatchPlan) -> [PartOutcome] {
        var outcomes = [PartOutcome](repeating: .missing, count: plan.parts.count)
        if plan.format == .json {
            let responses = items.compactMap { item -> ODataBatchPartResponse? in
                if case .single(.success(let response)) = item { return response }
                return nil
            }
            matchJSON(responses, plan: plan, into: &outcomes)
            return outcomes
        }
        for (entry, item) in zip(plan.entries, items) {
            switch (entry, item) {
            case (.single(let index), .single(let result)):
                outcomes[index] = outcome(result)
            case (.single(let index), .changeset(let results)):
                outcomes[index] =
                    results.count == 1
                    ? outcome(results[0])
                    : .failed(MultipartMixed.invalid("a changeset came back for \(plan.parts[index].operation)"))
            case (.changeset(let number, let indexes), .single(let result)):
                // SAP answers a failed changeset with one response in its place.
                if case .success(let response) = result, response.status < 400, indexes.count == 1 {
                    outcomes[indexes[0]] = .response(response)
                } else {
                    let error = changesetError(result, number: number, plan: plan, indexes: indexes)
                    for index in indexes { outcomes[index] = .failed(error) }
                }
            case (.changeset(let number, let indexes), .changeset(let results)):
                if let failure = results.first(where: { result in
                    if case .success(let response) = result { return response.status >= 400 }
                    return true
                }) {
                    let error = changesetError(failure, number: number, plan: plan, indexes: indexes)
                    for index in indexes { outcomes[index] = .failed(error) }
                    continue
                }
                let responses = results.compactMap { try? $0.get() }
                let byID = Dictionary(
                    responses.compactMap { response in response.contentID.map { ($0, response) } },
                    uniquingKeysWith: { first, _ in first })
                let matchByID = indexes.allSatisfy { byID[plan.parts[$0].reference.contentID] != nil }
                for (position, index) in indexes.enumerated() {
                    if matchByID, let response = byID[plan.parts[index].reference.contentID] {
                        outcomes[index] = .response(response)
                    } else if position < responses.count {
                        outcomes[index] = .response(responses[position])
                    } else {
                        outcomes[index] = .failed(
                            MultipartMixed.invalid("the changeset response has no part for this change"))
                    }
                }
            }
        }
        return outcomes
    }

    private func outcome(_ result: Result<ODataBatchPartResponse, ODataError>) -> PartOutcome {
        switch result {
        case .success(let response): .response(response)
        case .failure(let error): .failed(error)
        }
    }

    /// The one error of a failed changeset, shared by all its changes.
    private func changesetError(
        _ result: Result<ODataBatchPartResponse, ODataError>, number: Int, plan: ODataBatchPlan, indexes: [Int]
    ) -> ODataError {
        switch result {
        case .failure(let error): return error
        case .success(let response):
            // The failing change when the server names it by Content-ID, else the changeset as a whole.
            let failing = indexes.first { plan.parts[$0].reference.contentID == response.contentID }
            var error = partError(response, part: failing.map { plan.parts[$0] })
            if failing == nil { error.operation = "changeset \(number) (rolled back)" }
            return error
        }
    }

    private func matchJSON(
        _ responses: [ODataBatchPartResponse], plan: ODataBatchPlan, into outcomes: inout [PartOutcome]
    ) {
        let hasIDs = responses.contains { $0.contentID != nil }
        if !hasIDs {
            for (index, response) in zip(outcomes.indices, responses) { outcomes[index] = .response(response) }
            return
        }
        var byID: [String: ODataBatchPartResponse] = [:]
        for response in responses { if let id = response.contentID, byID[id] == nil { byID[id] = response } }
        for (index, part) in plan.parts.enumerated() {
            if let response = byID[part.reference.contentID] {
                outcomes[index] = .response(response)
            }
        }
        // An atomicity group that failed answers with its failing request only: the others share its error.
        for entry in plan.entries {
            guard case .changeset(_, let indexes) = entry else { continue }
            let failing = indexes.first { index in
                if case .response(let response) = outcomes[index] { return response.status >= 400 }
                return false
            }
            guard let failing, case .response(let response) = outcomes[failing] else { continue }
            let error = partError(response, part: plan.parts[failing])
            for index in indexes { outcomes[index] = .failed(error) }
        }
    }

    // MARK: Results

    func result(
        for part: ODataBatchPlan.Part, outcome: PartOutcome, reader: ODataPayloadReader
    ) -> ODataBatchResult {
        var result = ODataBatchResult(
            reference: part.reference, operation: part.operation, method: part.method, url: part.url)
        switch outcome {
        case .missing:
            result.error = ODataError(
                .notExecuted,
                "the service sent no response for this request"
                    + (reader.version == .v4 ? " (it stops after a failed request unless continueOnError is set)" : ""),
                method: part.method, url: url(absolute: part.url), operation: part.operation)
        case .failed(let error):
            result.error = error
            if let status = error.status { result.status = status }
        case .response(let response):
            result.status = response.status
            result.headers = response.headers
            result.body = response.body
            if response.status >= 400 || response.status < 200 {
                result.error = partError(response, part: part)
            } else {
                do {
                    result.content = try decode(response, for: part, reader: reader)
                } catch var error as ODataError {
                    error.status = response.status
                    error.method = part.method
                    error.url = url(absolute: part.url)
                    error.operation = part.operation
                    result.error = error
                } catch {
                    result.error = ODataError(
                        .invalidPayload, "the response could not be read: \(error)", status: response.status,
                        method: part.method, url: url(absolute: part.url), operation: part.operation,
                        underlying: error)
                }
            }
        }
        return result
    }

    /// The error a part's non-2xx response carries, read like any OData error body.
    func partError(_ response: ODataBatchPartResponse, part: ODataBatchPlan.Part?) -> ODataError {
        let partURL = part.map { self.url(absolute: $0.url) } ?? configuration.serviceURL
        let httpResponse = HTTPClient.Response(
            status: response.status, headers: response.headers, url: partURL, body: response.body)
        let request = HTTPClient.Request(
            part?.method ?? .post, url: partURL, operation: part?.operation ?? "a request in the batch")
        return ODataError(response: httpResponse, request: request)
    }

    private func decode(
        _ response: ODataBatchPartResponse, for part: ODataBatchPlan.Part, reader: ODataPayloadReader
    ) throws -> ODataBatchResult.Content {
        let hasBody = !response.body.isEmpty && response.status != 204
        switch part.decoding {
        case .none:
            return .none
        case .page(let type):
            return .page(try reader.page(from: response.body, type: type))
        case .entity(let type):
            var entity = try reader.entity(from: response.body, type: type)
            if entity.etag == nil { entity.etag = response.headers["ETag"] }
            return .entity(entity)
        case .count:
            let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let count = Int64(text) else {
                throw ODataError(.invalidPayload, "the count is not a number: \(String(text.prefix(40)))")
            }
            return .count(count)
        case .write(let type):
            guard hasBody else { return .none }
            var entity = try reader.entity(from: response.body, type: type)
            if entity.etag == nil { entity.etag = response.headers["ETag"] }
            return .entity(entity)
        case .value(let returnType):
            return .value(
                try operationResult(response.body, status: response.status, returnType: returnType, reader: reader))
        }
    }
}
