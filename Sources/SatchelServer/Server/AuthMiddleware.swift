import Foundation
import Hummingbird
import Logging
import SatchelRepository

/// Authenticates every request and writes the access log.
///
/// A session cookie (form login) or an `Authorization: Basic` header fills ``ServerRequestContext/caller``. On a
/// binding path (see ``MountPoints``) a missing or wrong credential is answered here with `401` and
/// `WWW-Authenticate: Basic realm="Satchel"`. Every request then gets one access-log line: method, path (without
/// the query, which may carry tokens), status, bytes, duration and user.
public struct AuthMiddleware: RouterMiddleware {
    public typealias Context = ServerRequestContext

    let authenticator: Authenticator
    let accessLog: Logger

    public init(authenticator: Authenticator, accessLog: Logger) {
        self.authenticator = authenticator
        self.accessLog = accessLog
    }

    public func handle(
        _ request: Request, context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        var credentialRefused = false
        if let sessionId = request.cookies[Authenticator.sessionCookie]?.value,
            let session = authenticator.sessionCaller(id: sessionId)
        {
            context.caller = CallerContext(user: session.user, sessionToken: session.token)
            context.authenticatedByCookie = true
        } else if let header = request.headers[.authorization] {
            if let basic = authenticator.basicCaller(header: header) {
                context.caller = CallerContext(user: basic.user, sessionToken: basic.token)
            } else {
                credentialRefused = true
            }
        }
        let path = request.uri.path
        var response: Response
        if context.caller == nil && MountPoints.isProtected(path) {
            response = CMISErrorResponse.challenge(
                credentialRefused ? "wrong user name or password" : "authentication required")
        } else {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                log(request, status: error.status.code, bytes: nil, start: start, user: context.caller?.user)
                throw error
            } catch {
                log(request, status: 500, bytes: nil, start: start, user: context.caller?.user)
                throw error
            }
        }
        let bytes = response.body.contentLength ?? response.headers[.contentLength].flatMap { Int($0) }
        log(request, status: response.status.code, bytes: bytes, start: start, user: context.caller?.user)
        return response
    }

    private func log(_ request: Request, status: Int, bytes: Int?, start: ContinuousClock.Instant, user: String?) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        accessLog.info(
            "\(request.method) \(request.uri.path) \(status)",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "bytes": "\(bytes.map(String.init) ?? "-")",
                "duration_ms": "\((milliseconds * 1000).rounded() / 1000)", "user": "\(user ?? "-")",
            ])
    }
}
