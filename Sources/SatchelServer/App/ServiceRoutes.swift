import Foundation
import Hummingbird
import Logging
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// The routes beside the bindings: `/health` (the process is up), `/ready` (its dependencies answer:
/// ``Readiness``), `/metrics` (``ServerMetrics``, for administrators), `/cmis-endpoints.json`, `/login` and
/// `/logout`.
enum ServiceRoutes {
    static func register(
        on router: Router<ServerRequestContext>, environment: BindingEnvironment, authenticator: Authenticator,
        proxies: TrustedProxies
    ) {
        NuxeoTokenRoute.register(on: router, authenticator: authenticator)
        router.get("/health") { _, _ in
            ServiceRoutes.jsonResponse { writer in
                writer.writeObject { writer in
                    writer.write(key: "status", "ok")
                    writer.write(key: "version", SatchelServerVersion.current)
                }
            }
        }
        router.get("/ready") { _, _ in
            let results = await environment.readiness.run()
            let ready = results.allSatisfy { $0.failure == nil }
            if !ready { environment.readiness.log(results, to: Logger(label: "satchel.ready")) }
            return ServiceRoutes.jsonResponse(status: ready ? .ok : .serviceUnavailable) { writer in
                writer.writeObject { writer in
                    writer.write(key: "status", ready ? "ready" : "unavailable")
                    writer.write(key: "checks") { writer in
                        writer.writeObject { writer in
                            for result in results {
                                writer.write(key: result.name, result.failure == nil ? "ok" : "failing")
                            }
                        }
                    }
                }
            }
        }
        // The Prometheus text format; for administrators (a scraper signs in with Basic): the counts tell who uses
        // what, and how much.
        router.get("/metrics") { _, context in
            guard let caller = context.caller else { return CMISErrorResponse.challenge("authentication required") }
            guard caller.isAdministrator else {
                return CMISErrorResponse.json(
                    CMISError(.permissionDenied, "metrics are for administrators"), status: .forbidden)
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: environment.metrics.render())))
        }
        router.get("/cmis-endpoints.json") { request, context in
            let base = request.serverBaseURL(context)
            return ServiceRoutes.jsonResponse { writer in
                writer.writeObject { writer in
                    writer.write(key: "endpoints") { writer in
                        writer.writeArray { writer in
                            let entries: [(String, String, String)] = [
                                ("browser", MountPoints.mobileDocumentsBrowser, "Mobile Documents (Browser binding)"),
                                ("atompub", MountPoints.mobileDocumentsAtom, "Mobile Documents (AtomPub binding)"),
                                ("browser", MountPoints.cmisBrowser, "CMIS 1.1 Browser binding"),
                                ("atompub", MountPoints.cmisAtom, "CMIS 1.1 AtomPub binding"),
                            ]
                            for (binding, path, name) in entries {
                                writer.writeObject { writer in
                                    writer.write(key: "displayName", name)
                                    writer.write(key: "binding", binding)
                                    writer.write(key: "cmisVersion", "1.1")
                                    writer.write(key: "url", base + path)
                                    writer.write(key: "authentication") { writer in
                                        writer.writeArray { writer in
                                            writer.writeObject { $0.write(key: "type", "basic") }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        router.post("/login") { request, context in
            try await ServiceRoutes.login(
                request, context: context, environment: environment, authenticator: authenticator, proxies: proxies)
        }
        router.post("/logout") { request, context in
            if let session = request.cookies[Authenticator.sessionCookie]?.value {
                try await authenticator.endSession(session)
            }
            var response = ServiceRoutes.jsonResponse { $0.writeObject { $0.write(key: "status", "logged out") } }
            response.headers[.setCookie] =
                "\(Authenticator.sessionCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
                + (context.isSecure ? "; Secure" : "")
            return response
        }
    }

    static func login(
        _ request: Request, context: ServerRequestContext, environment: BindingEnvironment,
        authenticator: Authenticator, proxies: TrustedProxies
    ) async throws -> Response {
        let fields: [(String, String)]
        do {
            let body = try await request.body.collect(upTo: min(environment.limits.maxMetadataBytes, 64 << 10))
            fields = try FormDecoding.decode(Substring(String(buffer: body)), maxFields: 16)
        } catch let error as CMISError {
            return CMISErrorResponse.json(error)
        } catch {
            return CMISErrorResponse.json(
                CMISError(.invalidArgument, "the login form is too large"), status: .contentTooLarge)
        }
        let user = fields.first { $0.0 == "user" || $0.0 == "username" }?.1 ?? ""
        let password = fields.first { $0.0 == "password" }?.1 ?? ""
        let outcome =
            user.isEmpty
            ? .refused
            : await authenticator.login(
                user: user, password: password, source: context.clientAddress(request, proxies: proxies))
        guard case .accepted = outcome else {
            environment.metrics.loginRefused(outcome)
            if case .refused = outcome {
                return CMISErrorResponse.json(
                    CMISError(.permissionDenied, "wrong user name or password"), status: .unauthorized)
            }
            return AuthMiddleware.refusalResponse(outcome)
        }
        let session = try await authenticator.startSession(user: user)
        var response = jsonResponse { writer in
            writer.writeObject { writer in
                writer.write(key: "user", user)
                writer.write(key: "token", session.caller.token)
            }
        }
        // Over TLS the cookie never travels in clear.
        response.headers[.setCookie] =
            "\(Authenticator.sessionCookie)=\(session.id); Path=/; HttpOnly; SameSite=Strict"
            + (context.isSecure ? "; Secure" : "")
        return response
    }

    static func jsonResponse(status: HTTPResponse.Status = .ok, _ write: (inout JSONWriter) -> Void) -> Response {
        var writer = JSONWriter()
        write(&writer)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }
}

/// The server's version, reported by `/health`.
public enum SatchelServerVersion {
    /// The version `/health` reports.
    public static let current = "0.1.0"
}
