import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import SatchelOfflineServer
import SatchelRepository
import SatchelText
import ServiceLifecycle

/// The offline middle tier's routes: `/offline/{endpoint}/…` for every endpoint of the `--offline` files
/// (docs/offline-server.md). Authentication has happened (``MountPoints/protectedPrefixes``); the caller and,
/// signed in with Basic, their password go with each request to ``OfflineTier``.
enum OfflineTierRoutes {
    static let root = "/offline"

    static func register(on router: Router<ServerRequestContext>, tier: OfflineTier, environment: BindingEnvironment) {
        let path = RouterPath("\(root)/**")
        let handler: @Sendable (Request, ServerRequestContext) async throws -> Response = { request, context in
            await handle(request, context: context, tier: tier, environment: environment)
        }
        router.get(path, use: handler)
        router.head(path, use: handler)
        router.post(path, use: handler)
        router.put(path, use: handler)
        router.patch(path, use: handler)
        router.delete(path, use: handler)
        router.on(path, method: HTTPRequest.Method("MERGE")!, use: handler)
    }

    static func handle(
        _ request: Request, context: ServerRequestContext, tier: OfflineTier, environment: BindingEnvironment
    ) async -> Response {
        guard let caller = context.caller else {
            return answer(OfflineTierResponse(status: 401))
        }
        let rest = request.uri.path.dropFirst(root.count + 1)
        let name = String(rest.prefix { $0 != "/" })
        let below = rest.dropFirst(name.count).drop { $0 == "/" }
        let method = request.method.rawValue
        if !["GET", "HEAD"].contains(method) {
            do {
                try environment.checkXSRF(
                    context: context, repositoryId: nil,
                    presented: HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] })
            } catch {
                return answer(OfflineTierResponse(status: 403, body: Data(String(describing: error).utf8)))
            }
        }
        let limit = tier.limits.maxUploadBytes
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit + 1)
        } catch {
            return answer(
                OfflineTierResponse(
                    status: 413, body: Data("the request body is larger than \(limit) bytes".utf8)))
        }
        var offlineRequest = OfflineTierRequest(
            method: method, path: String(below), query: request.uri.query ?? "",
            fields: request.headers.map { ($0.name.rawName, $0.value) },
            body: Data(buffer: body), user: caller.user, password: caller.password?.value,
            root: request.serverBaseURL(context) + root + "/" + name + "/")
        offlineRequest.viaProxy =
            context.trustsForwardedHeaders
            && (request.headers[.xForwardedProto] != nil || request.headers[.xForwardedFor] != nil)
        return answer(await tier.handle(endpoint: name, offlineRequest))
    }

    static func answer(_ response: OfflineTierResponse) -> Response {
        var fields = HTTPFields()
        for field in response.fields {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        if let file = response.file {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int ?? 0
            fields[.contentLength] = String(size)
            return Response(
                status: HTTPResponse.Status(code: response.status), headers: fields,
                body: streamed(file, count: size))
        }
        fields[.contentLength] = String(response.body.count)
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: response.body)))
    }

    /// `count` bytes of `file`, read off the concurrency pool a megabyte at a time; the file's name is removed as
    /// sending starts (the open handle reads on).
    static func streamed(_ file: URL, count: Int) -> ResponseBody {
        ResponseBody(contentLength: count) { writer in
            // Opened, then removed at once: the open handle keeps the bytes until it is closed, and no path is left
            // behind whatever happens to the connection from here on.
            let handle = try await BlockingWork.shared.run { () throws -> FileHandle in
                let handle = try FileHandle(forReadingFrom: file)
                try? FileManager.default.removeItem(at: file)
                return handle
            }
            defer { try? handle.close() }
            var remaining = count
            while remaining > 0 {
                let wanted = min(remaining, 1 << 20)
                let chunk = try await BlockingWork.shared.run(handing: handle) { try $0.read(upToCount: wanted) }
                guard let chunk, !chunk.isEmpty else {
                    throw ServerError("the prebuilt store \(file.lastPathComponent) ended \(remaining) bytes short")
                }
                remaining -= chunk.count
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }
}

/// Keeps the offline middle tier's templates of shared data current while the server runs
/// (``OfflineTier/maintainTemplates()``).
struct OfflineTemplateService: Service {
    let tier: OfflineTier

    func run() async throws {
        await cancelWhenGracefulShutdown { await tier.maintainTemplates() }
    }
}
