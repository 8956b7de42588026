import Foundation
import SatchelJSON

extension BrowserJSONWriter {
    /// The service document: `{"<id>": {repositoryInfo}, …}`, each with its `repositoryUrl` and `rootFolderUrl`
    /// under `baseURL` (the binding's service URL).
    public mutating func repositoryInfos(_ infos: [RepositoryInfo], baseURL: String) {
        jsonObject { writer in
            for info in infos {
                writer.key(info.id) { $0.repositoryInfo(info, baseURL: baseURL) }
            }
        }
    }

    /// One repository's info; `baseURL` (the binding's service URL) gives its `repositoryUrl` and `rootFolderUrl`.
    public mutating func repositoryInfo(_ info: RepositoryInfo, baseURL: String?) {
        jsonObject { writer in
            writer.json.write(key: "repositoryId", info.id)
            writer.json.write(key: "repositoryName", info.name)
            writer.optional("repositoryDescription", info.description)
            writer.optional("vendorName", info.vendorName)
            writer.optional("productName", info.productName)
            writer.optional("productVersion", info.productVersion)
            writer.json.write(key: "rootFolderId", info.rootFolderId)
            writer.optional("latestChangeLogToken", info.latestChangeLogToken)
            writer.json.write(key: "cmisVersionSupported", info.cmisVersionSupported ?? "1.1")
            writer.optional("thinClientURI", info.thinClientURI)
            writer.optional("changesIncomplete", info.changesIncomplete)
            writer.strings("changesOnType", info.changesOnType.map(\.rawValue))
            writer.key("capabilities") { $0.capabilities(info.capabilities) }
            if let acl = info.aclCapabilities {
                writer.key("aclCapabilities") { $0.aclCapabilities(acl) }
            }
            writer.optional("principalIdAnonymous", info.principalIdAnonymous)
            writer.optional("principalIdAnyone", info.principalIdAnyone)
            if !info.extendedFeatures.isEmpty {
                writer.key("extendedFeatures") { writer in
                    writer.jsonArray { writer in
                        for feature in info.extendedFeatures {
                            writer.jsonObject { writer in
                                writer.json.write(key: "id", feature.id)
                                writer.optional("url", feature.url)
                                writer.optional("commonName", feature.commonName)
                                writer.optional("versionLabel", feature.versionLabel)
                                writer.optional("description", feature.description)
                            }
                        }
                    }
                }
            }
            if let baseURL {
                let repository = baseURL + "/" + BrowserPath.escape(info.id)
                writer.json.write(key: "repositoryUrl", repository)
                writer.json.write(key: "rootFolderUrl", repository + "/root")
            } else {
                writer.optional("repositoryUrl", info.repositoryURL?.absoluteString)
                writer.optional("rootFolderUrl", info.rootFolderURL?.absoluteString)
            }
            writer.extensions(info.extensions, excluding: Self.repositoryKeys)
        }
    }

    static let repositoryKeys: Set<String> = [
        "repositoryId", "repositoryName", "repositoryDescription", "vendorName", "productName", "productVersion",
        "rootFolderId", "latestChangeLogToken", "cmisVersionSupported", "thinClientURI", "changesIncomplete",
        "changesOnType", "capabilities", "aclCapabilities", "principalIdAnonymous", "principalIdAnyone",
        "extendedFeatures", "repositoryUrl", "rootFolderUrl",
    ]

    mutating func capabilities(_ caps: RepositoryCapabilities) {
        jsonObject { writer in
            writer.optional("capabilityContentStreamUpdatability", caps.contentStreamUpdatability?.rawValue)
            writer.optional("capabilityChanges", caps.changes?.rawValue)
            writer.optional("capabilityRenditions", caps.renditions?.rawValue)
            writer.optional("capabilityGetDescendants", caps.getDescendants)
            writer.optional("capabilityGetFolderTree", caps.getFolderTree)
            writer.optional("capabilityOrderBy", caps.orderBy?.rawValue)
            writer.optional("capabilityMultifiling", caps.multifiling)
            writer.optional("capabilityUnfiling", caps.unfiling)
            writer.optional("capabilityVersionSpecificFiling", caps.versionSpecificFiling)
            writer.optional("capabilityPWCSearchable", caps.pwcSearchable)
            writer.optional("capabilityPWCUpdatable", caps.pwcUpdatable)
            writer.optional("capabilityAllVersionsSearchable", caps.allVersionsSearchable)
            writer.optional("capabilityQuery", caps.query?.rawValue)
            writer.optional("capabilityJoin", caps.join?.rawValue)
            writer.optional("capabilityACL", caps.acl?.rawValue)
            if let creatable = caps.creatablePropertyTypes {
                writer.key("capabilityCreatablePropertyTypes") { writer in
                    writer.jsonObject { $0.strings("canCreate", creatable.map(\.rawValue)) }
                }
            }
            if let settable = caps.newTypeSettableAttributes {
                writer.key("capabilityNewTypeSettableAttributes") { writer in
                    writer.jsonObject { writer in
                        writer.optional("id", settable.id)
                        writer.optional("localName", settable.localName)
                        writer.optional("localNamespace", settable.localNamespace)
                        writer.optional("displayName", settable.displayName)
                        writer.optional("queryName", settable.queryName)
                        writer.optional("description", settable.description)
                        writer.optional("creatable", settable.creatable)
                        writer.optional("fileable", settable.fileable)
                        writer.optional("queryable", settable.queryable)
                        writer.optional("fulltextIndexed", settable.fulltextIndexed)
                        writer.optional("includedInSupertypeQuery", settable.includedInSupertypeQuery)
                        writer.optional("controllablePolicy", settable.controllablePolicy)
                        writer.optional("controllableACL", settable.controllableACL)
                    }
                }
            }
        }
    }

    mutating func aclCapabilities(_ acl: ACLCapabilities) {
        jsonObject { writer in
            writer.optional("supportedPermissions", acl.supportedPermissions?.rawValue)
            writer.optional("propagation", acl.propagation?.rawValue)
            writer.key("permissions") { writer in
                writer.jsonArray { writer in
                    for permission in acl.permissions {
                        writer.jsonObject { writer in
                            writer.json.write(key: "permission", permission.permission)
                            writer.optional("description", permission.description)
                        }
                    }
                }
            }
            writer.key("permissionMapping") { writer in
                writer.jsonArray { writer in
                    for mapping in acl.permissionMapping {
                        writer.jsonObject { writer in
                            writer.json.write(key: "key", mapping.key)
                            writer.strings("permission", mapping.permissions)
                        }
                    }
                }
            }
        }
    }
}

/// Path segments in Browser binding URLs.
package enum BrowserPath {
    /// Percent-escapes a path segment (repository ids, folder names).
    package static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
