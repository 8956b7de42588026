import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SatchelCMIS
import SatchelCMISCore
import SatchelRepository
import SatchelServer

/// Marks every request as coming from `alice` (session token `tok-alice`), unless it sends `X-Test-Anonymous`.
struct TestCallerMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(
        _ request: Request, context: ServerRequestContext,
        next: (Request, ServerRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if request.headers[HTTPField.Name("X-Test-Anonymous")!] == nil {
            context.caller = CallerContext(user: "alice", sessionToken: "tok-alice")
        }
        return try await next(request, context)
    }
}

/// The AtomPub routes alone on the repository engine (memory store), served on 127.0.0.1 at a port chosen at run
/// time, every request coming from `alice` (see ``TestCallerMiddleware``).
final class AtomPubTestServer: Sendable {
    let port: Int
    let service: CMISRepository
    let blobFolder: URL
    /// The shared repository's root folder.
    let rootID: String
    private let task: Task<Void, any Error>

    private init(port: Int, service: CMISRepository, blobFolder: URL, rootID: String, task: Task<Void, any Error>) {
        self.port = port
        self.service = service
        self.blobFolder = blobFolder
        self.rootID = rootID
        self.task = task
    }

    var serviceURL: URL { URL(string: "http://127.0.0.1:\(port)/cmis/atom")! }

    static func start(
        limits: RequestLimits = RequestLimits(), xsrfPolicy: XSRFPolicy = .standard,
        omitNewTypeCapabilities: Bool = true
    ) async throws -> AtomPubTestServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-atompub-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let blobs = try BlobStore(directory: folder)
        let service = CMISRepository(store: MemoryMetadataStore(), blobs: blobs)
        try await service.bootstrap()
        let rootID = try await service.repositoryInfo(
            repositoryId: "shared", caller: CallerContext(user: "alice", sessionToken: "tok-alice")
        ).rootFolderId
        let environment = BindingEnvironment(
            service: service, blobs: blobs, limits: limits, xsrfPolicy: xsrfPolicy,
            omitNewTypeCapabilities: omitNewTypeCapabilities)
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: TestCallerMiddleware())
        let routes = AtomPubRoutes(environment: environment)
        routes.register(on: router, mountPath: "/cmis/atom")
        routes.register(on: router, mountPath: "/mcm/b/atom")
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "satchel.atompub-test")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CMISError(.connection, "the AtomPub test server did not start")
        }
        return AtomPubTestServer(port: port, service: service, blobFolder: folder, rootID: rootID, task: task)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(at: blobFolder)
    }
}
