/// Where each binding lives on the server.
public enum MountPoints {
    /// Browser binding, SAP Mobile Documents path.
    public static let mobileDocumentsBrowser = "/mcm/b/json"
    /// AtomPub binding, SAP Mobile Documents path.
    public static let mobileDocumentsAtom = "/mcm/b/atom"
    /// Browser binding, plain CMIS path.
    public static let cmisBrowser = "/cmis/browser"
    /// AtomPub binding, plain CMIS path.
    public static let cmisAtom = "/cmis/atom"
    /// The Browser binding mount points.
    public static let browser = [mobileDocumentsBrowser, cmisBrowser]
    /// The AtomPub binding mount points.
    public static let atom = [mobileDocumentsAtom, cmisAtom]
    /// Paths under these prefixes need an authenticated caller (401 with a Basic challenge otherwise).
    public static let protectedPrefixes = ["/mcm/", "/cmis/", "/nuxeo/", "/offline/"]

    /// Whether `path` needs authentication.
    public static func isProtected(_ path: String) -> Bool {
        protectedPrefixes.contains { path.hasPrefix($0) } || path == "/mcm" || path == "/cmis" || path == "/nuxeo"
            || path == "/offline"
    }
}
