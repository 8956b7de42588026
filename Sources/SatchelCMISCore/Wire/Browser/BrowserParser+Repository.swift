public import Foundation
import SatchelJSON

extension BrowserParser {
    /// The repositories of a service document: `{ "A1": {repositoryInfo}, … }`, in document order.
    ///
    /// ```swift
    /// let infos = try BrowserParser.repositoryInfos(data)   // GET <browser URL>
    /// ```
    public static func repositoryInfos(_ data: Data) throws -> [RepositoryInfo] {
        try BrowserJSON.parse(data).members().map { try repositoryInfo(from: $0.value) }
    }

    /// One repository's info. The Browser binding wraps it like the service document (`{ "A1": {…} }`);
    /// a bare repository-info object is accepted too. With `id`, picks that repository.
    public static func repositoryInfo(_ data: Data, id: String? = nil) throws -> RepositoryInfo {
        let json = try BrowserJSON.parse(data)
        if json["repositoryId"] != nil { return try repositoryInfo(from: json) }
        let members = try json.members()
        guard let member = id.map({ id in members.first { $0.key == id } }) ?? members.first else {
            throw CMISError(.objectNotFound, "the response has no repository \(id ?? "")", path: "$")
        }
        return try repositoryInfo(from: member.value)
    }

    static let repositoryInfoKeys: Set<String> = [
        "repositoryId", "repositoryName", "repositoryDescription", "vendorName", "productName", "productVersion",
        "rootFolderId", "latestChangeLogToken", "cmisVersionSupported", "thinClientURI", "changesIncomplete",
        "changesOnType", "capabilities", "aclCapabilities", "principalIdAnonymous", "principalIdAnyone",
        "extendedFeatures", "repositoryUrl", "rootFolderUrl",
    ]

    static func repositoryInfo(from json: BrowserJSON) throws -> RepositoryInfo {
        _ = try json.object()
        var info = RepositoryInfo(
            id: try json.require("repositoryId").string(),
            name: try json.string("repositoryName") ?? "",
            rootFolderId: try json.require("rootFolderId").string(),
            capabilities: try json["capabilities"].map(capabilities) ?? RepositoryCapabilities(),
            extensions: try extensions(of: json, excluding: repositoryInfoKeys)
        )
        info.description = try json.string("repositoryDescription")
        info.vendorName = try json.string("vendorName")
        info.productName = try json.string("productName")
        info.productVersion = try json.string("productVersion")
        info.latestChangeLogToken = try json.string("latestChangeLogToken")
        info.cmisVersionSupported = try json.string("cmisVersionSupported")
        info.thinClientURI = try json.string("thinClientURI")
        info.changesIncomplete = try json.bool("changesIncomplete")
        info.changesOnType = try (json.strings("changesOnType") ?? []).compactMap(BaseTypeId.init(rawValue:))
        info.aclCapabilities = try json["aclCapabilities"].map(aclCapabilities)
        info.principalIdAnonymous = try json.string("principalIdAnonymous")
        info.principalIdAnyone = try json.string("principalIdAnyone")
        info.extendedFeatures =
            try json["extendedFeatures"]?.array().map { feature in
                ExtensionFeature(
                    id: try feature.require("id").string(), url: try feature.string("url"),
                    commonName: try feature.string("commonName"), versionLabel: try feature.string("versionLabel"),
                    description: try feature.string("description"))
            } ?? []
        info.repositoryURL = try json.url("repositoryUrl")
        info.rootFolderURL = try json.url("rootFolderUrl")
        return info
    }

    static func capabilities(from json: BrowserJSON) throws -> RepositoryCapabilities {
        var caps = RepositoryCapabilities()
        caps.contentStreamUpdatability = try json.capability("capabilityContentStreamUpdatability")
        caps.changes = try json.capability("capabilityChanges")
        caps.renditions = try json.capability("capabilityRenditions")
        caps.getDescendants = try json.bool("capabilityGetDescendants")
        caps.getFolderTree = try json.bool("capabilityGetFolderTree")
        caps.orderBy = try json.capability("capabilityOrderBy")
        caps.multifiling = try json.bool("capabilityMultifiling")
        caps.unfiling = try json.bool("capabilityUnfiling")
        caps.versionSpecificFiling = try json.bool("capabilityVersionSpecificFiling")
        caps.pwcSearchable = try json.bool("capabilityPWCSearchable")
        caps.pwcUpdatable = try json.bool("capabilityPWCUpdatable")
        caps.allVersionsSearchable = try json.bool("capabilityAllVersionsSearchable")
        caps.query = try json.capability("capabilityQuery")
        caps.join = try json.capability("capabilityJoin")
        caps.acl = try json.capability("capabilityACL")
        if let creatable = json["capabilityCreatablePropertyTypes"] {
            caps.creatablePropertyTypes = try (creatable.strings("canCreate") ?? [])
                .compactMap(PropertyType.init(rawValue:))
        }
        if let settable = json["capabilityNewTypeSettableAttributes"] {
            var attributes = NewTypeSettableAttributes()
            attributes.id = try settable.bool("id")
            attributes.localName = try settable.bool("localName")
            attributes.localNamespace = try settable.bool("localNamespace")
            attributes.displayName = try settable.bool("displayName")
            attributes.queryName = try settable.bool("queryName")
            attributes.description = try settable.bool("description")
            attributes.creatable = try settable.bool("creatable")
            attributes.fileable = try settable.bool("fileable")
            attributes.queryable = try settable.bool("queryable")
            attributes.fulltextIndexed = try settable.bool("fulltextIndexed")
            attributes.includedInSupertypeQuery = try settable.bool("includedInSupertypeQuery")
            attributes.controllablePolicy = try settable.bool("controllablePolicy")
            attributes.controllableACL = try settable.bool("controllableACL")
            caps.newTypeSettableAttributes = attributes
        }
        return caps
    }

    static func aclCapabilities(from json: BrowserJSON) throws -> ACLCapabilities {
        ACLCapabilities(
            supportedPermissions: try json.capability("supportedPermissions"),
            propagation: try json.capability("propagation"),
            permissions: try json["permissions"]?.array().map { entry in
                PermissionDefinition(
                    permission: try entry.require("permission").string(), description: try entry.string("description"))
            } ?? [],
            permissionMapping: try json["permissionMapping"]?.array().map { entry in
                PermissionMapping(
                    key: try entry.require("key").string(), permissions: try entry.strings("permission") ?? [])
            } ?? []
        )
    }

    /// The endpoints of a CMIS endpoint-discovery document (`{"endpoints":[…]}`).
    public static func endpoints(_ data: Data) throws -> [CMISEndpoint] {
        try BrowserJSON.parse(data).require("endpoints").array().map { entry in
            let text = try entry.require("url").string()
            // Some servers pad the URL with whitespace (OpenCMIS does for its WSDL URLs).
            guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)) else {
                throw CMISError(.invalidResponse, "invalid endpoint URL \"\(text)\"", path: entry.path)
            }
            return CMISEndpoint(
                binding: try entry.require("binding").string(), url: url, cmisVersion: try entry.string("cmisVersion"),
                displayName: try entry.string("displayName"),
                authentication: try entry["authentication"]?.array().map { try $0.require("type").string() } ?? [])
        }
    }
}
