import Foundation
import HTTPTypes
import Hummingbird
import SatchelJSON
import SatchelRepository

/// Nuxeo's `authentication/token`: a signed-in user (password or session, never another token) acquires a token
/// for an application on a device — `applicationName`, `deviceId`, `deviceDescription`, `permission` (`r` or `rw`)
/// — answered as plain text; `revoke=true` revokes it. `GET /nuxeo/api/v1/token` lists the caller's tokens
/// (never the tokens themselves).
enum NuxeoTokenRoute {
    static let path = "/nuxeo/authentication/token"

    static func register(on router: Router<ServerRequestContext>, authenticator: Authenticator) {
        router.get(RouterPath(path)) { request, context in
            await token(request, context: context, tokens: authenticator.tokens)
        }
        router.get(RouterPath("\(NuxeoRoutes.apiRoot)/token")) { _, context in
            await list(context: context, tokens: authenticator.tokens)
        }
    }

    /// Whether `presented` is the caller's session token, compared in constant time as every token is.
    static func presentsSessionToken(_ presented: String?, caller: CallerContext) -> Bool {
        guard let presented, let expected = caller.sessionToken else { return false }
        return constantTimeEqual(presented, expected)
    }

    static func token(_ request: Request, context: ServerRequestContext, tokens: AccessTokens) async -> Response {
        guard let caller = context.caller else { return NuxeoHandler.exception(401, "authentication required") }
        guard context.accessToken == nil else {
            return NuxeoHandler.exception(403, "a token cannot acquire tokens: sign in with the password")
        }
        // A GET that changes something: from a cookie session (a browser, which another site can make send it), only
        // with the session's XSRF token.
        if context.authenticatedByCookie,
            !Self.presentsSessionToken(request.headers[HTTPField.Name("X-CSRF-Token")!], caller: caller)
        {
            return NuxeoHandler.exception(403, "a token is issued to a browser session only with its X-CSRF-Token")
        }
        let query = request.uri.queryParameters
        func parameter(_ name: String) -> String { query[name[...]].map(String.init) ?? "" }
        do {
            if parameter("revoke").lowercased() == "true" {
                try await tokens.revoke(
                    user: caller.user, application: parameter("applicationName"), device: parameter("deviceId"))
                return text("")
            }
            let description = parameter("deviceDescription")
            return text(
                try await tokens.issue(
                    user: caller.user, application: parameter("applicationName"), device: parameter("deviceId"),
                    deviceDescription: description.isEmpty ? nil : description,
                    permission: query["permission"].map(String.init) ?? "rw"))
        } catch {
            return NuxeoHandler.exception(error.status, error.message)
        }
    }

    static func list(context: ServerRequestContext, tokens: AccessTokens) async -> Response {
        guard let caller = context.caller else { return NuxeoHandler.exception(401, "authentication required") }
        let grants: [AccessTokens.Grant]
        do {
            grants = try await tokens.grants(of: caller.user)
        } catch {
            return NuxeoHandler.failure(error)
        }
        let entries: [JSONValue] = grants.map { grant in
            var members: [(key: String, value: JSONValue)] = [
                ("entity-type", "token"), ("username", .string(grant.user)),
                ("application", .string(grant.application)), ("deviceId", .string(grant.device)),
                ("permission", .string(grant.permission.rawValue)),
                ("creationDate", .string(NuxeoHandler.timestamp(grant.created))),
            ]
            if let description = grant.deviceDescription { members.append(("deviceDescription", .string(description))) }
            return .object(JSONObject(members))
        }
        return NuxeoHandler.json(["entity-type": "tokens", "entries": .array(entries)])
    }

    private static func text(_ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
