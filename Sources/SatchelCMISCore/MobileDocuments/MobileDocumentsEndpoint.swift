public import Foundation

/// SAP Mobile Documents conventions: where its CMIS endpoints live, and the repository-info extensions it adds.
///
/// ```swift
/// MobileDocuments.endpoint(for: URL(string: "https://mobiledocs.example.com")!, binding: .atomPub)
/// // https://mobiledocs.example.com/mcm/b/atom
/// MobileDocuments.endpoint(for: URL(string: "https://host/mcm")!, binding: .browser)
/// // https://host/mcm/b/json
/// ```
public enum MobileDocuments {
    /// The namespace of the `myDocuments` and `token` extension elements.
    public static let namespace = "http://www.sap.com/mcm"
    /// The repository-info extension whose value is the id of the user's MyDocuments root folder.
    public static let myDocumentsExtension = "myDocuments"
    /// The repository-info extension that carries the XSRF token to send back on every request.
    public static let tokenExtension = "token"
    /// The MIME type of the Notes app's documents.
    public static let noteMimeType = "application/vnd.sap.note"

    /// The two CMIS bindings a Mobile Documents server offers.
    public enum Binding: String, Sendable, Hashable, CaseIterable {
        /// The AtomPub binding; the raw value `atom` is the last path segment of its endpoint.
        case atomPub = "atom"
        /// The Browser (JSON) binding; the raw value `json` is the last path segment of its endpoint.
        case browser = "json"
    }

    /// Completes a server URL the way the Mobile Documents clients do: a URL without a path gets `mcm/b/atom`
    /// (`mcm/b/json` for the Browser binding); one that ends in `mcm` gets `b/atom` (`b/json`); any other URL is
    /// taken as the endpoint itself.
    public static func endpoint(for url: URL, binding: Binding) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.isEmpty {
            components.path = "/mcm/b/\(binding.rawValue)"
        } else if path.split(separator: "/").last == "mcm" {
            components.path = "\(path)/b/\(binding.rawValue)"
        } else {
            return url
        }
        return components.url ?? url
    }
}
