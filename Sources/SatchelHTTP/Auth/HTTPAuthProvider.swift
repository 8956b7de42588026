/// Adds credentials to requests and recovers when the server refuses them.
///
/// Providers compose: a client takes a list, applies every provider's ``authorize(_:context:)`` in order, and
/// after a refusal asks each one whether it can ``recover(from:to:context:)`` — fetch a new token, log in
/// again — in which case the request is sent once more. Each provider recovers at most once per request, so
/// wrong credentials end in an error, never in a loop.
///
/// A provider that must itself talk to the server (a login, a token fetch) does so through
/// ``HTTPAuthContext/send(_:)``, which applies only the providers listed *before* it: put credentials
/// first and handshakes that need them (CSRF) after.
///
/// ```swift
/// let client = HTTPClient(auth: [
///     BasicAuth(user: "alice", password: secret),
///     CSRFTokenAuth(),
/// ])
/// ```
public protocol HTTPAuthProvider: Sendable {
    /// Adds this provider's credentials or tokens to a request about to be sent.
    func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws

    /// Looks at a response; returns `true` when it removed the cause of a refusal and the request should be
    /// sent again. `request` is the request as it was sent, cookies included.
    func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws -> Bool
}

extension HTTPAuthProvider {
    /// Never recovers: for providers that only add credentials.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    { false }
}

/// What an auth provider may use: the client's cookies, and a way to send its own requests.
public struct HTTPAuthContext: Sendable {
    let client: HTTPClient
    /// Providers `0..<depth` apply to requests sent through this context.
    let depth: Int

    /// Sends a request with the client's cookies, default headers, redirects and retries, and the auth providers
    /// listed before this one. The status is validated only if `request.validatesStatus` is set.
    public func send(_ request: HTTPClient.Request) async throws -> HTTPClient.Response {
        try await client.execute(request, destination: .memory, progress: nil, authDepth: depth)
    }

    /// The client's cookie jar (where a login's session cookies land).
    public var cookies: CookieJar { client.configuration.cookieJar }
}
