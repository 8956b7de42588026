import Synchronization

/// Sends a token that another layer supplies in a header — for example the XSRF token a SAP Mobile Documents
/// repository hands out in its repository info.
///
/// ```swift
/// let xsrf = HeaderTokenAuth(headerName: "X-CSRF-Token")
/// let client = HTTPClient(auth: [BasicAuth(user: user, password: password), xsrf])
/// xsrf.token = repositoryInfo.extensionValue(named: "token")     // from now on, sent on every request
/// ```
///
/// With a `renew` hook, a `403` (or `401`) makes it ask for a new token once and resend the request.
public final class HeaderTokenAuth: HTTPAuthProvider {
    /// The header the token goes in (`X-CSRF-Token` by default).
    public let headerName: String
    /// Send the token only on requests that change something (POST, PUT, PATCH, DELETE, …).
    public let onlyOnModifyingRequests: Bool
    private let current: Mutex<String?>
    private let renew: (@Sendable (HTTPAuthContext) async throws -> String?)?

    /// Sends `token` (none yet when nil) in `headerName`. `renew`, when given, is asked for a new token after a `403`
    /// or `401`; it may send requests through the context it gets.
    public init(
        headerName: String = "X-CSRF-Token",
        token: String? = nil,
        onlyOnModifyingRequests: Bool = false,
        renew: (@Sendable (HTTPAuthContext) async throws -> String?)? = nil
    ) {
        self.headerName = headerName
        self.onlyOnModifyingRequests = onlyOnModifyingRequests
        current = Mutex(token)
        self.renew = renew
    }

    /// The token sent; nil sends none. Set it whenever the other layer hands out one.
    public var token: String? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Sets the header to the token, when there is one (on modifying requests only, when so configured).
    public func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        guard !onlyOnModifyingRequests || request.method.isModifying, let token else { return }
        request.headers[headerName] = token
    }

    /// With a `renew` hook, after a `403` or `401`: asks for a new token, and asks for a resend when it differs from
    /// the one sent.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    {
        guard let renew, response.status == 403 || response.status == 401 else { return false }
        guard let fresh = try await renew(context), fresh != request.headers[headerName] else { return false }
        token = fresh
        return true
    }
}
