import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelXML

extension AtomPubRoutes {
    /// GET `<mount>/<repository>/<resource>`: the resource picks the read from ``reads``.
    func get(_ resource: String, _ call: AtomPubCall) async throws -> Response {
        guard let read = Self.reads[resource] else {
            throw CMISError(.objectNotFound, "no AtomPub resource \(resource)")
        }
        return try await read(self, call, resource)
    }

    /// The AtomPub binding's reads by resource (the path segment after the repository): one line per CMIS
    /// operation.
    static let reads: [String: @Sendable (AtomPubRoutes, AtomPubCall, String) async throws -> Response] = [
        "entry": { try await $0.readObject($1, resource: $2) },
        "id": { try await $0.readObject($1, resource: $2) },
        "path": { try await $0.readObjectByPath($1, resource: $2) },
        "children": { try await $0.readChildren($1, resource: $2) },
        "descendants": { try await $0.readDescendants($1, resource: $2) },
        "foldertree": { try await $0.readDescendants($1, resource: $2) },
        "parents": { try await $0.readParents($1, resource: $2) },
        "versions": { try await $0.readVersions($1, resource: $2) },
        "relationships": { try await $0.readRelationships($1, resource: $2) },
        "policies": { try await $0.readPolicies($1, resource: $2) },
        "checkedout": { try await $0.readCheckedOut($1, resource: $2) },
        "query": { try await $0.readQuery($1, resource: $2) },
        "changes": { try await $0.readChanges($1, resource: $2) },
        "allowableactions": { try await $0.readAllowableActions($1, resource: $2) },
        "acl": { try await $0.readACL($1, resource: $2) },
        "content": { try await $0.readContent($1, resource: $2) },
        "types": { try await $0.readTypes($1, resource: $2) },
        "typedesc": { try await $0.readTypeDescendants($1, resource: $2) },
        "type": { try await $0.readType($1, resource: $2) },
        "unfiled": { try await $0.readUnfiled($1, resource: $2) },
    ]

    func readObject(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        let context = try call.operationContext()
        let object: CMISObject
        switch call.parameter("returnVersion") {
        case "latest", "latestmajor":
            object = try await service.objectOfLatestVersion(
                repositoryId: repositoryId, objectId: id, major: call.parameter("returnVersion") == "latestmajor",
                context: context, caller: caller)
        default:
            object = try await service.object(repositoryId: repositoryId, id: id, context: context, caller: caller)
        }
        return AtomPubCall.entry(docs.entryDocument(object))
    }

    func readObjectByPath(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let path = try call.required("path")
        let object = try await service.object(
            repositoryId: repositoryId, path: path, context: try call.operationContext(), caller: caller)
        return AtomPubCall.entry(docs.entryDocument(object))
    }

    func readChildren(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        var context = try call.operationContext()
        context.includePathSegment = try call.bool("includePathSegment", default: true)
        let (maxItems, skipCount) = (try call.maxItems, try call.skipCount)
        // The feed's title and up link need the folder itself: read beside the page, not after it.
        async let children = service.children(
            repositoryId: repositoryId, folderId: id, context: context, maxItems: maxItems, skipCount: skipCount,
            caller: caller)
        let folder = try await service.object(
            repositoryId: repositoryId, id: id, context: OperationContext(filter: ["cmis:name", "cmis:parentId"]),
            caller: caller)
        let page = try await children
        var links = [("via", call.urls.entry(repositoryId, id: id), AtomPubDocuments.entryType)]
        if let parent = folder.parentId {
            links.append(("up", call.urls.entry(repositoryId, id: parent), AtomPubDocuments.entryType))
        }
        let bytes = docs.feed(
            title: folder.name ?? id,
            page: try call.page(
                resource: resource, count: page.objects.count, hasMoreItems: page.hasMoreItems,
                numItems: page.numItems),
            extraLinks: links
        ) { writer in
            for item in page.objects {
                docs.entry(item.object, into: &writer, extras: .init(pathSegment: item.pathSegment))
            }
        }
        return AtomPubCall.feed(bytes)
    }

    func readDescendants(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        let nodes = try await service.descendants(
            repositoryId: repositoryId, folderId: id, depth: try call.depth(),
            foldersOnly: resource == "foldertree", context: try call.operationContext(), caller: caller)
        let page = try call.page(resource: resource, count: nodes.count, hasMoreItems: false, numItems: nil)
        return AtomPubCall.feed(
            docs.feed(title: "descendants of \(id)", page: page) { writer in
                for node in nodes {
                    docs.entry(
                        node.object, into: &writer,
                        extras: .init(pathSegment: node.item.pathSegment, children: node.children))
                }
            })
    }

    func readParents(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        var context = try call.operationContext()
        // getObjectParents names its path-segment switch includeRelativePathSegment.
        context.includePathSegment = try call.bool(
            "includeRelativePathSegment", default: context.includePathSegment)
        let parents = try await service.objectParents(
            repositoryId: repositoryId, objectId: id, context: context, caller: caller)
        return objectFeed(
            call, resource: resource, title: "parents of \(id)", objects: parents.map(\.object),
            relativePathSegments: parents.map(\.relativePathSegment))
    }

    func readVersions(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        let versions = try await service.allVersions(
            repositoryId: repositoryId, objectId: id, context: try call.operationContext(), caller: caller)
        return objectFeed(call, resource: resource, title: "versions of \(id)", objects: versions)
    }

    func readRelationships(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        let direction = try call.parameter("relationshipDirection").map { text throws(CMISError) in
            guard let value = RelationshipDirection(rawValue: text) else {
                throw CMISError(.invalidArgument, "relationshipDirection must be source, target or either")
            }
            return value
        }
        let list = try await service.objectRelationships(
            repositoryId: repositoryId, objectId: id,
            includeSubRelationshipTypes: try call.bool("includeSubRelationshipTypes", default: false),
            direction: direction ?? .source, typeId: call.parameter("typeId"),
            context: try call.operationContext(), maxItems: try call.maxItems, skipCount: try call.skipCount,
            caller: caller)
        return try objectFeed(call, resource: resource, title: "relationships of \(id)", list: list)
    }

    func readPolicies(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let id = try call.required("id")
        let policies = try await service.appliedPolicies(
            repositoryId: repositoryId, objectId: id, context: try call.operationContext(), caller: caller)
        return objectFeed(
            call, resource: resource, title: "policies of \(id)", objects: policies, appliedTo: id)
    }

    func readCheckedOut(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let list = try await service.checkedOutDocuments(
            repositoryId: repositoryId, folderId: call.parameter("folderId"), context: try call.operationContext(),
            maxItems: try call.maxItems, skipCount: try call.skipCount, caller: caller)
        return try objectFeed(call, resource: resource, title: "checked out", list: list)
    }

    func readQuery(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let list = try await service.query(
            repositoryId: repositoryId, statement: try call.required("q"),
            searchAllVersions: try call.bool("searchAllVersions", default: false),
            includeAllowableActions: try call.bool("includeAllowableActions", default: false),
            includeRelationships: try call.operationContext().includeRelationships,
            renditionFilter: call.parameter("renditionFilter"), maxItems: try call.maxItems,
            skipCount: try call.skipCount, caller: caller)
        return try objectFeed(call, resource: resource, title: "query", list: list)
    }

    func readChanges(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let changes = try await service.contentChanges(
            repositoryId: repositoryId, changeLogToken: call.parameter("changeLogToken"),
            includeProperties: try call.bool("includeProperties", default: false),
            includePolicyIds: try call.bool("includePolicyIds", default: false),
            includeACL: try call.bool("includeACL", default: false), maxItems: try call.maxItems, caller: caller)
        var page = try call.page(
            resource: resource, count: changes.objects.count, hasMoreItems: changes.hasMoreItems,
            numItems: changes.numItems)
        // The change log pages by token, not by skip count.
        page.pageURL = { _ in
            call.urls.url(repositoryId, resource, [("changeLogToken", changes.changeLogToken)])
        }
        page.skipCount = 0
        return AtomPubCall.feed(
            docs.feed(title: "changes", page: page) { writer in
                for object in changes.objects { docs.entry(object, into: &writer) }
            })
    }

    func readAllowableActions(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let actions = try await service.allowableActions(
            repositoryId: repositoryId, objectId: try call.required("id"), caller: caller)
        var writer = XMLWriter(namespaces: [("cmis", XNamespace.cmis)])
        AtomPubWriter.allowableActions(actions, into: &writer)
        return AtomPubCall.xml(writer.finish(), type: "application/cmisallowableactions+xml;charset=UTF-8")
    }

    func readACL(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let acl = try await service.acl(
            repositoryId: repositoryId, objectId: try call.required("id"),
            onlyBasicPermissions: try call.bool("onlyBasicPermissions", default: true), caller: caller)
        return aclResponse(acl)
    }

    func readContent(_ call: AtomPubCall, resource: String) async throws -> Response {
        return try await content(call)
    }

    func readTypes(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let list = try await service.typeChildren(
            repositoryId: repositoryId, typeId: call.parameter("typeId"),
            includePropertyDefinitions: try call.bool("includePropertyDefinitions", default: false),
            maxItems: try call.maxItems, skipCount: try call.skipCount, caller: caller)
        let page = try call.page(
            resource: resource, count: list.types.count, hasMoreItems: list.hasMoreItems,
            numItems: Int64(list.numItems))
        return AtomPubCall.feed(
            docs.feed(title: "types", page: page) { writer in
                for type in list.types { docs.typeEntry(type, into: &writer) }
            })
    }

    func readTypeDescendants(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let nodes = try await service.typeDescendants(
            repositoryId: repositoryId, typeId: call.parameter("typeId"), depth: try call.depth(),
            includePropertyDefinitions: try call.bool("includePropertyDefinitions", default: false),
            caller: caller)
        let page = try call.page(resource: resource, count: nodes.count, hasMoreItems: false, numItems: nil)
        return AtomPubCall.feed(
            docs.feed(title: "type descendants", page: page) { writer in
                for node in nodes { docs.typeEntry(node.type, into: &writer, children: node.children) }
            })
    }

    func readType(_ call: AtomPubCall, resource: String) async throws -> Response {
        let service = call.service
        let docs = call.documents
        let (repositoryId, caller) = (call.repositoryId, call.caller)
        let type = try await service.typeDefinition(
            repositoryId: repositoryId, typeId: try call.required("id"), caller: caller)
        return AtomPubCall.entry(docs.typeEntryDocument(type))
    }

    func readUnfiled(_ call: AtomPubCall, resource: String) async throws -> Response {
        throw CMISError(.notSupported, "the repository does not list unfiled objects")
    }

    /// A feed of objects; `appliedTo` marks a policies feed, whose entries' self and edit links name the
    /// attachment (`policies?id=OBJECT&policyId=POLICY`, where DELETE detaches the policy).
    func objectFeed(
        _ call: AtomPubCall, resource: String, title: String, objects: [CMISObject],
        relativePathSegments: [String?] = [], appliedTo: String? = nil
    ) -> Response {
        let docs = call.documents
        let page = AtomPubDocuments.Page(
            selfURL: call.pageURL(resource: resource, skipCount: 0),
            pageURL: { call.pageURL(resource: resource, skipCount: $0) },
            skipCount: 0, count: objects.count, hasMoreItems: false, numItems: Int64(objects.count))
        return AtomPubCall.feed(
            docs.feed(title: title, page: page) { writer in
                for (index, object) in objects.enumerated() {
                    let segment = index < relativePathSegments.count ? relativePathSegments[index] : nil
                    docs.entry(
                        object, into: &writer, extras: .init(relativePathSegment: segment, policyAppliedTo: appliedTo))
                }
            })
    }

    func objectFeed(_ call: AtomPubCall, resource: String, title: String, list: ObjectList) throws -> Response {
        let docs = call.documents
        let page = try call.page(
            resource: resource, count: list.objects.count, hasMoreItems: list.hasMoreItems, numItems: list.numItems)
        return AtomPubCall.feed(
            docs.feed(title: title, page: page) { writer in
                for object in list.objects { docs.entry(object, into: &writer) }
            })
    }

    func aclResponse(_ acl: ACL) -> Response {
        var writer = XMLWriter(namespaces: [("cmis", XNamespace.cmis)])
        AtomPubWriter.acl(acl, into: &writer)
        return AtomPubCall.xml(writer.finish(), type: "application/cmisacl+xml;charset=UTF-8")
    }
}
