public import Foundation

/// What a repository says about itself: identity, capabilities, ACL model and extensions.
///
/// ```swift
/// let infos = try BrowserParser.repositoryInfos(data)
/// let info = infos[0]
/// print(info.id, info.rootFolderId, info.capabilities.query?.rawValue ?? "-")
/// let token = info.extensionValue(named: "token")      // SAP Mobile Documents' XSRF token
/// ```
public struct RepositoryInfo: Sendable, Hashable {
    public var id: String
    public var name: String
    public var description: String?
    public var vendorName: String?
    public var productName: String?
    public var productVersion: String?
    /// The id of the root folder.
    public var rootFolderId: String
    /// The newest change log token, for `getContentChanges`.
    public var latestChangeLogToken: String?
    /// The CMIS version the repository implements (`"1.1"`).
    public var cmisVersionSupported: String?
    public var thinClientURI: String?
    /// Whether the change log may miss events.
    public var changesIncomplete: Bool?
    /// The base types whose changes the change log records.
    public var changesOnType: [BaseTypeId]
    public var capabilities: RepositoryCapabilities
    public var aclCapabilities: ACLCapabilities?
    public var principalIdAnonymous: String?
    public var principalIdAnyone: String?
    /// Extension features the repository declares (CMIS 1.1).
    public var extendedFeatures: [ExtensionFeature]
    /// Browser binding: the URL of the repository's service calls.
    public var repositoryURL: URL?
    /// Browser binding: the URL of the root folder.
    public var rootFolderURL: URL?
    /// Repository-specific data (for SAP Mobile Documents: `myDocuments`, `token`).
    public var extensions: [CMISExtension]

    /// A repository info with the required fields; the rest can be set afterwards.
    public init(
        id: String, name: String, rootFolderId: String, capabilities: RepositoryCapabilities = .init(),
        extensions: [CMISExtension] = []
    ) {
        self.id = id
        self.name = name
        self.rootFolderId = rootFolderId
        self.capabilities = capabilities
        self.extensions = extensions
        changesOnType = []
        extendedFeatures = []
    }

    /// The text of the first extension named `name` (depth-first), or `nil`.
    public func extensionValue(named name: String, namespace: String? = nil) -> String? {
        extensions.first(named: name, namespace: namespace)?.value
    }
}

/// An extension feature a repository declares (`extendedFeatures`).
public struct ExtensionFeature: Sendable, Hashable {
    public var id: String
    public var url: String?
    public var commonName: String?
    public var versionLabel: String?
    public var description: String?

    public init(
        id: String, url: String? = nil, commonName: String? = nil, versionLabel: String? = nil,
        description: String? = nil
    ) {
        self.id = id
        self.url = url
        self.commonName = commonName
        self.versionLabel = versionLabel
        self.description = description
    }
}
