import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SatchelCMISCore
import SatchelRepository
import SatchelXML

extension AtomPubRoutes {
    /// POST: create in a folder (or move/add an existing object), check out, query, apply a policy, create a type.
    func post(_ resource: String, _ call: AtomPubCall) async throws -> Response {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        if resource == "query" {
            // A query changes nothing: no XSRF token needed.
            let body = try await readBody(
                call, accepting: ["application/cmisquery+xml"], limit: environment.limits.maxMetadataBytes)
            let query = try AtomPubParser.queryRequest(body, limits: xmlLimits)
            let list = try await service.query(
                repositoryId: repositoryId, statement: query.statement, searchAllVersions: query.searchAllVersions,
                includeAllowableActions: query.includeAllowableActions,
                includeRelationships: query.includeRelationships,
                renditionFilter: query.renditionFilter, maxItems: query.maxItems, skipCount: query.skipCount,
                caller: caller)
            let docs = call.documents
            let page = AtomPubDocuments.Page(
                selfURL: call.urls.url(repositoryId, "query"), pageURL: { _ in call.urls.url(repositoryId, "query") },
                skipCount: query.skipCount, count: list.objects.count, hasMoreItems: false, numItems: list.numItems)
            let bytes = docs.feed(title: "query", page: page) { writer in
                for object in list.objects { docs.entry(object, into: &writer) }
            }
            return AtomPubCall.xml(bytes, type: "application/atom+xml;type=feed;charset=UTF-8", status: .created)
        }
        try await call.checkXSRF()
        if resource == "types" {
            let type = try await service.createType(
                repositoryId: repositoryId, type: try await readType(call), caller: caller)
            return AtomPubCall.entry(
                call.documents.typeEntryDocument(type), status: .created,
                location: call.urls.url(repositoryId, "type", [("id", type.id)]))
        }
        let entry = try await readEntry(call)
        let objectId = entry.properties["cmis:objectId"]?.stringValue
        switch resource {
        case "children", "unfiled":
            let folderId = resource == "children" ? try call.required("id") : nil
            if let objectId, let folderId {
                let object: CMISObject
                if let source = call.parameter("sourceFolderId") {
                    object = try await service.moveObject(
                        repositoryId: repositoryId, objectId: objectId, targetFolderId: folderId,
                        sourceFolderId: source, caller: caller)
                } else {
                    object = try await service.addObjectToFolder(
                        repositoryId: repositoryId, objectId: objectId, folderId: folderId,
                        allVersions: try call.bool("allVersions", default: true), caller: caller)
                }
                return created(call, object)
            }
            if let objectId, resource == "unfiled" {
                return created(
                    call,
                    try await service.removeObjectFromFolder(
                        repositoryId: repositoryId, objectId: objectId, folderId: call.parameter("removeFrom"),
                        caller: caller))
            }
            return created(call, try await create(call, entry: entry, folderId: folderId))
        case "checkedout":
            guard let objectId else { throw CMISError(.invalidArgument, "the entry has no cmis:objectId to check out") }
            return created(
                call, try await service.checkOut(repositoryId: repositoryId, objectId: objectId, caller: caller))
        case "policies":
            guard let objectId else { throw CMISError(.invalidArgument, "the entry has no cmis:objectId of a policy") }
            let target = try call.required("id")
            try await service.applyPolicy(
                repositoryId: repositoryId, policyId: objectId, objectId: target, caller: caller)
            let policy = try await service.object(
                repositoryId: repositoryId, id: objectId, context: OperationContext(), caller: caller)
            return created(call, policy)
        case "relationships":
            return created(call, try await create(call, entry: entry, folderId: nil))
        case "update":
            return try await bulkUpdate(call, entry: entry)
        default:
            throw CMISError(.notSupported, "POST is not supported on \(resource)")
        }
    }

    /// bulkUpdateProperties: a feed with an entry per object updated (its id, new id and change token).
    func bulkUpdate(_ call: AtomPubCall, entry: AtomPubRequestEntry) async throws -> Response {
        guard let bulk = entry.bulkUpdate else {
            throw CMISError(.invalidArgument, "a bulk update entry needs cmisra:bulkUpdate")
        }
        guard bulk.objects.count <= environment.limits.maxFormFields else {
            throw CMISError(
                .invalidArgument, "a bulk update names more than \(environment.limits.maxFormFields) objects")
        }
        let results = try await call.service.bulkUpdateProperties(
            repositoryId: call.repositoryId, objects: bulk.objects, properties: bulk.properties,
            addSecondaryTypeIds: bulk.addSecondaryTypeIds, removeSecondaryTypeIds: bulk.removeSecondaryTypeIds,
            caller: call.caller)
        let docs = call.documents
        let page = AtomPubDocuments.Page(
            selfURL: call.urls.url(call.repositoryId, "update"),
            pageURL: { _ in call.urls.url(call.repositoryId, "update") },
            skipCount: 0, count: results.count, hasMoreItems: false, numItems: Int64(results.count))
        let bytes = docs.feed(title: "bulk update", page: page) { writer in
            for result in results {
                var properties = Properties()
                properties["cmis:objectId"] = CMISProperty(
                    id: "cmis:objectId", type: .id, values: [.id(result.newId ?? result.id)])
                if let token = result.changeToken {
                    properties["cmis:changeToken"] = CMISProperty(
                        id: "cmis:changeToken", type: .string, values: [.string(token)])
                }
                docs.entry(CMISObject(properties: properties), into: &writer)
            }
        }
        return AtomPubCall.xml(bytes, type: "application/atom+xml;type=feed;charset=UTF-8", status: .created)
    }

    /// Creates a folder, document, or other object from an entry, by the base type of `cmis:objectTypeId`.
    func create(_ call: AtomPubCall, entry: AtomPubRequestEntry, folderId: String?) async throws -> CMISObject {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        var properties = entry.properties
        if properties["cmis:objectTypeId"] == nil {
            properties["cmis:objectTypeId"] = CMISProperty(
                id: "cmis:objectTypeId", type: .id,
                values: [.id(entry.content == nil ? "cmis:folder" : "cmis:document")])
        }
        if properties["cmis:name"] == nil, let title = entry.title, !title.isEmpty {
            properties["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string(title)])
        }
        let typeId = properties["cmis:objectTypeId"]?.stringValue ?? ""
        let type = try await service.typeDefinition(repositoryId: repositoryId, typeId: typeId, caller: caller)
        switch type.baseTypeId {
        case .folder:
            guard let folderId else { throw CMISError(.constraint, "a folder must be created in a folder") }
            return try await service.createFolder(
                repositoryId: repositoryId, parentId: folderId, properties: properties, policies: entry.policyIds,
                addACEs: [], removeACEs: [], caller: caller)
        case .document:
            let versioningState = try call.parameter("versioningState").map { text throws(CMISError) in
                guard let state = VersioningState(rawValue: text) else {
                    throw CMISError(.invalidArgument, "versioningState must be none, checkedout, major or minor")
                }
                return state
            }
            if let sourceId = call.parameter("sourceId") {
                return try await service.createDocumentFromSource(
                    repositoryId: repositoryId, sourceId: sourceId, parentId: folderId, properties: properties,
                    versioningState: versioningState, caller: caller)
            }
            return try await service.createDocument(
                repositoryId: repositoryId, parentId: folderId, properties: properties,
                content: try await contentInput(
                    call, entry: entry, properties: properties, target: folderId,
                    name: properties["cmis:name"]?.stringValue),
                versioningState: versioningState, policies: entry.policyIds, addACEs: [], removeACEs: [],
                caller: caller)
        default:
            return try await service.createObject(
                repositoryId: repositoryId, parentId: folderId, properties: properties, policies: entry.policyIds,
                addACEs: [], removeACEs: [], caller: caller)
        }
    }

    /// PUT: update properties (or check in with `checkin=true`), set or append content, apply an ACL, update a type.
    func put(_ resource: String, _ call: AtomPubCall) async throws -> Response {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        try await call.checkXSRF()
        switch resource {
        case "entry", "id":
            let id = try call.required("id")
            let entry = try await readEntry(call)
            if try call.bool("checkin", default: false) {
                let current = try await service.object(
                    repositoryId: repositoryId, id: id, context: OperationContext(), caller: caller)
                let object = try await service.checkIn(
                    repositoryId: repositoryId, objectId: id, major: try call.bool("major", default: true),
                    properties: try await updatable(call, entry.properties, typeId: current.objectTypeId),
                    content: try await contentInput(call, entry: entry, properties: current.properties, target: id),
                    comment: call.parameter("checkinComment"), policies: entry.policyIds, addACEs: [],
                    removeACEs: [], caller: caller)
                return AtomPubCall.entry(call.documents.entryDocument(object))
            }
            let current = try await service.object(
                repositoryId: repositoryId, id: id, context: OperationContext(), caller: caller)
            var object = try await service.updateProperties(
                repositoryId: repositoryId, objectId: id,
                changeToken: entry.properties["cmis:changeToken"]?.stringValue ?? call.parameter("changeToken"),
                properties: try await updatable(call, entry.properties, typeId: current.objectTypeId), caller: caller)
            if let content = try await contentInput(call, entry: entry, properties: object.properties, target: id),
                let newId = object.id
            {
                object = try await service.setContentStream(
                    repositoryId: repositoryId, objectId: newId, overwrite: true, changeToken: nil, content: content,
                    caller: caller)
            }
            return AtomPubCall.entry(call.documents.entryDocument(object))
        case "content":
            return try await setContent(call)
        case "type":
            let type = try await readType(call)
            guard type.id == (call.parameter("id") ?? type.id) else {
                throw CMISError(
                    .invalidArgument, "the entry describes type \(type.id), not \(call.parameter("id") ?? "")")
            }
            let updated = try await service.updateType(repositoryId: repositoryId, type: type, caller: caller)
            return AtomPubCall.entry(call.documents.typeEntryDocument(updated))
        case "acl":
            let body = try await readBody(
                call, accepting: ["application/cmisacl+xml"], limit: environment.limits.maxMetadataBytes)
            let acl: ACL
            do {
                acl = try AtomPubParser.acl(body)
            } catch {
                throw CMISError(.invalidArgument, "invalid cmis:acl document: \(error)")
            }
            let current = try await service.acl(
                repositoryId: repositoryId, objectId: try call.required("id"), onlyBasicPermissions: false,
                caller: caller)
            let result = try await service.applyACL(
                repositoryId: repositoryId, objectId: try call.required("id"),
                addACEs: acl.aces.filter { !current.aces.contains($0) },
                removeACEs: current.aces.filter { $0.isDirect && !acl.aces.contains($0) },
                propagation: call.parameter("ACLPropagation"), caller: caller)
            return aclResponse(result)
        default:
            throw CMISError(.notSupported, "PUT is not supported on \(resource)")
        }
    }

    /// DELETE: an object (a private working copy cancels its check-out), content, a folder tree, a policy, a type.
    func delete(_ resource: String, _ call: AtomPubCall) async throws -> Response {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        try await call.checkXSRF()
        let id = try call.required("id")
        switch resource {
        case "entry", "id":
            let object = try await service.object(
                repositoryId: repositoryId, id: id, context: OperationContext(), caller: caller)
            if object.properties["cmis:isPrivateWorkingCopy"]?.boolValue == true {
                try await service.cancelCheckOut(repositoryId: repositoryId, objectId: id, caller: caller)
            } else {
                try await service.deleteObject(
                    repositoryId: repositoryId, objectId: id, allVersions: try call.bool("allVersions", default: true),
                    caller: caller)
            }
            return AtomPubCall.noContent()
        case "content":
            _ = try await service.deleteContentStream(
                repositoryId: repositoryId, objectId: id, changeToken: call.parameter("changeToken"), caller: caller)
            return AtomPubCall.noContent()
        case "descendants", "foldertree", "children":
            let unfile = try call.parameter("unfileObjects").map { text throws(CMISError) in
                guard let value = UnfileObjects(rawValue: text) else {
                    throw CMISError(.invalidArgument, "unfileObjects must be unfile, deletesinglefiled or delete")
                }
                return value
            }
            let failed = try await service.deleteTree(
                repositoryId: repositoryId, folderId: id, allVersions: try call.bool("allVersions", default: true),
                unfileObjects: unfile ?? .delete,
                continueOnFailure: try call.bool("continueOnFailure", default: false), caller: caller)
            guard failed.isEmpty else {
                throw CMISError(
                    .constraint,
                    "could not delete \(failed.count) objects: \(failed.prefix(20).joined(separator: ", "))")
            }
            return AtomPubCall.noContent()
        case "type":
            try await service.deleteType(repositoryId: repositoryId, typeId: id, caller: caller)
            return AtomPubCall.noContent()
        case "policies":
            try await service.removePolicy(
                repositoryId: repositoryId, policyId: try call.required("policyId"), objectId: id, caller: caller)
            return AtomPubCall.noContent()
        default:
            throw CMISError(.notSupported, "DELETE is not supported on \(resource)")
        }
    }

    // MARK: Request bodies

    /// What a request document may hold: an entry is a few levels deep, its elements a property's values or an
    /// ACE's permissions, each with a namespace declaration or two.
    var xmlLimits: XMLReadLimits {
        var limits = XMLReadLimits()
        limits.maxDepth = 64
        limits.maxDocumentSize = entryLimit
        limits.maxAttributes = 64
        limits.maxElements = 200_000
        return limits
    }

    /// The largest Atom entry accepted: metadata plus base64 inline content (which is 4/3 of its bytes).
    var entryLimit: Int {
        let inline = min(environment.limits.maxContentBytes, 48 << 20)
        return environment.limits.maxMetadataBytes + Int(inline / 3 * 4 + 4)
    }

    /// The request body (an XML document of one of the accepted media types), up to `limit` (the entry limit by
    /// default).
    func readBody(_ call: AtomPubCall, accepting types: [String], limit: Int? = nil) async throws -> Data {
        if let type = call.request.headers[.contentType]?.lowercased() {
            let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let accepted = Set(types + ["application/atom+xml", "application/xml", "text/xml"])
            guard accepted.contains(mediaType) || mediaType.hasSuffix("+xml") else {
                throw CMISError(.invalidArgument, "expected \(types.first ?? "XML"), not \(mediaType)")
            }
        }
        var request = call.request
        do {
            let buffer = try await request.collectBody(upTo: limit ?? entryLimit)
            return Data(buffer.readableBytesView)
        } catch {
            throw Self.bodyFailure(error)
        }
    }

    /// A failure while a request body arrives: too large stays what it is (413); anything else (the client
    /// stopped before its declared length, a malformed chunk) is the client's fault, 400, not the server's.
    static func bodyFailure(_ error: any Error) -> any Error {
        switch error {
        case is NIOTooManyBytesError, is CMISError, is BlobStoreError: return error
        case let error as HTTPError where error.status == .contentTooLarge: return error
        default: return CMISError(.invalidArgument, "the request body could not be read: \(error)")
        }
    }

    /// A posted or put type entry (`atom:entry` with `cmisra:type`), within the metadata limit.
    func readType(_ call: AtomPubCall) async throws -> TypeDefinition {
        let body = try await readBody(
            call, accepting: ["application/atom+xml", "application/cmisatom+xml"],
            limit: environment.limits.maxMetadataBytes)
        do {
            return try AtomPubParser.typeDefinition(body)
        } catch let error as CMISError {
            throw CMISError(.invalidArgument, "the type entry cannot be read: \(error.message)")
        }
    }

    /// The posted Atom entry, checked against the property limits.
    func readEntry(_ call: AtomPubCall) async throws -> AtomPubRequestEntry {
        let body = try await readBody(call, accepting: ["application/atom+xml", "application/cmisatom+xml"])
        let entry = try AtomPubParser.requestEntry(body, limits: xmlLimits)
        let limits = environment.limits
        // Only inline content may make an entry larger than other metadata: what is not its base64 text (at most a
        // line end every 64 characters beside it) is held to the metadata limit.
        let base64 = entry.content.map { ($0.data.count + 2) / 3 * 4 } ?? 0
        guard body.count - base64 - base64 / 64 <= limits.maxMetadataBytes else {
            throw HTTPError(.contentTooLarge)
        }
        guard entry.properties.count <= limits.maxProperties else {
            throw CMISError(.invalidArgument, "more than \(limits.maxProperties) properties")
        }
        for property in entry.properties {
            for value in property.values where AtomPubWriter.lexical(value).utf8.count > limits.maxPropertyValueBytes {
                throw CMISError(
                    .invalidArgument, "a value of \(property.id) is longer than \(limits.maxPropertyValueBytes) bytes")
            }
        }
        if let content = entry.content, Int64(content.data.count) > limits.maxContentBytes {
            throw CMISError(.invalidArgument, "the content is larger than \(limits.maxContentBytes) bytes")
        }
        return entry
    }

    /// Inline content of an entry, written to the blob store once the service accepts an upload to `target`
    /// (``CMISService/checkContentUpload(repositoryId:targetId:name:caller:)``: the folder of a new document named
    /// `name`, or the document itself; nil for an unfiled document, which the service checks when it creates it).
    func contentInput(
        _ call: AtomPubCall, entry: AtomPubRequestEntry, properties: Properties, target: String?, name: String? = nil
    ) async throws
        -> ContentInput?
    {
        guard let content = entry.content else { return nil }
        if let target {
            try await call.service.checkContentUpload(
                repositoryId: call.repositoryId, targetId: target, name: name, caller: call.caller)
        }
        // Checked before anything is stored: it goes back out in headers.
        let mimeType = try MediaTypeSyntax.checked(content.mimeType ?? "")
        let blob = try await environment.blobs.put(content.data)
        return try ContentInput(
            blob: blob, mimeType: mimeType,
            fileName: properties["cmis:contentStreamFileName"]?.stringValue ?? properties["cmis:name"]?.stringValue)
    }

    /// The properties of an entry that can be changed: clients often send the object back whole.
    func updatable(_ call: AtomPubCall, _ properties: Properties, typeId: String?) async throws -> Properties {
        guard let typeId else { return properties }
        let type = try await call.service.typeDefinition(
            repositoryId: call.repositoryId, typeId: typeId, caller: call.caller)
        var result = Properties()
        for property in properties {
            let updatability = type.propertyDefinition(id: property.id)?.updatability
            if updatability == nil || updatability == .readwrite || updatability == .whencheckedout {
                if property.id != "cmis:objectId" && property.id != "cmis:changeToken" {
                    result[property.id] = property
                }
            }
        }
        return result
    }

    func created(_ call: AtomPubCall, _ object: CMISObject) -> Response {
        let location = object.id.map { call.urls.entry(call.repositoryId, id: $0) }
        return AtomPubCall.entry(call.documents.entryDocument(object), status: .created, location: location)
    }
}
