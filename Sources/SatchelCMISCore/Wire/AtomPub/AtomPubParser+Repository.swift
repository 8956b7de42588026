public import Foundation
import SatchelXML

extension AtomPubParser {
    /// The `app:service` document: one workspace per repository.
    public static func serviceDocument(_ data: Data) throws -> AtomPubServiceDocument {
        let service = try root(data, expecting: [("service", app)])
        return AtomPubServiceDocument(
            workspaces: try service.children("workspace", namespace: app).enumerated().map { index, workspace in
                try self.workspace(from: workspace, path: "/app:service/app:workspace[\(index + 1)]")
            })
    }

    /// The repository infos of a service document.
    public static func repositoryInfos(_ data: Data) throws -> [RepositoryInfo] {
        try serviceDocument(data).repositoryInfos
    }

    /// A bare `cmisra:repositoryInfo` element (as some servers embed it), or the first workspace's of a
    /// service document.
    public static func repositoryInfo(_ data: Data) throws -> RepositoryInfo {
        let element = try root(data, expecting: [("repositoryInfo", cmisra), ("service", app)])
        if element.name == "repositoryInfo" { return try repositoryInfo(from: element, path: "/cmisra:repositoryInfo") }
        guard let workspace = element.child("workspace", namespace: app) else {
            throw CMISError(.objectNotFound, "the service document has no workspace", path: "/app:service")
        }
        return try self.workspace(from: workspace, path: "/app:service/app:workspace[1]").repositoryInfo
    }

    static func workspace(from element: XElement, path: String) throws -> AtomPubWorkspace {
        guard let info = element.child("repositoryInfo", namespace: cmisra) else {
            throw missing("cmisra:repositoryInfo", in: path)
        }
        return AtomPubWorkspace(
            title: element.child("title", namespace: atom)?.trimmedText,
            repositoryInfo: try repositoryInfo(from: info, path: path + "/cmisra:repositoryInfo"),
            collections: element.children("collection", namespace: app).compactMap { collection in
                guard let href = collection.attribute("href") else { return nil }
                return AtomPubCollection(
                    collectionType: text(collection, "collectionType", cmisra), href: href,
                    title: collection.child("title", namespace: atom)?.trimmedText,
                    accept: texts(collection, "accept", app).filter { !$0.isEmpty })
            },
            uriTemplates: element.children("uritemplate", namespace: cmisra).compactMap { template in
                guard let type = text(template, "type", cmisra), let url = text(template, "template", cmisra) else {
                    return nil
                }
                return AtomPubURITemplate(type: type, template: url, mediaType: text(template, "mediatype", cmisra))
            },
            links: links(of: element))
    }

    static func repositoryInfo(from element: XElement, path: String) throws -> RepositoryInfo {
        guard let id = text(element, "repositoryId") else { throw missing("cmis:repositoryId", in: path) }
        guard let rootFolderId = text(element, "rootFolderId") else { throw missing("cmis:rootFolderId", in: path) }
        var info = RepositoryInfo(
            id: id, name: text(element, "repositoryName") ?? "", rootFolderId: rootFolderId,
            capabilities: try element.child("capabilities", namespace: cmis).map {
                try capabilities(from: $0, path: path + "/cmis:capabilities")
            } ?? RepositoryCapabilities(),
            extensions: extensions(of: element))
        info.description = text(element, "repositoryDescription")
        info.vendorName = text(element, "vendorName")
        info.productName = text(element, "productName")
        info.productVersion = text(element, "productVersion")
        info.latestChangeLogToken = text(element, "latestChangeLogToken")
        info.cmisVersionSupported = text(element, "cmisVersionSupported")
        info.thinClientURI = text(element, "thinClientURI")
        info.changesIncomplete = try bool(element, "changesIncomplete", path: path)
        info.changesOnType = texts(element, "changesOnType").compactMap(BaseTypeId.init(rawValue:))
        info.aclCapabilities = element.child("aclCapability", namespace: cmis).map(aclCapabilities)
        info.principalIdAnonymous = text(element, "principalAnonymous")
        info.principalIdAnyone = text(element, "principalAnyone")
        info.extendedFeatures = element.children("extendedFeatures", namespace: cmis).compactMap { feature in
            guard let id = text(feature, "id") else { return nil }
            return ExtensionFeature(
                id: id, url: text(feature, "url"), commonName: text(feature, "commonName"),
                versionLabel: text(feature, "versionLabel"), description: text(feature, "description"))
        }
        return info
    }

    static func capabilities(from element: XElement, path: String) throws -> RepositoryCapabilities {
        var caps = RepositoryCapabilities()
        caps.contentStreamUpdatability = capability(element, "capabilityContentStreamUpdatability")
        caps.changes = capability(element, "capabilityChanges")
        caps.renditions = capability(element, "capabilityRenditions")
        caps.getDescendants = try bool(element, "capabilityGetDescendants", path: path)
        caps.getFolderTree = try bool(element, "capabilityGetFolderTree", path: path)
        caps.orderBy = capability(element, "capabilityOrderBy")
        caps.multifiling = try bool(element, "capabilityMultifiling", path: path)
        caps.unfiling = try bool(element, "capabilityUnfiling", path: path)
        caps.versionSpecificFiling = try bool(element, "capabilityVersionSpecificFiling", path: path)
        caps.pwcSearchable = try bool(element, "capabilityPWCSearchable", path: path)
        caps.pwcUpdatable = try bool(element, "capabilityPWCUpdatable", path: path)
        caps.allVersionsSearchable = try bool(element, "capabilityAllVersionsSearchable", path: path)
        caps.query = capability(element, "capabilityQuery")
        caps.join = capability(element, "capabilityJoin")
        caps.acl = capability(element, "capabilityACL")
        if let creatable = element.child("capabilityCreatablePropertyTypes", namespace: cmis) {
            caps.creatablePropertyTypes = texts(creatable, "canCreate").compactMap(PropertyType.init(rawValue:))
        }
        if let settable = element.child("capabilityNewTypeSettableAttributes", namespace: cmis) {
            let settablePath = path + "/cmis:capabilityNewTypeSettableAttributes"
            var attributes = NewTypeSettableAttributes()
            attributes.id = try bool(settable, "id", path: settablePath)
            attributes.localName = try bool(settable, "localName", path: settablePath)
            attributes.localNamespace = try bool(settable, "localNamespace", path: settablePath)
            attributes.displayName = try bool(settable, "displayName", path: settablePath)
            attributes.queryName = try bool(settable, "queryName", path: settablePath)
            attributes.description = try bool(settable, "description", path: settablePath)
            attributes.creatable = try bool(settable, "creatable", path: settablePath)
            attributes.fileable = try bool(settable, "fileable", path: settablePath)
            attributes.queryable = try bool(settable, "queryable", path: settablePath)
            attributes.fulltextIndexed = try bool(settable, "fulltextIndexed", path: settablePath)
            attributes.includedInSupertypeQuery = try bool(settable, "includedInSupertypeQuery", path: settablePath)
            attributes.controllablePolicy = try bool(settable, "controllablePolicy", path: settablePath)
            attributes.controllableACL = try bool(settable, "controllableACL", path: settablePath)
            caps.newTypeSettableAttributes = attributes
        }
        return caps
    }

    static func aclCapabilities(from element: XElement) -> ACLCapabilities {
        ACLCapabilities(
            supportedPermissions: capability(element, "supportedPermissions"),
            propagation: capability(element, "propagation"),
            permissions: element.children("permissions", namespace: cmis).compactMap { entry in
                text(entry, "permission").map {
                    PermissionDefinition(permission: $0, description: text(entry, "description"))
                }
            },
            permissionMapping: element.children("mapping", namespace: cmis).compactMap { entry in
                text(entry, "key").map { PermissionMapping(key: $0, permissions: texts(entry, "permission")) }
            })
    }
}
