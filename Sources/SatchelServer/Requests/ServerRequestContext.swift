public import Hummingbird
public import NIOCore
public import SatchelCMISCore
public import SatchelRepository
public import SatchelOfflineServer

/// The per-request context of every route: Hummingbird's core storage plus who is calling.
///
/// The authentication middleware (`Auth/`) fills ``caller`` and ``authenticatedByCookie`` before any binding
/// route runs; a binding route that finds no caller answers 401.
public struct ServerRequestContext: RequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The authenticated user and the XSRF token of their session.
    public var caller: CallerContext?
    /// True when the caller was recognised by a session cookie (form login), which is what XSRF protects.
    public var authenticatedByCookie: Bool
    /// The token the caller was recognised by (`X-Authentication-Token`), if that is how.
    public var accessToken: AccessTokens.Grant?
    /// The address of the connection's other end (a client, or a proxy in front of the server).
    public var remoteAddress: SocketAddress?
    /// True when that end is a trusted proxy, whose forwarded headers count (``TrustedProxies``).
    public var trustsForwardedHeaders: Bool
    /// True when the request came over TLS (`satchel serve --tls-cert`): URLs in answers say `https`, and
    /// session cookies are `Secure`.
    public var isSecure: Bool

    /// A context with no caller yet, the connection's remote address, and no trust or TLS (the middleware sets them).
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        caller = nil
        authenticatedByCookie = false
        accessToken = nil
        remoteAddress = source.channel.remoteAddress
        trustsForwardedHeaders = false
        isSecure = false
    }
}

/// When a change needs the XSRF token.
public enum XSRFPolicy: String, Sendable, Hashable, CaseIterable {
    /// Always: every change, in every repository, whatever the authentication.
    case strict
    /// The SAP Mobile Documents contract: changes in a MyDocuments repository, and every change made by a
    /// cookie session. Plain CMIS clients using Basic auth on the shared repository (which cannot know the SAP
    /// `token` extension) don't need it.
    case standard
}

/// Limits on what a request may carry; exceeding one answers 400 or 413 with a clear CMIS error.
public struct RequestLimits: Sendable, Hashable {
    /// Largest content stream accepted in one request.
    public var maxContentBytes: Int64
    /// Largest request body that is not content (forms, Atom entries, JSON).
    public var maxMetadataBytes: Int
    /// Most properties one AtomPub entry may carry; also most objects a Browser binding bulk update may name.
    public var maxProperties: Int
    /// Longest property value (in UTF-8 bytes) an AtomPub entry may carry.
    public var maxPropertyValueBytes: Int
    /// Most fields a Browser binding query string or form may carry; also most objects an AtomPub bulk update may name.
    public var maxFormFields: Int

    /// Limits whose defaults are: content of 8 GiB, other bodies of 4 MiB, 1,000 properties, values of 1 MiB and 4,000
    /// form fields.
    public init(
        maxContentBytes: Int64 = 8 << 30, maxMetadataBytes: Int = 4 << 20, maxProperties: Int = 1_000,
        maxPropertyValueBytes: Int = 1 << 20, maxFormFields: Int = 4_000
    ) {
        self.maxContentBytes = maxContentBytes
        self.maxMetadataBytes = maxMetadataBytes
        self.maxProperties = maxProperties
        self.maxPropertyValueBytes = maxPropertyValueBytes
        self.maxFormFields = maxFormFields
    }
}

/// What a binding's routes need: the CMIS services, the blob store for uploads, limits and policies.
public struct BindingEnvironment: Sendable {
    /// The CMIS service of each repository (the local engine's for all, or a gateway's mounts beside it): a binding
    /// resolves its request's repository once and calls what it gets.
    public var repositories: any CMISServiceResolver
    /// Where uploaded content is written before the service sees it.
    public var blobs: BlobStore
    /// Limits on what one request may carry.
    public var limits: RequestLimits
    /// When a change needs the XSRF token.
    public var xsrfPolicy: XSRFPolicy
    /// Header that carries the XSRF token (the Browser binding also accepts the `token` form field).
    public var xsrfHeader: String
    /// Leave `capabilityCreatablePropertyTypes` and `capabilityNewTypeSettableAttributes` out of AtomPub
    /// repository info: cmislib 0.7.0 fails on them.
    public var omitNewTypeCapabilities: Bool
    /// Rendered object reads, kept while their repository is unchanged (``ResponseCache``).
    let responses = ResponseCache()
    /// Nuxeo's locks and trash for the repositories served.
    public var documentMarks: DocumentMarks
    /// The offline middle tier, when the server serves offline applications (`--offline`).
    public var offlineTier: OfflineTier?
    /// What `/ready` checks (nothing until set: always ready).
    public var readiness = Readiness(checks: [])
    /// What `/metrics` reports.
    public var metrics = ServerMetrics()

    /// An environment over `repositories` and `blobs`; document marks default to ones kept in memory, and there is
    /// no offline tier until one is set.
    public init(
        repositories: any CMISServiceResolver, blobs: BlobStore, limits: RequestLimits = .init(),
        xsrfPolicy: XSRFPolicy = .standard, xsrfHeader: String = "X-CSRF-Token", omitNewTypeCapabilities: Bool = true,
        documentMarks: DocumentMarks = DocumentMarks()
    ) {
        self.documentMarks = documentMarks
        self.repositories = repositories
        self.blobs = blobs
        self.limits = limits
        self.xsrfPolicy = xsrfPolicy
        self.xsrfHeader = xsrfHeader
        self.omitNewTypeCapabilities = omitNewTypeCapabilities
    }

    /// An environment whose every repository is served by `service` (a server without mounts).
    public init(
        service: any CMISService, blobs: BlobStore, limits: RequestLimits = .init(), xsrfPolicy: XSRFPolicy = .standard,
        xsrfHeader: String = "X-CSRF-Token", omitNewTypeCapabilities: Bool = true,
        documentMarks: DocumentMarks = DocumentMarks()
    ) {
        self.init(
            repositories: SingleServiceResolver(service), blobs: blobs, limits: limits, xsrfPolicy: xsrfPolicy,
            xsrfHeader: xsrfHeader, omitNewTypeCapabilities: omitNewTypeCapabilities, documentMarks: documentMarks)
    }

    /// Throws `permissionDenied` unless this change may go ahead: the caller presented the session's token, or
    /// the policy does not ask for it here. `presented` is the header or form-field value.
    public func checkXSRF(
        context: ServerRequestContext, repositoryId: String?, presented: String?
    ) throws(CMISError) {
        guard let caller = context.caller else {
            throw CMISError(.permissionDenied, "authentication required")
        }
        let personal = repositoryId.map { repositories.service(for: $0).isPersonal(repositoryId: $0) } ?? false
        let needed = xsrfPolicy == .strict || personal || context.authenticatedByCookie
        guard needed else { return }
        guard let expected = caller.sessionToken, let presented, constantTimeEqual(presented, expected) else {
            throw CMISError(
                .permissionDenied,
                "this change needs the XSRF token from repository info in the \(xsrfHeader) header"
            )
        }
    }
}
