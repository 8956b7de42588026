import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelCMISQL
import SatchelJSON
import SatchelRepository
import NIOFoundationEssentialsCompat

/// Answers the Nuxeo API's requests: the dispatcher from a path and method to what it asks for, document
/// entities in and out, and errors as Nuxeo's `exception` entity. Searches (`NuxeoHandler+Search.swift`),
/// rendering (`NuxeoHandler+Rendering.swift`), Automation, uploads, locks and the trash have rooms of their own.
struct NuxeoHandler: Sendable {
    let environment: BindingEnvironment
    let defaultRepository: String
    /// Batch uploads in progress.
    let uploads: NuxeoUploads

    init(environment: BindingEnvironment, defaultRepository: String) {
        self.environment = environment
        self.defaultRepository = defaultRepository
        uploads = NuxeoUploads(
            maximumBytes: environment.limits.maxContentBytes, store: environment.documentMarks.store,
            blobs: environment.blobs)
    }

    /// The service of `repository` (a mount's, or the local engine's).
    func service(_ repository: String) -> any CMISService { environment.repositories.service(for: repository) }

    /// `automation/login`: who the caller is.
    func login(context: ServerRequestContext) -> Response {
        guard let caller = context.caller else { return Self.exception(401, "authentication required") }
        return Self.json(
            [
                "entity-type": "login", "id": .string(caller.user), "username": .string(caller.user),
                "isAdministrator": .bool(caller.isAdministrator),
                "groups": .array(caller.isAdministrator ? ["administrators", "members"] : ["members"]),
            ])
    }

    /// Changes need what the CMIS bindings need: the session's XSRF token where the policy asks for it (a cookie
    /// session, MyDocuments, the strict policy), so another site cannot make a signed-in browser change anything.
    /// `repository` is the one the request acts on, as ``NuxeoAddress`` decided it: the check and the action never
    /// read the path apart.
    func xsrfRefusal(_ request: Request, context: ServerRequestContext, repository: String) -> Response? {
        guard request.method != .get, request.method != .head else { return nil }
        let header = HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] }
        do throws(CMISError) {
            try environment.checkXSRF(context: context, repositoryId: repository, presented: header)
            return nil
        } catch {
            return Self.exception(403, error.message)
        }
    }

    /// `/nuxeo/site/automation[/{operation}]`: Automation on the shared repository.
    func siteAutomation(_ request: Request, context: ServerRequestContext) async -> Response {
        guard let caller = context.caller else { return Self.exception(401, "authentication required") }
        let segments: [String]
        do {
            segments = try NuxeoAddress.segments(of: request.uri.path, below: NuxeoRoutes.siteAutomation)
        } catch {
            return Self.exception(400, error.message)
        }
        if let refusal = xsrfRefusal(request, context: context, repository: defaultRepository) { return refusal }
        if segments == ["login"] { return login(context: context) }
        do {
            return try await automation(
                segments, request: request, context: context, repository: defaultRepository, caller: caller)
        } catch {
            return Self.failure(error)
        }
    }

    /// Documents: GET (with `@children` or `@blob/{xpath}`), POST (a child created in the document), PUT (its
    /// properties), DELETE.
    func handle(_ request: Request, context: ServerRequestContext) async -> Response {
        guard let caller = context.caller else { return Self.exception(401, "authentication required") }
        let address: NuxeoAddress
        do {
            address = try NuxeoAddress(path: request.uri.path, defaultRepository: defaultRepository)
        } catch {
            return Self.exception(400, error.message)
        }
        if let refusal = xsrfRefusal(request, context: context, repository: address.repository) { return refusal }
        let repository = address.repository
        let segments = address.segments
        // Adapters (`@children`) end the document's part of the path.
        let adapterIndex = segments.firstIndex { $0.hasPrefix("@") }
        let adapters = adapterIndex.map { Array(segments[$0...]) } ?? []
        let resource = adapterIndex.map { Array(segments[..<$0]) } ?? segments
        // Form-decoded as a servlet does (`+` is a space; `%2B` a plus), which Hummingbird's parameters do not.
        var query: [String: String] = [:]
        do {
            for (name, value) in try FormDecoding.decode(Substring(request.uri.query ?? ""), maxFields: 64) {
                query[name] = value
            }
        } catch {
            return Self.exception(400, error.message)
        }
        do {
            if resource.first == "upload" {
                return try await upload(
                    Array(resource.dropFirst()), request: request, context: context, repository: repository,
                    caller: caller)
            }
            if resource.first == "automation" {
                return try await automation(
                    Array(resource.dropFirst()), request: request, context: context, repository: repository,
                    caller: caller)
            }
            if request.method == .get, resource == ["me"] || (resource.count == 2 && resource[0] == "user") {
                return Self.json(try user(resource.count == 2 ? resource[1] : nil, caller: caller))
            }
            if request.method == .get,
                resource == ["query", "NXQL"] || resource == ["search", "lang", "NXQL", "execute"]
            {
                return try await search(repository: repository, query: query, caller: caller)
            }
            guard let kind = resource.first else { throw CMISError(.objectNotFound, "no resource named") }
            let object: CMISObject
            let documentContext = OperationContext(includePathSegment: true)
            switch kind {
            case "path":
                let path = "/" + resource.dropFirst().joined(separator: "/")
                object = try await service(repository).object(
                    repositoryId: repository, path: path, context: documentContext, caller: caller)
            case "id" where resource.count == 2:
                object = try await self.object(uid: resource[1], repository: repository, caller: caller)
            default:
                throw CMISError(.objectNotFound, "no such resource: \(resource.joined(separator: "/"))")
            }
            let placement = try await self.placement(of: object, repository: repository, caller: caller)
            let path = placement.path
            switch (request.method, adapters.first) {
            case (.get, nil):
                var document = try await render(object, placedAt: placement, repository: repository, caller: caller)
                // Enrichers asked for: `acls`, `permissions`.
                let enrichers = Set(
                    [
                        request.headers[HTTPField.Name("enrichers-document")!],
                        request.headers[HTTPField.Name("X-NXenrichers.document")!],
                    ]
                    .compactMap { $0 }.joined(separator: ",").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) })
                var parameters = JSONObject()
                if enrichers.contains("acls"), let id = object.id {
                    parameters.append(
                        key: "acls", value: try await acls(of: id, repository: repository, caller: caller))
                }
                if enrichers.contains("permissions") {
                    parameters.append(
                        key: "permissions",
                        value: try await permissionNames(of: object, repository: repository, caller: caller))
                }
                if !parameters.isEmpty, case .object(var members) = document {
                    members.append(key: "contextParameters", value: .object(parameters))
                    document = .object(members)
                }
                return Self.json(document)
            case (.get, "@acl"):
                guard let id = object.id else { throw CMISError(.objectNotFound, "the document has no id") }
                return Self.json(try await aclEntity(of: id, repository: repository, caller: caller))
            case (.get, "@children"):
                return try await children(
                    of: object, path: path, repository: repository, query: query, caller: caller)
            case (.get, "@blob"):
                // `@blob/file:content`: the document's content stream.
                // `blobholder:0` is what a document's main blob is called too.
                let xpath = adapters.dropFirst().joined(separator: "/")
                guard ["file:content", "blobholder:0"].contains(xpath), let id = object.id else {
                    throw CMISError(.objectNotFound, "only file:content holds a blob here")
                }
                let content = try await service(repository).contentStream(
                    repositoryId: repository, objectId: id, streamId: nil, caller: caller)
                return try await ContentResponse(content: content).response(to: request, context: context)
            case (.post, nil):
                return try await create(
                    in: object, path: path, repository: repository, request: request, caller: caller)
            case (.put, nil):
                return try await update(
                    object, path: path, repository: repository, request: request,
                    versioning: request.headers[HTTPField.Name("X-Versioning-Option")!], caller: caller)
            case (.delete, nil):
                try await deleteDocument(object, repository: repository, caller: caller)
                return Response(status: .noContent)
            case (_, let adapter):
                throw CMISError(
                    .notSupported, "\(request.method) \(adapter.map { "with \($0) " } ?? "")is not served here")
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// A document entity from a request's body (at most 1 MiB).
    func body(_ request: Request) async throws -> JSONValue {
        // JSON only: a form another site posts (text/plain, urlencoded; none of them preflighted) is not a document
        // entity, whatever its parameters say.
        guard let type = request.headers[.contentType], NuxeoAddress.isJSONMediaType(type) else {
            throw CMISError(.invalidArgument, "the body must be JSON (Content-Type application/json)")
        }
        let buffer = try await request.body.collect(upTo: min(environment.limits.maxMetadataBytes, 1 << 20))
        do {
            return try JSONValue(parsing: Data(buffer: buffer))
        } catch {
            throw CMISError(.invalidArgument, "the body is not a JSON document entity: \(error)")
        }
    }

    /// POST on a folder: the document entity of a new child (`type`: one of `DocumentTypes`' Nuxeo types, File
    /// when absent; `name` its path segment, `dc:title` when there is no name; `dc:title` its title).
    private func create(
        in parent: CMISObject, path: String, repository: String, request: Request, caller: CallerContext
    ) async throws -> Response {
        let entity = try await body(request)
        let title = entity["properties"]?["dc:title"]?.stringValue
        let name = entity["name"]?.stringValue ?? title ?? ""
        let created = try await createChild(
            in: parent, type: entity["type"]?.stringValue ?? "File", name: name, title: title,
            description: entity["properties"]?["dc:description"]?.stringValue, repository: repository, caller: caller)
        let base = path == "/" ? "" : path
        return Self.json(
            try await render(created, placedAt: (base + "/" + name, parent.id), repository: repository, caller: caller),
            status: 201)
    }

    /// PUT on a document: its properties (`dc:title`, `dc:description`), guarded by `changeToken` when the entity
    /// carries one.
    private func update(
        _ object: CMISObject, path: String, repository: String, request: Request, versioning: String?,
        caller: CallerContext
    ) async throws -> Response {
        if try Self.versioningOption(versioning) != nil {
            try await checkVersionable(object, repository: repository, caller: caller)
        }
        let entity = try await body(request)
        var updated = try await updateDocument(
            object, title: entity["properties"]?["dc:title"]?.stringValue,
            description: entity["properties"]?["dc:description"], changeToken: entity["changeToken"]?.stringValue,
            repository: repository, caller: caller)
        updated = try await version(updated, option: versioning, repository: repository, caller: caller)
        return Self.json(try await render(updated, repository: repository, caller: caller))
    }

    /// `@children`: a page of the folder's children (`currentPageIndex` from 0, `pageSize`, default 50).
    private func children(
        of folder: CMISObject, path: String, repository: String, query: [String: String], caller: CallerContext
    ) async throws -> Response {
        guard folder.baseType == .folder, let id = folder.id else {
            throw CMISError(.invalidArgument, "\(path) is not a folder: it has no children")
        }
        let (pageSize, pageIndex) = Self.paging(query)
        let list = try await liveChildren(
            of: id, skip: pageIndex * pageSize, max: pageSize, repository: repository, caller: caller)
        let base = path == "/" ? "" : path
        let entries = try await render(
            list.children.map(\.object),
            placedAt: list.children.map { child -> (path: String, parentID: String?)? in
                (base + "/" + (child.pathSegment ?? child.object.name ?? ""), id)
            },
            repository: repository, caller: caller)
        return Self.json(Self.page(entries, index: pageIndex, size: pageSize, more: list.more, total: list.total))
    }

    static func json(_ value: JSONValue, status: Int = 200) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
    }

    /// An error as Nuxeo's exception entity: the repository's with its status, an HTTP error (a body over the limit:
    /// 413) with its own, anything else as 500 without internals.
    static func failure(_ error: any Error) -> Response {
        if let error = error as? CMISError { return exception(Int(error.httpStatus.code), error.message) }
        if let error = error as? any HTTPResponseError { return exception(Int(error.status.code), "\(error.status)") }
        return exception(500, "the request could not be completed")
    }

    /// Nuxeo's error entity.
    static func exception(_ status: Int, _ message: String) -> Response {
        json(
            ["entity-type": "exception", "status": .number(JSONNumber(status)), "message": .string(message)],
            status: status)
    }
}
