import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A small in-memory CMIS 1.1 Browser-binding server on `127.0.0.1`, for SatchelCMIS's tests.
///
/// It is a test double — only what the tests use — until the real `satchel serve` lands. One repository
/// (`A1`, root folder id `root`) of folders and documents:
///
/// - `GET /browser`: the service document (`repositoryUrl`, `rootFolderUrl`, optional `myDocuments`/`token`).
/// - `GET /browser/A1?cmisselector=`: `repositoryInfo`; `typeDefinition` (`cmis:document`, `cmis:folder`);
///   `query` (`SELECT * FROM cmis:document|cmis:folder [WHERE IN_FOLDER('id')]`, `maxItems`, `skipCount`).
/// - `GET /browser/A1/root[/path]?[objectId=…&]cmisselector=`: `object` (succinct), `children` (`maxItems`,
///   `skipCount`, `hasMoreItems`, `numItems`), `content` (honours `Range`).
/// - `POST /browser/A1/root?objectId=…`: `cmisaction=createFolder|createDocument|update|delete`, urlencoded or
///   multipart, properties as `propertyId[n]`/`propertyValue[n]`.
///
/// Errors are CMIS JSON (`{"exception":"objectNotFound","message":…}`): 404 objectNotFound, 409
/// nameConstraintViolation/constraint, 400 invalidArgument, 403 permissionDenied for a POST without the
/// current `token`, 401 with a Basic challenge when credentials are required and missing or wrong.
///
/// ```swift
/// let server = try await CMISTestServer.start(.init(user: "alice", password: "secret", token: "t-1"))
/// defer { Task { await server.stop() } }
/// let session = try await CMISSession.connect(SessionParameters(url: server.serviceURL, auth: [...]))
/// ```
public final class CMISTestServer: Sendable {
    /// What the server requires and announces.
    public struct Options: Sendable {
        /// Basic credentials every request needs; `nil`: none.
        public var user: String?
        /// The password that goes with ``user``.
        public var password: String?
        /// The `token` repository-info extension POSTs must send back; `nil`: none.
        public var token: String?
        /// The `myDocuments` repository-info extension (a folder id), as SAP Mobile Documents sends it.
        public var myDocuments: String?

        public init(user: String? = nil, password: String? = nil, token: String? = nil, myDocuments: String? = nil) {
            self.user = user
            self.password = password
            self.token = token
            self.myDocuments = myDocuments
        }
    }

    /// The id of the server's one repository.
    public static let repositoryId = "A1"
    public let server: TestHTTPServer
    /// The store, for tests to inspect (request counts) and change (the token).
    public let repository: CMISTestRepository

    private init(server: TestHTTPServer, repository: CMISTestRepository) {
        self.server = server
        self.repository = repository
    }

    /// The Browser binding service URL (`/browser`).
    public var serviceURL: URL { server.url("/browser") }

    /// Starts a server on a free port of `127.0.0.1`.
    public static func start(_ options: Options = Options()) async throws -> CMISTestServer {
        let repository = CMISTestRepository(token: options.token)
        let box = PortBox()
        let server = try await TestHTTPServer.start { router in
            let handle: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                let handler = CMISTestHandler(repository: repository, options: options, baseURL: box.baseURL)
                return try await handler.handle(request)
            }
            router.get("/browser", use: handle)
            router.get("/browser/**", use: handle)
            router.post("/browser/**", use: handle)
        }
        box.baseURL = server.baseURL
        return CMISTestServer(server: server, repository: repository)
    }

    public func stop() async { await server.stop() }
}

/// The server's own URL, known only once it listens.
final class PortBox: Sendable {
    private let url = Mutex(URL(string: "http://127.0.0.1")!)
    var baseURL: URL {
        get { url.withLock { $0 } }
        set { url.withLock { $0 = newValue } }
    }
}
