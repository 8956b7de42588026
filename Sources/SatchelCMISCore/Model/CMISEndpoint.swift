public import Foundation

/// A CMIS endpoint a server advertises (CMIS 1.1 endpoint discovery, `cmis-endpoints.json`).
public struct CMISEndpoint: Sendable, Hashable {
    /// A name to show for the endpoint, when the server gave one.
    public var displayName: String?
    /// `atompub`, `browser` or `webservices`.
    public var binding: String
    /// The CMIS version the endpoint speaks (`1.0`, `1.1`), when given.
    public var cmisVersion: String?
    /// The endpoint's URL, as advertised.
    public var url: URL
    /// Authentication types the endpoint accepts (`basic`, `usernameToken` …), best first.
    public var authentication: [String]

    /// An endpoint with this binding and URL; the other values are optional.
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
