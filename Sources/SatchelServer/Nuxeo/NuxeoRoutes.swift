import Foundation
import HTTPTypes
public import Hummingbird
import SatchelCMISCore
import SatchelCMISQL
import SatchelJSON
import SatchelRepository
import NIOFoundationEssentialsCompat

/// The Nuxeo REST API over the repository `satchel serve` serves through CMIS (docs/nuxeo.md): the same users,
/// objects and permissions. Mounted at `/nuxeo/api/v1/`: documents by path and id (with `repo/{name}/`; `default`
/// is the shared repository), `@children` with Nuxeo's paging, `automation/login`, and errors as Nuxeo's
/// `exception` entity.
public struct NuxeoRoutes: ServerBindingRoutes {
    public static let apiRoot = "/nuxeo/api/v1"
    /// The API's older home, which Nuxeo's clients still use for some calls (`site/api/v1/me`).
    public static let siteAPIRoot = "/nuxeo/site/api/v1"
    public static let siteAutomation = "/nuxeo/site/automation"
    /// The Nuxeo Platform version whose REST API this follows (LTS 2023), as `json/cmis` reports it.
    public static let apiLevel = "2023.0"
    /// The CMIS repository Nuxeo's `default` names.
    public var defaultRepository: String

    public init(defaultRepository: String = "shared") {
        self.defaultRepository = defaultRepository
    }

    public func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment) {
        let handler = NuxeoHandler(environment: environment, defaultRepository: defaultRepository)
        let all = RouterPath("\(Self.apiRoot)/**")
        router.get(all) { request, context in await handler.handle(request, context: context) }
        router.post(all) { request, context in await handler.handle(request, context: context) }
        router.put(all) { request, context in await handler.handle(request, context: context) }
        router.delete(all) { request, context in await handler.handle(request, context: context) }
        router.get(RouterPath("\(Self.siteAPIRoot)/**")) { request, context in
            await handler.handle(request, context: context)
        }
        router.get(RouterPath("/nuxeo/json/cmis")) { request, context in
            await handler.serverInfo(request, context: context)
        }
        for path in ["\(Self.apiRoot)/automation/login", "/nuxeo/site/automation/login"] {
            router.post(RouterPath(path)) { _, context in handler.login(context: context) }
        }
        // The login route makes `automation` a path of its own: the registry and the operations are routed under it
        // explicitly.
        router.get(RouterPath("\(Self.apiRoot)/automation")) { request, context in
            await handler.handle(request, context: context)
        }
        router.post(RouterPath("\(Self.apiRoot)/automation/**")) { request, context in
            await handler.handle(request, context: context)
        }
        // Automation's older home, which Nuxeo's clients still use.
        router.get(RouterPath(Self.siteAutomation)) { request, context in
            await handler.siteAutomation(request, context: context)
        }
        router.post(RouterPath("\(Self.siteAutomation)/**")) { request, context in
            await handler.siteAutomation(request, context: context)
        }
    }
}

struct NuxeoHandler: Sendable {
    let environment: BindingEnvironment
    let defaultRepository: String
    /// Batch uploads in progress.
    let uploads: NuxeoUploads

    init(environment: BindingEnvironment, defaultRepository: String) {
        self.environment = environment
        self.defaultRepository = defaultRepository
        uploads = NuxeoUploads(maximumBytes: environment.limits.maxContentBytes)
    }

    var service: any CMISService { environment.service }

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
                object = try await service.object(
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
                let content = try await service.contentStream(
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

    /// An NXQL search (`query/NXQL?query=…`, `search/lang/NXQL/execute?query=…`) run by the repository's query
    /// engine, paged as Nuxeo pages (`pageSize`, `currentPageIndex`; `sortBy`, `sortOrder`).
    func search(repository: String, query: [String: String], caller: CallerContext) async throws -> Response {
        guard let nxql = query["query"], !nxql.isEmpty else {
            throw CMISError(.invalidArgument, "an NXQL search needs query=")
        }
        var translation = try NXQLTranslator.translate(nxql)
        for (index, path) in translation.pathsToResolve.enumerated() {
            let folder = try await service.object(
                repositoryId: repository, path: path, context: OperationContext(), caller: caller)
            translation.resolve(path: index, to: folder.id ?? "")
        }
        let (pageSize, pageIndex) = Self.paging(query)
        if translation.order.isEmpty, let sortBy = query["sortBy"], let mapped = NXQLTranslator.properties[sortBy] {
            let descending = query["sortOrder"].map { $0.lowercased() == "desc" } ?? false
            translation.order = " ORDER BY \(mapped)\(descending ? " DESC" : "")"
            // Folders have no content to sort by.
            if mapped.hasPrefix("cmis:contentStream") { translation.includesFolders = false }
        }
        // One page across the statements (folders, then documents for `FROM Document`): what the first does not fill
        // comes from the next, skipping what the page's offset passed of it.
        var skip = pageIndex * pageSize
        var entries: [JSONValue] = []
        var more = false
        var total: Int64 = 0
        for table in translation.tables {
            let maxItems = max(1, pageSize - entries.count)
            let list: ObjectList
            if let inStore = try await searchLeavingOutTrash(
                translation, over: table, repository: repository, maxItems: maxItems, skip: skip, caller: caller)
            {
                list = inStore
            } else {
                if let trashed = translation.trashed, translation.trash == nil {
                    // A mount: its trash is named in the statements.
                    translation.trash = try await trashFilter(trashed, repository: repository)
                    if let trash = translation.trash, trash.only, trash.keys.isEmpty {
                        return Self.json(Self.page([], index: pageIndex, size: pageSize, more: false, total: 0))
                    }
                }
                list = try await service.query(
                    repositoryId: repository, statement: translation.statement(over: table), searchAllVersions: false,
                    includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil,
                    maxItems: maxItems, skipCount: skip, caller: caller)
            }
            guard let matches = list.numItems else {
                // Paging across the statements needs each one's count.
                throw CMISError(.runtime, "the repository did not count the matches of an NXQL search")
            }
            total += matches
            if entries.count < pageSize {
                entries += try await render(
                    Array(list.objects.prefix(pageSize - entries.count)), repository: repository, caller: caller)
            }
            more = list.hasMoreItems
            skip = Int(max(0, Int64(skip) - matches))
        }
        if translation.tables.count > 1 { more = Int64(pageIndex * pageSize + entries.count) < total }
        return Self.json(Self.page(entries, index: pageIndex, size: pageSize, more: more, total: total))
    }

    /// One statement of a search that says `ecm:isTrashed`, with the trash left out (or kept to) by the store's own
    /// query (``CMISService/query(repositoryId:statement:searchAllVersions:includeAllowableActions:includeRelationships:renditionFilter:maxItems:skipCount:trash:caller:)``).
    /// Nil when the search does not say, or when the repository's store keeps no marks (a gateway mount).
    private func searchLeavingOutTrash(
        _ translation: NXQLTranslator.Translation, over table: String, repository: String, maxItems: Int, skip: Int,
        caller: CallerContext
    ) async throws -> ObjectList? {
        guard let trashed = translation.trashed, translation.trash == nil else { return nil }
        return try await service.query(
            repositoryId: repository, statement: translation.statement(over: table), searchAllVersions: false,
            includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil, maxItems: maxItems,
            skipCount: skip, trash: trashed ? .trashed : .live, caller: caller)
    }

    /// `pageSize` (1…1000, default 50) and `currentPageIndex` (0…1,000,000): what a page asks for, bounded so the
    /// offset (`pageSize × index`) cannot overflow.
    static func paging(_ query: [String: String]) -> (size: Int, index: Int) {
        let size = max(1, min(Int(query["pageSize"] ?? "") ?? 50, 1000))
        let index = max(0, min(Int(query["currentPageIndex"] ?? "") ?? 0, 1_000_000))
        return (size, index)
    }

    /// A page of documents (`entity-type: documents`) with Nuxeo's paging fields.
    static func page(_ entries: [JSONValue], index: Int, size: Int, more: Bool, total: Int64?) -> JSONValue {
        var page: JSONObject = [
            "entity-type": "documents", "isPaginable": true, "currentPageIndex": .number(JSONNumber(index)),
            "pageSize": .number(JSONNumber(size)), "currentPageSize": .number(JSONNumber(entries.count)),
            "isNextPageAvailable": .bool(more), "isPreviousPageAvailable": .bool(index > 0),
            "entries": .array(entries),
        ]
        if let total {
            page.append(key: "resultsCount", value: .number(JSONNumber(total)))
            page.append(key: "totalSize", value: .number(JSONNumber(total)))
            page.append(key: "numberOfPages", value: .number(JSONNumber((total + Int64(size) - 1) / Int64(size))))
        }
        return .object(page)
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

    /// POST on a folder: the document entity of a new child (`type`: Folder, Workspace, OrderedFolder make folders,
    /// anything else a document; `name` or `dc:title` its name).
    private func create(
        in parent: CMISObject, path: String, repository: String, request: Request, caller: CallerContext
    ) async throws -> Response {
        let entity = try await body(request)
        let name = entity["name"]?.stringValue ?? entity["properties"]?["dc:title"]?.stringValue ?? ""
        let created = try await createChild(
            in: parent, type: entity["type"]?.stringValue ?? "File", name: name,
            description: entity["properties"]?["dc:description"]?.stringValue, repository: repository, caller: caller)
        let base = path == "/" ? "" : path
        return Self.json(
            try await render(created, placedAt: (base + "/" + name, parent.id), repository: repository, caller: caller),
            status: 201)
    }

    /// PUT on a document: its properties (`dc:title` renames it, `dc:description`), guarded by `changeToken` when
    /// the entity carries one.
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

    /// An object's path: a folder's own, a document's parent's with its name.
    func path(of object: CMISObject, repository: String, caller: CallerContext) async throws -> String {
        try await placement(of: object, repository: repository, caller: caller).path
    }

    /// An object's path and its parent's id: a folder's own, a document's first parent's (the caller may read).
    func placement(
        of object: CMISObject, repository: String, caller: CallerContext
    ) async throws -> (
        path: String, parentID: String?
    ) {
        if let path = object.path { return (path, object.parentId) }
        guard let id = object.id else { return ("/", nil) }
        let found = try await service.placements(repositoryId: repository, objectIds: [id], caller: caller)[id]
        return Self.placement(of: object, found: found)
    }

    /// Where an object is shown: its own path, or what the service found, or its name under the root when no parent
    /// is the caller's to see.
    static func placement(of object: CMISObject, found: ObjectPlacement?) -> (path: String, parentID: String?) {
        if let path = object.path { return (path, object.parentId) }
        if let path = found?.path { return (path, found?.parentId) }
        return ("/" + (object.name ?? object.id ?? ""), nil)
    }

    /// An object as a Nuxeo document, placed (path and parent) where the caller does not know it, with its blob's
    /// digest.
    func render(
        _ object: CMISObject, placedAt known: (path: String, parentID: String?)? = nil, repository: String,
        caller: CallerContext
    ) async throws -> JSONValue {
        try await render([object], placedAt: [known], repository: repository, caller: caller)[0]
    }

    /// A page of objects as Nuxeo documents. What the page needs of the repository beyond the objects (the paths
    /// of documents not placed by `known`, and the digests of their blobs) is read in one call for the whole page
    /// (``CMISService/placements(repositoryId:objectIds:caller:)``), not per document.
    func render(
        _ objects: [CMISObject], placedAt known: [(path: String, parentID: String?)?]? = nil, repository: String,
        caller: CallerContext
    ) async throws -> [JSONValue] {
        func hasBlob(_ object: CMISObject) -> Bool { object.baseType == .document && object.contentStreamLength != nil }
        var needed: [String] = []
        for (index, object) in objects.enumerated() {
            guard let id = object.id else { continue }
            let placed = (known?[index] ?? nil) != nil || object.path != nil
            if !placed || hasBlob(object) { needed.append(id) }
        }
        let found =
            needed.isEmpty
            ? [:] : try await service.placements(repositoryId: repository, objectIds: needed, caller: caller)
        // The page's locks and trash marks, one read each.
        let keys = objects.map(Self.markKey(of:))
        let locks = try await marks.locks(of: keys, in: repository)
        let trashed = try await marks.trashMarks(of: keys, in: repository)
        return objects.enumerated().map { index, object in
            let placement = object.id.flatMap { found[$0] }
            let shown = (known?[index] ?? nil) ?? Self.placement(of: object, found: placement)
            return document(
                object, path: shown.path, parentID: shown.parentID,
                digest: hasBlob(object) ? placement?.contentHash : nil, lock: locks[keys[index]],
                isTrashed: trashed[keys[index]] != nil, repository: repository)
        }
    }

    /// A CMIS object as a Nuxeo document: folders are `Folder`, documents `File` with `file:content`.
    func document(
        _ object: CMISObject, path: String, parentID: String?, digest: String?, lock: DocumentLock?, isTrashed: Bool,
        repository: String
    ) -> JSONValue {
        let isFolder = object.baseType == .folder
        let modified = object.lastModificationDate.map { JSONValue.string(Self.timestamp($0)) } ?? .null
        var properties: JSONObject = [
            "dc:title": object.name.map { .string($0) } ?? .null,
            "dc:description": object.objectDescription.map { .string($0) } ?? .null,
            "dc:creator": object.createdBy.map { .string($0) } ?? .null,
            "dc:created": object.creationDate.map { .string(Self.timestamp($0)) } ?? .null,
            "dc:modified": modified,
            "dc:lastContributor": object.lastModifiedBy.map { .string($0) } ?? .null,
        ]
        if !isFolder {
            var content: JSONValue = .null
            if let length = object.contentStreamLength, object.id != nil {
                content = [
                    "name": .string(object.contentStreamFileName ?? object.name ?? "content"),
                    "mime-type": object.contentStreamMimeType.map { .string($0) } ?? .null,
                    "encoding": .null,
                    "digestAlgorithm": digest == nil ? .null : "SHA-256", "digest": digest.map { .string($0) } ?? .null,
                    // Nuxeo writes the length as a string.
                    "length": .string(String(length)),
                    "data": .string(
                        "\(NuxeoRoutes.apiRoot)/repo/\(repository)/id/\(Self.uid(of: object))/@blob/file:content"),
                ]
            }
            properties.append(key: "file:content", value: content)
        }
        let uid = Self.uid(of: object)
        let isVersion = object.baseType == .document && object.isLatestVersion == false
        var document: JSONObject = [
            "entity-type": "document", "repository": .string(repository == defaultRepository ? "default" : repository),
            "uid": .string(uid), "path": .string(path), "type": .string(isFolder ? "Folder" : "File"),
            "state": "project", "parentRef": (parentID ?? object.parentId).map { .string($0) } ?? .null,
            "isCheckedOut": .bool(
                object.properties["cmis:isVersionSeriesCheckedOut"]?.values.first?.boolValue ?? false),
            "isVersion": .bool(isVersion), "isProxy": false,
            "isTrashed": .bool(isTrashed),
            "changeToken": object.changeToken.map { .string($0) } ?? .null,
            "title": object.name.map { .string($0) } ?? .null, "lastModified": modified,
            "properties": .object(properties),
            "facets": .array(isFolder ? ["Folderish"] : ["Downloadable", "Versionable"]),
        ]
        if let label = object.versionLabel { document.append(key: "versionLabel", value: .string(label)) }
        if let lock {
            document.append(key: "lockOwner", value: .string(lock.owner))
            document.append(key: "lockCreated", value: .string(Self.timestamp(lock.created)))
        }
        return .object(document)
    }

    /// Nuxeo's dates: UTC with milliseconds (`2024-01-15T10:20:30.123Z`), as `xsd:dateTime` is written.
    static func timestamp(_ date: Date) -> String { AtomPubWriter.dateString(date) }

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
