import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelJSON

extension BrowserCall {
    /// A GET: the repository list, a repository selector (``repositorySelectors``), or an object selector
    /// (``objectSelectors``).
    func performSelector() async throws -> Response {
        guard let repository else {
            let infos = try await environment.repositories.repositoryInfos(caller: caller)
            return json { $0.repositoryInfos(infos, baseURL: serviceURL) }
        }
        let selector = parameters.string("cmisselector")?.lowercased()
        if objectPath == nil && parameters.string("objectId") == nil {
            let name = selector ?? "repositoryinfo"
            guard let perform = Self.repositorySelectors[name] else {
                throw CMISError(.invalidArgument, "unknown cmisselector \"\(name.prefix(60))\" for a repository URL")
            }
            return try await perform(self, repository)
        }
        // checkedout on a folder's URL lists what is checked out in that folder.
        if let selector, selector != "checkedout", let perform = Self.repositorySelectors[selector] {
            return try await perform(self, repository)
        }
        return try await objectSelector(selector, repositoryId: repository)
    }

    /// The selectors of a repository URL, by lower-cased `cmisselector`: one line per CMIS operation.
    static let repositorySelectors: [String: @Sendable (BrowserCall, String) async throws -> Response] = [
        "repositoryinfo": { try await $0.repositoryInfo(repositoryId: $1) },
        "typechildren": { try await $0.typeChildren(repositoryId: $1) },
        "typedescendants": { try await $0.typeDescendants(repositoryId: $1) },
        "typedefinition": { try await $0.typeDefinition(repositoryId: $1) },
        "query": { try await $0.query(repositoryId: $1) },
        "checkedout": { try await $0.checkedOut(repositoryId: $1, folderId: nil) },
        "contentchanges": { try await $0.contentChanges(repositoryId: $1) },
    ]

    // MARK: Repository selectors

    func repositoryInfo(repositoryId: String) async throws -> Response {
        let info = try await service.repositoryInfo(repositoryId: repositoryId, caller: caller)
        return json { writer in
            writer.jsonObject { writer in
                writer.key(info.id) { $0.repositoryInfo(info, baseURL: serviceURL) }
            }
        }
    }

    func typeChildren(repositoryId: String) async throws -> Response {
        let page = try await service.typeChildren(
            repositoryId: repositoryId, typeId: parameters.string("typeId"),
            includePropertyDefinitions: try parameters.bool("includePropertyDefinitions", default: false),
            maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
            caller: caller)
        return json { $0.typeList(page.types, hasMoreItems: page.hasMoreItems, numItems: page.numItems) }
    }

    func typeDescendants(repositoryId: String) async throws -> Response {
        let tree = try await service.typeDescendants(
            repositoryId: repositoryId, typeId: parameters.string("typeId"), depth: try parameters.depth(),
            includePropertyDefinitions: try parameters.bool("includePropertyDefinitions", default: false),
            caller: caller)
        return json { $0.typeTree(tree) }
    }

    func typeDefinition(repositoryId: String) async throws -> Response {
        guard let typeId = parameters.string("typeId") else {
            throw CMISError(.invalidArgument, "typeDefinition needs the typeId parameter")
        }
        let type = try await service.typeDefinition(repositoryId: repositoryId, typeId: typeId, caller: caller)
        return json { $0.typeDefinition(type) }
    }

    /// Checked-out documents, in `folderId` or anywhere.
    func checkedOut(repositoryId: String, folderId: String?) async throws -> Response {
        let list = try await service.checkedOutDocuments(
            repositoryId: repositoryId, folderId: folderId, context: try parameters.operationContext(),
            maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
            caller: caller)
        return json { $0.objectList(list) }
    }

    func contentChanges(repositoryId: String) async throws -> Response {
        let changes = try await service.contentChanges(
            repositoryId: repositoryId, changeLogToken: parameters.string("changeLogToken"),
            includeProperties: try parameters.bool("includeProperties", default: false),
            includePolicyIds: try parameters.bool("includePolicyIds", default: false),
            includeACL: try parameters.bool("includeACL", default: false), maxItems: try parameters.int("maxItems"),
            caller: caller)
        return json { $0.contentChanges(changes) }
    }

    func query(repositoryId: String) async throws -> Response {
        guard let statement = parameters.string("q") ?? parameters.string("statement") else {
            throw CMISError(.invalidArgument, "query needs the q parameter (a CMIS QL statement)")
        }
        let relationships = try parameters.includeRelationships() ?? .none
        let results = try await service.query(
            repositoryId: repositoryId, statement: statement,
            searchAllVersions: try parameters.bool("searchAllVersions", default: false),
            includeAllowableActions: try parameters.bool("includeAllowableActions", default: false),
            includeRelationships: relationships, renditionFilter: parameters.string("renditionFilter"),
            maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0, caller: caller)
        return json { $0.queryResults(results) }
    }

    /// The object a root URL names: `objectId=`, else the path after `root`.
    func targetObjectId(repositoryId: String) async throws -> String {
        if let id = parameters.string("objectId") { return id }
        let path = "/" + (objectPath ?? []).joined(separator: "/")
        let object = try await service.object(
            repositoryId: repositoryId, path: path, context: OperationContext(filter: ["cmis:objectId"]),
            caller: caller)
        guard let id = object.id else { throw CMISError(.objectNotFound, "no object at \(path)") }
        return id
    }

    /// The object the URL names (by `objectId` or by path), read with `context` in one engine call.
    func targetObject(repositoryId: String, context: OperationContext) async throws -> CMISObject {
        if let id = parameters.string("objectId") {
            return try await service.object(repositoryId: repositoryId, id: id, context: context, caller: caller)
        }
        let path = "/" + (objectPath ?? []).joined(separator: "/")
        return try await service.object(repositoryId: repositoryId, path: path, context: context, caller: caller)
    }

    /// What an object selector works on: the object's id, the operation context, and the object itself when it
    /// was read to decide what is asked for (with the repository's generation read before it).
    struct ObjectRequest {
        var repositoryId: String
        var objectId: String
        var selector: String
        var context: OperationContext
        var resolved: CMISObject?
        var generation: UInt64?
    }

    /// The selectors of an object URL, by lower-cased `cmisselector`: one line per CMIS operation.
    static let objectSelectors: [String: @Sendable (BrowserCall, ObjectRequest) async throws -> Response] = [
        "object": { try await $0.objectRead($1) },
        "properties": { try await $0.objectRead($1) },
        "allowableactions": { try await $0.allowableActions($1) },
        "children": { try await $0.children($1) },
        "descendants": { try await $0.descendants($1) },
        "foldertree": { try await $0.descendants($1) },
        "parent": { try await $0.parent($1) },
        "parents": { try await $0.parents($1) },
        "content": { try await $0.content($1) },
        "renditions": { try await $0.renditions($1) },
        "policies": { try await $0.policies($1) },
        "acl": { try await $0.acl($1) },
        "versions": { try await $0.versions($1) },
        "relationships": { try await $0.relationships($1) },
        "checkedout": { try await $0.checkedOut(repositoryId: $1.repositoryId, folderId: $1.objectId) },
    ]

    func objectSelector(_ selector: String?, repositoryId: String) async throws -> Response {
        if let selector, Self.objectSelectors[selector] == nil {
            throw CMISError(.invalidArgument, "unknown cmisselector \"\(selector.prefix(60))\" for an object URL")
        }
        let context = try parameters.operationContext()
        var selector = selector
        // The object itself is read once, by id or by path, when it is what is asked for or what decides what is
        // asked for (no selector: a folder lists its children, a document returns its content).
        let returnsThis = (parameters.string("returnVersion") ?? "this") == "this"
        var resolved: CMISObject?
        // Read before the object: an answer computed under it is stale once anything changes meanwhile.
        let generation = service.readGeneration(repositoryId: repositoryId)
        if selector == nil || (returnsThis && (selector == "object" || selector == "properties")) {
            let object = try await targetObject(repositoryId: repositoryId, context: context)
            if selector == nil {
                selector = object.baseType == .folder ? "children" : object.baseType == .document ? "content" : "object"
            }
            resolved = object
        }
        let objectId: String
        if let resolved {
            guard let id = resolved.id else { throw CMISError(.runtime, "the object has no id") }
            objectId = id
        } else {
            objectId = try await targetObjectId(repositoryId: repositoryId)
        }
        let name = selector ?? "object"
        guard let perform = Self.objectSelectors[name] else {
            throw CMISError(.invalidArgument, "unknown cmisselector \"\(name.prefix(60))\" for an object URL")
        }
        return try await perform(
            self,
            ObjectRequest(
                repositoryId: repositoryId, objectId: objectId, selector: name, context: context, resolved: resolved,
                generation: generation))
    }

    // MARK: Object selectors

    /// getObject (`object`), or its properties alone (`properties`); a version other than this one with
    /// `returnVersion`. A plain read of the object is kept in the response cache.
    func objectRead(_ target: ObjectRequest) async throws -> Response {
        let object: CMISObject
        if let resolved = target.resolved {
            object = resolved
        } else {
            object = try await service.objectOfLatestVersion(
                repositoryId: target.repositoryId, objectId: target.objectId,
                major: parameters.string("returnVersion") == "latestmajor", context: target.context, caller: caller)
        }
        if target.selector == "properties" {
            return json { writer in
                if writer.succinct {
                    writer.jsonObject { writer in
                        for property in object.properties {
                            writer.json.writeKey(property.id)
                            writer.values(property.values, cardinality: property.cardinality)
                        }
                    }
                } else {
                    writer.jsonObject { writer in
                        for property in object.properties { writer.key(property.id) { $0.property(property) } }
                    }
                }
            }
        }
        let bytes = jsonBytes { $0.object(object) }
        if let generation = target.generation, let cacheKey, target.resolved != nil, target.selector == "object" {
            environment.responses.insert(
                cacheKey, .init(repositoryId: target.repositoryId, generation: generation, body: bytes))
        }
        return Self.jsonResponse(bytes)
    }

    func allowableActions(_ target: ObjectRequest) async throws -> Response {
        let actions = try await service.allowableActions(
            repositoryId: target.repositoryId, objectId: target.objectId, caller: caller)
        return json { $0.allowableActions(actions) }
    }

    func children(_ target: ObjectRequest) async throws -> Response {
        let list = try await service.children(
            repositoryId: target.repositoryId, folderId: target.objectId, context: target.context,
            maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0, caller: caller)
        return json { $0.children(list) }
    }

    /// getDescendants (two levels by default), or getFolderTree (`foldertree`, every level by default).
    func descendants(_ target: ObjectRequest) async throws -> Response {
        let nodes = try await service.descendants(
            repositoryId: target.repositoryId, folderId: target.objectId,
            depth: try parameters.depth() ?? (target.selector == "descendants" ? 2 : nil),
            foldersOnly: target.selector == "foldertree", context: target.context, caller: caller)
        return json { $0.containers(nodes) }
    }

    func parent(_ target: ObjectRequest) async throws -> Response {
        let parent = try await service.folderParent(
            repositoryId: target.repositoryId, folderId: target.objectId, context: target.context, caller: caller)
        return json { $0.object(parent) }
    }

    func parents(_ target: ObjectRequest) async throws -> Response {
        // getObjectParents names its path-segment switch includeRelativePathSegment.
        var context = target.context
        context.includePathSegment =
            try parameters.bool("includeRelativePathSegment", default: context.includePathSegment)
        let parents = try await service.objectParents(
            repositoryId: target.repositoryId, objectId: target.objectId, context: context, caller: caller)
        return json { $0.parents(parents) }
    }

    /// The content stream, or the rendition stream `streamId` names.
    func content(_ target: ObjectRequest) async throws -> Response {
        let content = try await service.contentStream(
            repositoryId: target.repositoryId, objectId: target.objectId, streamId: parameters.string("streamId"),
            caller: caller)
        return try await contentResponse(content)
    }

    func renditions(_ target: ObjectRequest) async throws -> Response {
        let renditions = try await service.renditions(
            repositoryId: target.repositoryId, objectId: target.objectId,
            filter: parameters.string("renditionFilter"), caller: caller)
        return json { $0.renditions(renditions) }
    }

    func policies(_ target: ObjectRequest) async throws -> Response {
        let policies = try await service.appliedPolicies(
            repositoryId: target.repositoryId, objectId: target.objectId, context: target.context, caller: caller)
        return json { $0.objects(policies) }
    }

    func acl(_ target: ObjectRequest) async throws -> Response {
        let acl = try await service.acl(
            repositoryId: target.repositoryId, objectId: target.objectId,
            onlyBasicPermissions: try parameters.bool("onlyBasicPermissions", default: true), caller: caller)
        return json { $0.acl(acl) }
    }

    func versions(_ target: ObjectRequest) async throws -> Response {
        let versions = try await service.allVersions(
            repositoryId: target.repositoryId, objectId: target.objectId, context: target.context, caller: caller)
        return json { $0.objects(versions) }
    }

    func relationships(_ target: ObjectRequest) async throws -> Response {
        let direction = try RelationshipDirection(rawValue: parameters.string("relationshipDirection") ?? "source")
            .orThrow(CMISError(.invalidArgument, "relationshipDirection must be source, target or either"))
        let list = try await service.objectRelationships(
            repositoryId: target.repositoryId, objectId: target.objectId,
            includeSubRelationshipTypes: try parameters.bool("includeSubRelationshipTypes", default: false),
            direction: direction, typeId: parameters.string("typeId"), context: target.context,
            maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
            caller: caller)
        return json { $0.objectList(list) }
    }
}

extension Optional {
    /// The value, or `error` thrown.
    func orThrow(_ error: CMISError) throws(CMISError) -> Wrapped {
        guard let value = self else { throw error }
        return value
    }
}
