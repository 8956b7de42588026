public import Foundation

/// A CMIS endpoint a server advertises (CMIS 1.1 endpoint discovery, `cmis-endpoints.json`).
public struct CMISEndpoint: Sendable, Hashable {
    public var displayName: String?
    /// `atompub`, `browser` or `webservices`.
    public var binding: String
    public var cmisVersion: String?
    public var url: URL
    /// Authentication types the endpoint accepts (`basic`, `usernameToken` …), best first.
    public var authentication: [String]

    public init(
        binding: String, url: URL, cmisVersion: String? = nil, displayName: String? = nil,
        authentication: [String] = []
    ) {
        self.binding = binding
        self.url = url
        self.cmisVersion = cmisVersion
        self.displayName = displayName
        self.authentication = authentication
    }
}
