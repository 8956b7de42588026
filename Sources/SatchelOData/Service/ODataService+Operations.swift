import Foundation
import SatchelHTTP
import SatchelJSON

extension ODataService {
    /// Calls a V2 function import, or a V4 function import or action import, by name.
    ///
    /// V2 sends the parameters as query options with the import's HTTP method (from `$metadata`, else `GET`);
    /// V4 functions put them in the path (`GetNearestAirport(lat=1.5,lon=2.0)`), V4 actions POST them as JSON.
    /// The result is typed by the operation's return type when the metadata is known.
    ///
    /// ```swift
    /// let approved = try await service.call("ApproveStudent", parameters: ["StudentId": "0042"])
    /// let count = try await service.call("CountByState", parameters: ["StateCode": "MS"]).intValue
    /// ```
    ///
    /// `kind` and `httpMethod` say how to call it when the service's `$metadata` is not loaded (generated proxies pass
    /// what the generator read): a V2 function import with `httpMethod: "POST"` goes as POST, a V4 action as an
    /// action. Loaded metadata wins.
    @discardableResult
    public func call(
        _ name: String, parameters: KeyValuePairs<String, ODataValue> = [:], boundTo path: ODataPath? = nil,
        kind: CSDLOperation.Kind? = nil, httpMethod: String? = nil
    ) async throws -> ODataValue {
        try await call(
            name, parameterList: parameters.map { ($0.key, $0.value) }, boundTo: path, kind: kind,
            httpMethod: httpMethod)
    }

    /// `call(_:parameters:boundTo:kind:httpMethod:)` with parameters built at run time (a command line, a form).
    @discardableResult
    public func call(
        _ name: String, parameterList parameters: [(String, ODataValue)], boundTo path: ODataPath? = nil,
        kind: CSDLOperation.Kind? = nil, httpMethod: String? = nil
    ) async throws -> ODataValue {
        let version = try await version()
        let call = try operationCall(
            name, parameters: parameters, boundTo: path, version: version, kind: kind, httpMethod: httpMethod)
        let request = self.request(
            call.method, url(path: call.path, query: call.query), version: version, operation: "call \(name)",
            body: call.body.map { HTTPClient.Body.json($0) })
        let response = try await send(request)
        let reader = try await reader()
        if let returnType = call.returnType, returnType.isCollection, !response.body.isEmpty, response.status != 204,
            let entityType = cachedMetadata?.entityType(named: returnType.name)
        {
            // A server may page an operation's entities like any collection: follow its next links.
            var page = try reader.page(from: response.body, type: entityType)
            var entities = page.entities
            var pages = 1
            while let next = page.nextLink {
                try Task.checkCancellation()
                page = try await self.page(at: url(absolute: next), type: entityType, operation: "call \(name)")
                entities += page.entities
                pages += 1
                if pages > 100_000 {
                    throw ODataError(.invalidPayload, "the server keeps sending next links", url: request.url)
                }
            }
            return .entities(entities)
        }
        return try operationResult(response.body, status: response.status, returnType: call.returnType, reader: reader)
    }

    /// How an operation is called: method, path and query (encoded, relative to the service root), JSON body.
    struct OperationCall {
        var method: HTTPClient.Method
        var path: String
        var query: String
        var body: JSONValue?
        var returnType: CSDLTypeReference?
    }

    /// The request parts of a call (shared by `call(_:parameters:boundTo:kind:httpMethod:)` and batches).
    func operationCall(
        _ name: String, parameters: [(String, ODataValue)], boundTo path: ODataPath?, version: ODataVersion,
        kind hintedKind: CSDLOperation.Kind? = nil, httpMethod hintedMethod: String? = nil
    ) throws -> OperationCall {
        let metadata = cachedMetadata
        var kind: CSDLOperation.Kind = hintedKind ?? .function
        var returnType: CSDLTypeReference?
        var v2Method: HTTPClient.Method = hintedMethod.map { HTTPClient.Method(rawValue: $0.uppercased()) } ?? .get
        if let operationImport = metadata?.operationImport(named: name) {
            kind = operationImport.kind
            returnType = operationImport.returnType
            if let method = operationImport.httpMethod { v2Method = HTTPClient.Method(rawValue: method) }
            if let operation = operationImport.operation.flatMap({ metadata?.operations(named: $0).first }) {
                returnType = operation.returnType
            }
        } else if let operation = metadata?.operations(named: name).first {
            kind = operation.kind
            returnType = operation.returnType
        }
        let target = path.map { $0.navigate(name) } ?? ODataPath(name)
        let writer = payloadWriter(for: version)
        switch (version, kind) {
        case (.v2, _):
            let query = parameters.map { "\($0.0)=" + ODataURLEncoding.query(ODataLiteral($0.1).text(for: .v2)) }
            return OperationCall(
                method: v2Method, path: target.text(for: version), query: query.joined(separator: "&"),
                returnType: returnType)
        case (.v4, .function):
            let arguments = parameters.map { "\($0.0)=\(ODataLiteral($0.1).text(for: .v4))" }
            let path =
                target.text(for: version) + ODataURLEncoding.pathSegment("(" + arguments.joined(separator: ",") + ")")
            return OperationCall(method: .get, path: path, query: "", returnType: returnType)
        case (.v4, .action):
            var body = ODataProperties()
            for (key, value) in parameters { body[key] = value }
            return OperationCall(
                method: .post, path: target.text(for: version), query: "",
                body: try writer.json(forParameters: body), returnType: returnType)
        }
    }

    /// An operation's response body read as its return type (typed when the metadata is known).
    func operationResult(
        _ body: Data, status: Int, returnType: CSDLTypeReference?, reader: ODataPayloadReader
    ) throws -> ODataValue {
        if body.isEmpty || status == 204 { return .null }
        if let returnType, let entityType = cachedMetadata?.entityType(named: returnType.name) {
            if returnType.isCollection {
                return .entities(try reader.page(from: body, type: entityType).entities)
            }
            return .entity(try reader.entity(from: body, type: entityType))
        }
        return try reader.value(from: body, type: returnType)
    }

    // MARK: Delta

    /// Starts change tracking on a collection: reads every page (V4 with `Prefer: odata.track-changes`) and
    /// returns the entities with the delta link to ask for changes later. SAP Gateway V2 services that support
    /// delta queries answer with a `__delta` link carrying `!deltatoken`.
    public func trackChanges(_ path: ODataPath, query: ODataQuery = ODataQuery()) async throws -> ODataDelta {
        let version = try await version()
        let url = url(path: path.text(for: version), query: try query.queryString(for: version))
        return try await collectDelta(from: url, type: entityType(of: path), operation: "track \(path)")
    }

    /// The changes since a delta link: changed and added entities, and removed ones (`@removed`,
    /// `$deletedEntity`, SAP `__deleted`), with the next delta link.
    public func changes(since deltaLink: String, entitySet: String? = nil) async throws -> ODataDelta {
        try await collectDelta(
            from: url(absolute: deltaLink), type: entitySet.flatMap { cachedMetadata?.entityType(ofSet: $0) },
            operation: "read changes")
    }

    private func collectDelta(from url: URL, type: CSDLEntityType?, operation: String) async throws -> ODataDelta {
        var delta = ODataDelta()
        var next: URL? = url
        var pages = 0
        while let current = next {
            try Task.checkCancellation()
            let page = try await self.page(
                at: current, type: type, operation: operation, extraHeaders: ["Prefer": "odata.track-changes"])
            pages += 1
            for entity in page.entities {
                if entity.isRemoved { delta.removed.append(entity) } else { delta.changed.append(entity) }
            }
            if let link = page.deltaLink { delta.deltaLink = link }
            next = page.nextLink.map { self.url(absolute: $0) }
            if pages > 100_000 { throw ODataError(.invalidPayload, "the server keeps sending next links", url: url) }
        }
        return delta
    }
}

/// The result of a delta request: what changed, what was removed, and where to ask next time.
public struct ODataDelta: Sendable, Hashable {
    /// Entities added or changed since the delta link's token, in the order received.
    public var changed: [ODataEntity] = []
    /// Removed entities: their id (and key properties, when sent) and ``ODataEntity/removed``.
    public var removed: [ODataEntity] = []
    /// The link for the next call to ``ODataService/changes(since:entitySet:)``; `nil` if the service does
    /// not track changes for this collection.
    public var deltaLink: String?
    /// An empty delta: no changes, no delta link.
    public init() {}
}
