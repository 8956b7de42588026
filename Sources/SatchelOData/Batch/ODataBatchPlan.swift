import Foundation
import SatchelHTTP
import SatchelJSON

/// A batch written out for one service: each request's method, URL relative to the service root, headers and
/// JSON body, and how its answer is decoded. The writer turns it into bytes, the reader's parts are matched
/// against it.
struct ODataBatchPlan: Sendable {
    enum Entry: Sendable {
        case single(Int)
        case changeset(number: Int, [Int])
    }

    /// How a successful part's body is read.
    enum Decoding: Sendable {
        case page(CSDLEntityType?)
        case entity(CSDLEntityType?)
        case count
        /// A create or update: the entity when the server sends one back.
        case write(CSDLEntityType?)
        case none
        case value(CSDLTypeReference?)
    }

    struct Part: Sendable {
        var reference: ODataBatchReference
        var changeset: Int?
        var method: HTTPClient.Method
        /// Relative to the service root, encoded, with the SAP options (`StudentSet?$top=2&sap-client=100`).
        var url: String
        var headers: HTTPClient.Headers
        /// JSON, or XML for a V2 service that takes Atom.
        var body: ODataRequestBody?
        /// Ids of earlier parts this one refers to (`$1` in its URL or body).
        var dependsOn: [String]
        var operation: String
        var decoding: Decoding
    }

    var version: ODataVersion
    var format: ODataBatchFormat
    var continueOnError: Bool
    /// Headers of the outer request.
    var headers: HTTPClient.Headers = [:]
    var parts: [Part]
    var entries: [Entry]
}

extension ODataService {
    /// Writes `batch` out for this service's version and format.
    func plan(_ batch: ODataBatch) async throws -> ODataBatchPlan {
        let version = try await version()
        let format: ODataBatchFormat
        switch (version, batch.format) {
        case (.v2, .json):
            throw ODataError(.invalidArgument, "OData V2 has no JSON batch format; use .multipart", operation: "batch")
        case (.v2, _): format = .multipart
        case (.v4, let chosen): format = chosen ?? configuration.batchFormat
        }
        var parts: [ODataBatchPlan.Part] = []
        var entries: [ODataBatchPlan.Entry] = []
        for entry in batch.entries {
            switch entry {
            case .request(let request):
                entries.append(.single(parts.count))
                parts.append(try plan(request, version: version))
            case .changeset(let requests):
                let number = requests.first?.changeset ?? entries.count + 1
                entries.append(.changeset(number: number, Array(parts.count..<parts.count + requests.count)))
                for request in requests { parts.append(try plan(request, version: version)) }
            }
        }
        return ODataBatchPlan(
            version: version, format: format, continueOnError: batch.continueOnError, headers: batch.headers,
            parts: parts, entries: entries)
    }

    private func plan(_ request: ODataBatchRequest, version: ODataVersion) throws -> ODataBatchPlan.Part {
        let writer = payloadWriter(for: version)
        let atom = writesAtom(version)
        let accept = version == .v2 ? configuration.payloadFormat.acceptV2 : "application/json;odata.metadata=minimal"
        var part = ODataBatchPlan.Part(
            reference: request.reference, changeset: request.changeset, method: .get, url: "", headers: [:],
            body: nil, dependsOn: [], operation: "", decoding: .none)
        var references: [String] = []
        switch request.operation {
        case .read(let path, let query, let expectation):
            references.append(path.text(for: version))
            part.headers["Accept"] = accept
            switch expectation {
            case .page, .entity:
                part.url = relativeURL(path.text(for: version), query: try query.queryString(for: version))
                part.operation = "read \(path)"
                if expectation == .page {
                    part.decoding = .page(entityType(of: path))
                    if version == .v4, let size = configuration.pageSize {
                        part.headers["Prefer"] = "odata.maxpagesize=\(size)"
                    }
                } else {
                    part.decoding = .entity(entityType(of: path))
                }
            case .count:
                var countQuery = ODataQuery()
                countQuery.filter = query.filter
                countQuery.search = query.search
                countQuery.customOptions = query.customOptions
                part.url = relativeURL(
                    path.appending(raw: "$count").text(for: version), query: try countQuery.queryString(for: version))
                part.headers["Accept"] = "text/plain"
                part.operation = "count \(path)"
                part.decoding = .count
            }
        case .create(let path, let entity):
            part.method = .post
            part.url = relativeURL(path.text(for: version))
            part.headers["Accept"] = accept
            part.body = try writer.body(for: entity, type: entityType(of: path), atom: atom)
            part.operation = "create in \(path)"
            part.decoding = .write(entityType(of: path))
            references += [path.text(for: version)] + entity.bindings.values.flatMap { $0 }
        case .update(let path, let entity, let method, let etag):
            part.method = method == .replace ? .put : (version == .v2 ? .merge : .patch)
            part.url = relativeURL(path.text(for: version))
            part.headers["Accept"] = accept
            if let etag { part.headers["If-Match"] = etag }
            part.body = try writer.body(for: entity, type: entityType(of: path), atom: atom)
            part.operation = "update \(path)"
            part.decoding = .write(entityType(of: path))
            references += [path.text(for: version)] + entity.bindings.values.flatMap { $0 }
        case .delete(let path, let etag):
            part.method = .delete
            part.url = relativeURL(path.text(for: version))
            part.headers["Accept"] = accept
            if let etag { part.headers["If-Match"] = etag }
            part.operation = "delete \(path)"
            references.append(path.text(for: version))
        case .addLink(let source, let navigation, let target, let replace):
            part.method = replace ? .put : .post
            let targetText = target.text(for: version)
            // A reference (`$2`) stays as written: the service resolves it; other targets become absolute URLs.
            let targetURL = targetText.hasPrefix("$") ? targetText : url(path: targetText).absoluteString
            part.url = relativeURL(
                version == .v4
                    ? source.navigate(navigation).appending(raw: "$ref").text(for: version)
                    : source.appending(raw: "$links").navigate(navigation).text(for: version))
            part.body = writer.linkBody(to: targetURL, atom: atom)
            part.headers["Accept"] = accept
            part.operation = "link \(source)/\(navigation)"
            references += [source.text(for: version), targetText]
        case .removeLink(let source, let navigation, let target):
            part.method = .delete
            var query = ""
            if version == .v4 {
                part.url = source.navigate(navigation).appending(raw: "$ref").text(for: version)
                if let target {
                    let text = target.text(for: version)
                    query = "$id=" + ODataURLEncoding.query(text.hasPrefix("$") ? text : url(path: text).absoluteString)
                    references.append(text)
                }
            } else {
                var links = source.appending(raw: "$links").navigate(navigation)
                if let target, let key = target.segments.last, case .key(let value) = key { links = links.key(value) }
                part.url = links.text(for: version)
            }
            part.url = relativeURL(part.url, query: query)
            part.headers["Accept"] = accept
            part.operation = "unlink \(source)/\(navigation)"
            references.append(source.text(for: version))
        case .call(let name, let parameters, let path):
            let call = try operationCall(name, parameters: parameters, boundTo: path, version: version)
            part.method = call.method
            part.url = relativeURL(call.path, query: call.query)
            part.headers["Accept"] = accept
            part.body = call.body.map(ODataRequestBody.json)
            part.operation = "call \(name)"
            part.decoding = .value(call.returnType)
            if let path { references.append(path.text(for: version)) }
        }
        if let body = part.body { part.headers["Content-Type"] = body.contentType }
        for field in request.headers { part.headers[field.name] = field.value }
        part.dependsOn = Self.referencedIDs(in: references, before: request.reference.index)
        return part
    }

    /// `path?query` relative to the service root, with `sap-client` and `sap-language` added when configured
    /// (except on references).
    func relativeURL(_ path: String, query: String = "") -> String {
        // A reference (`$1`, `$1/Visits`) stands for a URL that has the options already.
        if path.hasPrefix("$"), path.dropFirst().first?.isNumber == true {
            return query.isEmpty ? path : path + "?" + query
        }
        var items: [String] = query.isEmpty ? [] : [query]
        if let client = configuration.sapClient, !path.contains("sap-client="), !query.contains("sap-client=") {
            items.append("sap-client=" + ODataURLEncoding.query(client))
        }
        if let language = configuration.sapLanguage, !path.contains("sap-language="),
            !query.contains("sap-language=")
        {
            items.append("sap-language=" + ODataURLEncoding.query(language))
        }
        return items.isEmpty ? path : path + (path.contains("?") ? "&" : "?") + items.joined(separator: "&")
    }

    /// The ids named by `$n` references at the start of `texts`, for parts before `index`, without repeats.
    static func referencedIDs(in texts: [String], before index: Int) -> [String] {
        var ids: [String] = []
        for text in texts where text.hasPrefix("$") {
            let digits = text.dropFirst().prefix { $0.isASCII && $0.isNumber }
            guard let number = Int(digits), number >= 1, number <= index else { continue }
            if !ids.contains(String(number)) { ids.append(String(number)) }
        }
        return ids
    }
}
