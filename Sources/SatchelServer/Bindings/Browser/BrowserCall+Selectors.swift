import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelJSON

extension BrowserCall {
    static let repositorySelectors: Set<String> = [
        "repositoryinfo", "typechildren", "typedescendants", "typedefinition", "query", "checkedout",
        "contentchanges",
    ]

    /// A GET: the service document, a repository selector, or an object selector.
    func performSelector() async throws -> Response {
        guard let repository else {
            let infos = try await service.repositoryInfos(caller: caller)
            return json { $0.repositoryInfos(infos, baseURL: serviceURL) }
        }
        let selector = parameters.string("cmisselector")?.lowercased()
        if objectPath == nil && parameters.string("objectId") == nil {
            return try await repositorySelector(selector ?? "repositoryinfo", repositoryId: repository)
        }
        if let selector, Self.repositorySelectors.contains(selector), selector != "checkedout" {
            return try await repositorySelector(selector, repositoryId: repository)
        }
        return try await objectSelector(selector, repositoryId: repository)
    }

    func repositorySelector(_ selector: String, repositoryId: String) async throws -> Response {
        switch selector {
        case "repositoryinfo":
            let info = try await service.repositoryInfo(repositoryId: repositoryId, caller: caller)
            return json { writer in
                writer.jsonObject { writer in
                    writer.key(info.id) { $0.repositoryInfo(info, baseURL: serviceURL) }
                }
            }
        case "typechildren":
            let page = try await service.typeChildren(
                repositoryId: repositoryId, typeId: parameters.string("typeId"),
                includePropertyDefinitions: try parameters.bool("includePropertyDefinitions", default: false),
                maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
                caller: caller)
            return json { $0.typeList(page.types, hasMoreItems: page.hasMoreItems, numItems: page.numItems) }
        case "typedescendants":
            let tree = try await service.typeDescendants(
                repositoryId: repositoryId, typeId: parameters.string("typeId"), depth: try parameters.depth(),
                includePropertyDefinitions: try parameters.bool("includePropertyDefinitions", default: false),
                caller: caller)
            return json { $0.typeTree(tree) }
        case "typedefinition":
            guard let typeId = parameters.string("typeId") else {
                throw CMISError(.invalidArgument, "typeDefinition needs the typeId parameter")
            }
            let type = try await service.typeDefinition(repositoryId: repositoryId, typeId: typeId, caller: caller)
            return json { $0.typeDefinition(type) }
        case "query":
            return try await query(repositoryId: repositoryId)
        case "checkedout":
            let list = try await service.checkedOutDocuments(
                repositoryId: repositoryId, folderId: nil, context: try parameters.operationContext(),
                maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
                caller: caller)
            return json { $0.objectList(list) }
        case "contentchanges":
            let changes = try await service.contentChanges(
                repositoryId: repositoryId, changeLogToken: parameters.string("changeLogToken"),
                includeProperties: try parameters.bool("includeProperties", default: false),
                includePolicyIds: try parameters.bool("includePolicyIds", default: false),
                includeACL: try parameters.bool("includeACL", default: false), maxItems: try parameters.int("maxItems"),
                caller: caller)
            return json { $0.contentChanges(changes) }
        default:
            throw CMISError(.invalidArgument, "unknown cmisselector \"\(selector.prefix(60))\" for a repository URL")
        }
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

    func objectSelector(_ selector: String?, repositoryId: String) async throws -> Response {
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
        switch selector ?? "object" {
        case "object", "properties":
            let object: CMISObject
            if let resolved {
                object = resolved
            } else {
                object = try await service.objectOfLatestVersion(
                    repositoryId: repositoryId, objectId: objectId,
                    major: parameters.string("returnVersion") == "latestmajor", context: context, caller: caller)
            }
            if selector == "properties" {
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
            if let generation, let cacheKey, resolved != nil, selector == "object" {
                environment.responses.insert(
                    cacheKey, .init(repositoryId: repositoryId, generation: generation, body: bytes))
            }
            return Self.jsonResponse(bytes)
        case "allowableactions":
            let actions = try await service.allowableActions(
                repositoryId: repositoryId, objectId: objectId, caller: caller)
            return json { $0.allowableActions(actions) }
        case "children":
            let list = try await service.children(
                repositoryId: repositoryId, folderId: objectId, context: context,
                maxItems: try parameters.int("maxItems"),
                skipCount: try parameters.int("skipCount") ?? 0, caller: caller)
            return json { $0.children(list) }
        case "descendants", "foldertree":
            let nodes = try await service.descendants(
                repositoryId: repositoryId, folderId: objectId,
                depth: try parameters.depth() ?? (selector == "descendants" ? 2 : nil),
                foldersOnly: selector == "foldertree", context: context, caller: caller)
            return json { $0.containers(nodes) }
        case "parent":
            let parent = try await service.folderParent(
                repositoryId: repositoryId, folderId: objectId, context: context, caller: caller)
            return json { $0.object(parent) }
        case "parents":
            // getObjectParents names its path-segment switch includeRelativePathSegment.
            var context = context
            context.includePathSegment =
                try parameters.bool("includeRelativePathSegment", default: context.includePathSegment)
            let parents = try await service.objectParents(
                repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
            return json { $0.parents(parents) }
        case "content":
            let content = try await service.contentStream(
                repositoryId: repositoryId, objectId: objectId, streamId: parameters.string("streamId"), caller: caller)
            return try await contentResponse(content)
        case "renditions":
            let renditions = try await service.renditions(
                repositoryId: repositoryId, objectId: objectId, filter: parameters.string("renditionFilter"),
                caller: caller)
            return json { $0.renditions(renditions) }
        case "policies":
            let policies = try await service.appliedPolicies(
                repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
            return json { $0.objects(policies) }
        case "acl":
            let acl = try await service.acl(
                repositoryId: repositoryId, objectId: objectId,
                onlyBasicPermissions: try parameters.bool("onlyBasicPermissions", default: true), caller: caller)
            return json { $0.acl(acl) }
        case "versions":
            let versions = try await service.allVersions(
                repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
            return json { $0.objects(versions) }
        case "relationships":
            let direction = try RelationshipDirection(rawValue: parameters.string("relationshipDirection") ?? "source")
                .orThrow(CMISError(.invalidArgument, "relationshipDirection must be source, target or either"))
            let list = try await service.objectRelationships(
                repositoryId: repositoryId, objectId: objectId,
                includeSubRelationshipTypes: try parameters.bool("includeSubRelationshipTypes", default: false),
                direction: direction, typeId: parameters.string("typeId"), context: context,
                maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
                caller: caller)
            return json { $0.objectList(list) }
        case "checkedout":
            let list = try await service.checkedOutDocuments(
                repositoryId: repositoryId, folderId: objectId, context: context,
                maxItems: try parameters.int("maxItems"), skipCount: try parameters.int("skipCount") ?? 0,
                caller: caller)
            return json { $0.objectList(list) }
        case let other:
            throw CMISError(.invalidArgument, "unknown cmisselector \"\(other.prefix(60))\" for an object URL")
        }
    }
}

extension Optional {
    /// The value, or `error` thrown.
    func orThrow(_ error: CMISError) throws(CMISError) -> Wrapped {
        guard let value = self else { throw error }
        return value
    }
}
