import Synchronization
public import Foundation

/// The SAP Gateway CSRF handshake.
///
/// Before the first modifying request it sends a GET with `X-CSRF-Token: Fetch` and keeps the token the server
/// returns (the session cookies that bind it land in the client's cookie jar). It then sends the token on every
/// modifying request; when the server answers `403` with `X-CSRF-Token: Required`, it fetches a new token and
/// resends the request once.
///
/// ```swift
/// let client = HTTPClient(auth: [
///     BasicAuth(user: user, password: password),
///     CSRFTokenAuth(fetchURL: URL(string: "https://gw.example.com/sap/opu/odata/sap/ZNOTES_SRV/")!),
/// ])
/// ```
public final class CSRFTokenAuth: HTTPAuthProvider {
    /// The token's header (`X-CSRF-Token` by default).
    public let headerName: String
    /// Where to fetch the token; nil fetches it from the URL of the request that needs it.
    public let fetchURL: URL?
    private let state = Mutex<String?>(nil)

    /// The handshake on `headerName`, fetching the token from `fetchURL` (from the URL of the request that needs it
    /// when nil).
    public init(headerName: String = "X-CSRF-Token", fetchURL: URL? = nil) {
        self.headerName = headerName
        self.fetchURL = fetchURL
    }

    /// The token in use, if one was fetched.
    public var token: String? { state.withLock { $0 } }

    /// On a modifying request without the header, adds the token, fetching one first when none is held. A fetch that
    /// returns no token throws `.unauthorized` (on a `401`) or `.forbidden`.
    public func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        guard request.method.isModifying, !request.headers.contains(headerName) else { return }
        var token = state.withLock { $0 }
        if token == nil { token = try await fetch(for: request, context: context) }
        request.headers[headerName] = token
    }

    /// After a `403` with `X-CSRF-Token: Required` to a modifying request, drops the token, fetches a new one and asks
    /// for a resend.
    public func recover(
        from response: HTTPClient.Response, to request: HTTPClient.Request, context: HTTPAuthContext
    ) async throws
        -> Bool
    {
        guard response.status == 403, request.method.isModifying,
            response.headers[headerName]?.lowercased() == "required"
        else { return false }
        state.withLock { $0 = nil }
        _ = try await fetch(for: request, context: context)
        return true
    }

    private func fetch(for request: HTTPClient.Request, context: HTTPAuthContext) async throws -> String {
        var fetch = HTTPClient.Request(.get, url: fetchURL ?? request.url, operation: "fetch the CSRF token")
        fetch.headers[headerName] = "Fetch"
        fetch.validatesStatus = false
        let response = try await context.send(fetch)
        guard let token = response.headers[headerName], !token.isEmpty, token.lowercased() != "required",
            response.status < 500
        else {
            throw HTTPTransferError.status(response, body: response.body, request: fetch).replacing(
                code: response.status == 401 ? .unauthorized : .forbidden,
                message: "the server sent no \(headerName) when asked for one (status \(response.status))"
            )
        }
        state.withLock { $0 = token }
        return token
    }
}

extension HTTPTransferError {
    func replacing(code: Code, message: String) -> HTTPTransferError {
        var error = self
        error.code = code
        error.message = message
        return error
    }
}
