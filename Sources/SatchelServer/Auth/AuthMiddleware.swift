import Foundation
import SatchelText
import HTTPTypes
public import Hummingbird
public import Logging
import SatchelCMISCore
import SatchelRepository

/// Authenticates every request and writes the access log.
///
/// A session cookie (form login) or an `Authorization: Basic` header fills ``ServerRequestContext/caller``. On a
/// binding path (see ``MountPoints``) a missing or wrong credential is answered here with `401` and
/// `WWW-Authenticate: Basic realm="Satchel"`, and a credential that may not be checked yet (too many failures for
/// its user name or the client's address, see ``LoginThrottling``) with `429` and `Retry-After`. A caller who sends
/// the XSRF header with the value `Fetch` (as SAP clients and generic CSRF-aware clients do on a read) gets the
/// session's token back in the same header. Every request then gets one access-log line: method, path (without
/// the query, which may carry tokens), status, bytes, duration and user.
public struct AuthMiddleware: RouterMiddleware {
    /// The server's request context, which this middleware fills.
    public typealias Context = ServerRequestContext

    let authenticator: Authenticator
    let proxies: TrustedProxies
    /// The server speaks TLS.
    let isSecure: Bool
    let xsrfHeader: HTTPField.Name?
    let accessLog: Logger
    /// Counts requests and refused credentials.
    let metrics: ServerMetrics?

    /// A middleware checking credentials with `authenticator`. `proxies` are believed for the client's address,
    /// `xsrfHeader` names the header whose `Fetch` asks for the session's token, `isSecure` marks session cookies
    /// `Secure`, `accessLog` gets one line per request and `metrics` counts it.
    public init(
        authenticator: Authenticator, proxies: TrustedProxies = TrustedProxies(), xsrfHeader: String = "X-CSRF-Token",
        isSecure: Bool = false, accessLog: Logger, metrics: ServerMetrics? = nil
    ) {
        self.metrics = metrics
        self.authenticator = authenticator
        self.proxies = proxies
        self.isSecure = isSecure
        self.xsrfHeader = HTTPField.Name(xsrfHeader)
        self.accessLog = accessLog
    }

    /// Authenticates `request` (an access token, else a session cookie, else Basic) and passes it to `next` with the
    /// caller set in the context. On a binding path, a missing or wrong credential is answered 401 and a throttled one
    /// 429; a change asked with a read-only token is answered 403; a token that cannot be checked now, 503. Adds
    /// `X-Content-Type-Options`, HSTS over TLS and a fetched XSRF token, and writes the access-log line.
    ///
    /// A session cookie is looked up in the store: when the store is out of reach the answer is 503, as for a
    /// token.
    public func handle(
        _ request: Request, context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        context.trustsForwardedHeaders = proxies.trusts(context.remoteAddress)
        context.isSecure = isSecure
        var refusal: Authenticator.Outcome?
        func sessionCaller(_ id: String) async throws -> Authenticator.Caller? {
            do {
                return try await authenticator.sessionCaller(id: id)
            } catch {
                accessLog.error("cannot check a session: \(error)")
                throw HTTPError(.serviceUnavailable, message: "the server cannot check the session now: try again")
            }
        }
        if let token = request.headers[Self.tokenHeader] {
            // A token sent is the credential, even beside another: one that is not known is refused.
            let found: (caller: Authenticator.Caller, grant: AccessTokens.Grant)?
            do {
                found = try await authenticator.tokenCaller(token)
            } catch {
                // The store is out of reach: say so, never let the request through unchecked.
                accessLog.error("cannot check an access token: \(error)")
                throw HTTPError(.serviceUnavailable, message: "the server cannot check the token now: try again")
            }
            if let (caller, grant) = found {
                context.caller = caller.context
                context.accessToken = grant
            } else {
                refusal = .refused
            }
        } else if let sessionId = request.cookies[Authenticator.sessionCookie]?.value,
            let session = try await sessionCaller(sessionId)
        {
            context.caller = session.context
            context.authenticatedByCookie = true
        } else if let header = request.headers[.authorization] {
            let outcome = await authenticator.basicCaller(
                header: header, source: context.clientAddress(request, proxies: proxies))
            if case .accepted(let caller) = outcome {
                context.caller = caller.context
                // Kept for this request only, for a gateway mount that passes users' credentials on.
                context.caller?.password = Authenticator.parseBasic(header).map { CallerPassword($0.1) }
            } else {
                refusal = outcome
            }
        }
        let path = request.uri.path
        var response: Response
        if context.caller == nil && MountPoints.isProtected(path) {
            if let refusal { metrics?.loginRefused(refusal) }
            response = Self.refusalResponse(refusal)
        } else if context.accessToken?.permission == .read, ![.get, .head, .options].contains(request.method),
            !Self.checksReadOnlyItself(path)
        {
            response = Self.readOnlyRefusal(path: path)
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound && !MountPoints.isProtected(path) {
                // No route and no API's prefix: say where the APIs are, and which path was probably meant.
                response = PathHints.response(for: path)
            } catch let error as any HTTPResponseError {
                // Answered here, so that it carries the headers every answer carries.
                response = try error.response(from: request, context: context)
            } catch {
                log(request, status: 500, bytes: nil, start: start, user: context.caller?.user)
                throw error
            }
        }
        // No response is ever to be read as another type than it says (user content above all).
        response.headers[.xContentTypeOptions] = "nosniff"
        // Served over TLS, a browser is to come back over TLS only, for a year: a later plain-http link cannot
        // strip it and read the session cookie.
        if isSecure { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        if let xsrfHeader, let token = context.caller?.sessionToken,
            request.headers[xsrfHeader]?.lowercased() == "fetch"
        {
            response.headers[xsrfHeader] = token
        }
        let bytes = response.body.contentLength ?? response.headers[.contentLength].flatMap { Int($0) }
        log(request, status: response.status.code, bytes: bytes, start: start, user: context.caller?.user)
        return response
    }

    /// The header that carries a token from ``AccessTokens``.
    static let tokenHeader = HTTPField.Name("X-Authentication-Token")!

    /// Automation is all POST, reads too: its handler refuses the operations that change something.
    static func checksReadOnlyItself(_ path: String) -> Bool {
        if path.hasPrefix(NuxeoRoutes.siteAutomation + "/") { return true }
        guard path.hasPrefix(NuxeoRoutes.apiRoot + "/") else { return false }
        let segments = path.dropFirst(NuxeoRoutes.apiRoot.count).split(separator: "/")
        return segments.first == "automation"
            || (segments.count > 2 && segments[0] == "repo" && segments[2] == "automation")
    }

    /// A change asked with a read-only token.
    static func readOnlyRefusal(path: String) -> Response {
        let message = "the token is read-only"
        if path.hasPrefix("/nuxeo/") { return NuxeoHandler.exception(403, message) }
        return CMISErrorResponse.json(CMISError(.permissionDenied, message), status: .forbidden)
    }

    /// The answer to a request on a binding path without an accepted credential.
    static func refusalResponse(_ refusal: Authenticator.Outcome?) -> Response {
        switch refusal {
        case nil: return CMISErrorResponse.challenge("authentication required")
        case .refused?, .accepted?: return CMISErrorResponse.challenge("wrong user name or password")
        case .throttled(let wait)?: return CMISErrorResponse.tooManyAttempts(retryAfter: wait)
        case .busy?: return CMISErrorResponse.tooManyAttempts(retryAfter: .seconds(1))
        }
    }

    private func log(_ request: Request, status: Int, bytes: Int?, start: ContinuousClock.Instant, user: String?) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = elapsed.timeInterval * 1000
        let method = request.method.rawValue
        let path = request.uri.path
        metrics?.request(path: path, method: method, status: status, duration: elapsed)
        let code = String(status)
        accessLog.info(
            "\(method) \(path) \(code)",
            metadata: [
                "method": .string(method), "path": .string(path), "status": .string(code),
                "bytes": .string(bytes.map(String.init) ?? "-"),
                "duration_ms": .string(String((milliseconds * 1000).rounded() / 1000)), "user": .string(user ?? "-"),
            ])
    }
}
