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
    /// The repository id, used in every request.
    public var id: String
    /// The repository's name.
    public var name: String
    /// A description of the repository, when given.
    public var description: String?
    /// The vendor of the repository software, when given.
    public var vendorName: String?
    /// The repository software's name, when given.
    public var productName: String?
    /// The repository software's version, when given.
    public var productVersion: String?
    /// The id of the root folder.
    public var rootFolderId: String
    /// The newest change log token, for `getContentChanges`.
    public var latestChangeLogToken: String?
    /// The CMIS version the repository implements (`"1.1"`).
    public var cmisVersionSupported: String?
    /// The URI of a web client for the repository, when it has one.
    public var thinClientURI: String?
    /// Whether the change log may miss events.
    public var changesIncomplete: Bool?
    /// The base types whose changes the change log records.
    public var changesOnType: [BaseTypeId]
    /// The optional features the repository supports.
    public var capabilities: RepositoryCapabilities
    /// How the repository models permissions; `nil` when not reported.
    public var aclCapabilities: ACLCapabilities?
    /// The principal id that stands for unauthenticated users, when the repository has one.
    public var principalIdAnonymous: String?
    /// The principal id that stands for every user, when the repository has one.
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
    /// The feature's id (usually a URI).
    public var id: String
    /// Where the feature is described, when given.
    public var url: String?
    /// The feature's common name, when given.
    public var commonName: String?
    /// The feature's version, when given.
    public var versionLabel: String?
    /// What the feature does, when given.
    public var description: String?

    /// A feature with this id; the other values are optional.
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
