public import Foundation
public import SatchelHTTP
public import SatchelJSON
import SatchelText
import Synchronization

/// A connection to a Nuxeo server's REST API (docs/nuxeo.md).
///
/// ```swift
/// let session = NuxeoSession(configuration: .init(
///     serverURL: URL(string: "https://nuxeo.example.com/nuxeo")!, repository: "default",
///     auth: [BasicAuth(user: "alice", password: password)]))
/// let workspace = try await session.document(path: "/default-domain/workspaces")
/// for try await child in session.children(ofPath: workspace.path ?? "/") { print(child.title ?? child.uid) }
/// ```
public final class NuxeoSession: Sendable {
    /// Where the server is, what documents carry, and how to reach and authenticate to it.
    public struct Configuration: Sendable {
        /// The server's root, with Nuxeo's context path (`https://host/nuxeo`).
        public var serverURL: URL
        /// The REST API's path under the server's root (`api/v1`).
        public var apiPrefix: String
        /// Sent as `repo/{name}/` on repository calls; nil: the server's default repository.
        public var repository: String?
        /// Schemas whose properties documents carry (`properties` header).
        public var schemas: [String]
        /// Headers on every request (enrichers, `fetch-document`, `depth`…).
        public var headers: HTTPClient.Headers
        /// The HTTP client's settings (timeouts, retries, user agent, logger).
        public var http: HTTPClient.Configuration
        /// How requests authenticate (`BasicAuth`, `NuxeoSession.tokenAuth(_:)`…), applied in order.
        public var auth: [any HTTPAuthProvider]
        /// Blob downloads run at most this many at once; the others wait their turn (cancellable while they wait).
        public var maximumConcurrentDownloads: Int = 4
        /// Check every Automation call against the server's operation registry (read once) before sending it: an
        /// unknown operation, a missing required parameter or an unknown one is refused without a request.
        public var checksOperations = false
        /// The app's own entity types: answers of these `entity-type`s are read by them (`.registered`).
        public var entityTypes = NuxeoEntityRegistry()

        /// A configuration for `serverURL`; by default the `api/v1` prefix, the server's default repository, the
        /// `dublincore` and `file` schemas, no extra headers and no authentication.
        public init(
            serverURL: URL, apiPrefix: String = "api/v1", repository: String? = nil,
            schemas: [String] = ["dublincore", "file"], headers: HTTPClient.Headers = [:],
            http: HTTPClient.Configuration = HTTPClient.Configuration(), auth: [any HTTPAuthProvider] = []
        ) {
            self.serverURL = serverURL
            self.apiPrefix = apiPrefix
            self.repository = repository
            self.schemas = schemas
            self.headers = headers
            self.http = http
            self.auth = auth
        }
    }

    /// The configuration the session was made with.
    public let configuration: Configuration
    let client: HTTPClient
    /// The bounded queue blob downloads go through.
    let downloads: TransferSlots
    /// The operation registry, once read.
    let registry = Mutex<[String: NuxeoOperationInfo]?>(nil)

    /// A session; nothing is sent until the first call. `transport` defaults to `HTTPClient.defaultTransport()`
    /// (URLSession on Apple platforms; on Linux, sockets for `http` and SwiftNIO for `https`).
    public init(configuration: Configuration, transport: any HTTPTransport = HTTPClient.defaultTransport()) {
        self.configuration = configuration
        client = HTTPClient(configuration: configuration.http, transport: transport, auth: configuration.auth)
        downloads = TransferSlots(limit: configuration.maximumConcurrentDownloads)
    }

    /// Sends a request; an answer outside 2xx becomes a ``NuxeoError`` read from the server's `exception` entity.
    public func send(_ request: NuxeoRequest, body: HTTPClient.Body? = nil) async throws -> HTTPClient.Response {
        try await send(request, body: body, accepting308: false)
    }

    /// `accepting308`: a batch upload's "not complete yet" is an answer, not a refusal.
    func send(_ request: NuxeoRequest, body: HTTPClient.Body?, accepting308: Bool) async throws -> HTTPClient.Response {
        let url = request.url(
            server: configuration.serverURL, apiPrefix: configuration.apiPrefix, repository: configuration.repository)
        var headers = configuration.headers
        headers["Accept"] = "application/json"
        if !configuration.schemas.isEmpty { headers["properties"] = configuration.schemas.joined(separator: ",") }
        for field in request.headers { headers[field.name] = field.value }
        let operation = "\(request.method) \(request.segments.joined(separator: "/"))"
        var http = HTTPClient.Request(request.method, url: url, headers: headers, body: body, operation: operation)
        http.validatesStatus = false
        let response: HTTPClient.Response
        do {
            response = try await client.send(http)
        } catch let error as HTTPTransferError {
            throw NuxeoError(.transport, error.message, status: error.status, operation: operation)
        }
        guard (200..<300).contains(response.status) || (accepting308 && response.status == 308) else {
            var error: NuxeoError
            if case .exception(let refusal)? = try? NuxeoEntity(json: response.body) {
                error = refusal
            } else {
                error = NuxeoError(
                    .server, "the server answered \(response.status) without an exception entity",
                    status: response.status)
            }
            error.status = error.status ?? response.status
            error.operation = operation
            throw error
        }
        return response
    }

    /// A request's answer as an entity (one of a type in `Configuration.entityTypes` read by that type).
    public func entity(_ request: NuxeoRequest, body: HTTPClient.Body? = nil) async throws -> NuxeoEntity {
        try entity(try await send(request, body: body), request: request)
    }

    /// Sends `entity` as the request's body (its `nuxeoEntityJSON`) and reads the answer.
    public func entity(_ request: NuxeoRequest, sending entity: some NuxeoEntityType) async throws -> NuxeoEntity {
        try await self.entity(request, body: .json(entity.nuxeoEntityJSON))
    }

    /// A request's answer read as the app's entity type `type`, registered or not; an answer of another
    /// `entity-type` is a `NuxeoError` (`.invalidResponse`) naming both.
    public func entity<T: NuxeoEntityType>(_ request: NuxeoRequest, as type: T.Type) async throws -> T {
        try await entity(request, body: nil, as: type)
    }

    /// Sends `entity` as the request's body and reads the answer as the app's entity type `type`.
    public func entity<T: NuxeoEntityType>(
        _ request: NuxeoRequest, sending entity: some NuxeoEntityType, as type: T.Type
    ) async throws -> T {
        try await self.entity(request, body: .json(entity.nuxeoEntityJSON), as: type)
    }

    private func entity<T: NuxeoEntityType>(
        _ request: NuxeoRequest, body: HTTPClient.Body?, as type: T.Type
    ) async throws -> T {
        let response = try await send(request, body: body)
        do {
            return try T.read(try NuxeoEntity.parse(response.body))
        } catch var error {
            error.operation = Self.operation(of: request)
            throw error
        }
    }

    /// A response's entity, read with the app's entity types; one that is not JSON names the request.
    func entity(_ response: HTTPClient.Response, request: NuxeoRequest) throws(NuxeoError) -> NuxeoEntity {
        try Self.entity(response, request: request, registry: configuration.entityTypes)
    }

    /// A response's entity, read with `registry`; one that is not JSON names the request.
    static func entity(
        _ response: HTTPClient.Response, request: NuxeoRequest, registry: NuxeoEntityRegistry
    ) throws(NuxeoError) -> NuxeoEntity {
        do {
            return try NuxeoEntity(json: response.body, registry: registry)
        } catch var error {
            error.operation = Self.operation(of: request)
            throw error
        }
    }

    /// `GET path/segments`: how an error names the request it answers.
    static func operation(of request: NuxeoRequest) -> String {
        "\(request.method) \(request.segments.joined(separator: "/"))"
    }

    /// A document by path.
    public func document(path: String) async throws -> NuxeoDocument {
        try Self.document(try await entity(.path(path)))
    }

    /// A document by uid.
    public func document(id: String) async throws -> NuxeoDocument {
        try Self.document(try await entity(.id(id)))
    }

    /// Creates a document in the folder at `parentPath` (`type`: `Folder`, `File`, `Note`…; `name`: its path
    /// segment). Returns it as the server made it.
    public func create(
        in parentPath: String, type: String, name: String, properties: [String: JSONValue] = [:]
    ) async throws -> NuxeoDocument {
        var members: [(key: String, value: JSONValue)] = []
        for key in properties.keys.sorted() { members.append((key, properties[key] ?? .null)) }
        let body: JSONValue = [
            "entity-type": "document", "type": .string(type), "name": .string(name),
            "properties": .object(JSONObject(members)),
        ]
        return try Self.document(try await entity(NuxeoRequest.path(parentPath).method(.post), body: .json(body)))
    }

    /// Changes a document's properties (only those given), guarded by its change token when it has one;
    /// `versioning` `.minor` or `.major` makes the change a new version (`X-Versioning-Option`).
    public func update(
        _ document: NuxeoDocument, properties: [String: JSONValue], versioning: NuxeoVersioning? = nil
    ) async throws -> NuxeoDocument {
        var members: [(key: String, value: JSONValue)] = []
        for key in properties.keys.sorted() { members.append((key, properties[key] ?? .null)) }
        var body: JSONObject = ["entity-type": "document", "properties": .object(JSONObject(members))]
        if let token = document.changeToken { body.append(key: "changeToken", value: .string(token)) }
        var request = NuxeoRequest.id(document.uid).method(.put)
        if let versioning { request = request.header("X-Versioning-Option", versioning.rawValue) }
        return try Self.document(try await entity(request, body: .json(.object(body))))
    }

    /// Deletes a document (a folder with what it holds).
    public func delete(id: String) async throws {
        _ = try await send(NuxeoRequest.id(id).method(.delete))
    }

    /// Streams a document's blob (`@blob/file:content` by default) into a file, in constant memory; the file is
    /// replaced only when the download succeeds. Downloads wait their turn beyond
    /// ``Configuration/maximumConcurrentDownloads``; cancelling the task stops one, waiting or running.
    public func downloadBlob(
        id: String, xpath: String = "file:content", to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws {
        let request = NuxeoRequest.id(id).adapter("blob", xpath)
        let url = request.url(
            server: configuration.serverURL, apiPrefix: configuration.apiPrefix, repository: configuration.repository)
        let operation = "GET \(request.segments.joined(separator: "/"))"
        do {
            let client = client
            let headers = configuration.headers
            _ = try await downloads.run {
                try await client.download(
                    HTTPClient.Request(.get, url: url, headers: headers, operation: operation), to: file,
                    progress: progress)
            }
        } catch let error as HTTPTransferError {
            var failure = NuxeoError(.transport, error.message, status: error.status, operation: operation)
            if let excerpt = error.responseExcerpt,
                case .exception(let refusal)? = try? NuxeoEntity(json: Data(excerpt.utf8))
            {
                failure = refusal
                failure.operation = operation
            }
            throw failure
        }
    }

    /// Runs an Automation operation (`Document.Fetch`, `Repository.Query`…): its `input` (a document by path or
    /// uid), `params` and `context`. Returns what it answered as an entity, or nil for a void operation (or a blob:
    /// read those with ``send(_:body:)``).
    @discardableResult
    public func execute(
        _ operationID: String, input: String? = nil, params: [String: JSONValue] = [:],
        context: [String: JSONValue] = [:]
    ) async throws -> NuxeoEntity? {
        try await run(
            operationID, input: input.map { $0.hasPrefix("/") ? "doc:" + $0 : $0 }, params: params, context: context)
    }

    /// Runs a document operation on each of several documents (`docs:` input, paths or uids): the documents it
    /// answered, or nil for a void operation.
    @discardableResult
    public func execute(
        _ operationID: String, documents: [String], params: [String: JSONValue] = [:],
        context: [String: JSONValue] = [:]
    ) async throws -> NuxeoEntity? {
        guard !documents.isEmpty, !documents.contains(where: { $0.isEmpty || $0.contains(",") }) else {
            throw NuxeoError(
                .invalidArgument, "a documents input names at least one document, none empty or with a comma",
                operation: operationID)
        }
        return try await run(
            operationID, input: "docs:" + documents.joined(separator: ","), params: params, context: context)
    }

    /// Runs an operation whose input is a file (`FileManager.Import` with `context.currentDocument`,
    /// `Blob.AttachOnDocument` with `params.document`), sent with the call as one `multipart/related` request and
    /// streamed from disk. For large files, or to resume after a dropped connection, upload in a batch instead
    /// (``upload(file:name:mimeType:chunkSize:batchID:fileIndex:progress:)``).
    @discardableResult
    public func execute(
        _ operationID: String, file: URL, fileName: String? = nil, mimeType: String = "application/octet-stream",
        params: [String: JSONValue] = [:], context: [String: JSONValue] = [:]
    ) async throws -> NuxeoEntity? {
        try await run(
            operationID, input: nil, params: params, context: context,
            file: (file, fileName ?? file.lastPathComponent, mimeType))
    }

    private func run(
        _ operationID: String, input: String?, params: [String: JSONValue], context: [String: JSONValue],
        file: (url: URL, name: String, mimeType: String)? = nil
    ) async throws -> NuxeoEntity? {
        func object(_ members: [String: JSONValue]) -> JSONValue {
            .object(JSONObject(members.keys.sorted().map { (key: $0, value: members[$0] ?? .null) }))
        }
        if configuration.checksOperations { try await check(operationID, params: params) }
        var call: JSONObject = ["params": object(params), "context": object(context)]
        if let input { call.append(key: "input", value: .string(input)) }
        var body = HTTPClient.Body.json(.object(call))
        if let file {
            body = try Self.related(call: .object(call), file: file.url, name: file.name, mimeType: file.mimeType)
        }
        let response = try await send(NuxeoRequest.resource("automation", operationID).method(.post), body: body)
        guard response.status != 204, !response.body.isEmpty else { return nil }
        return try NuxeoEntity(json: response.body, registry: configuration.entityTypes)
    }

    /// A line break or another control character: never in a header value.
    /// Controls, NEL and the line and paragraph separators: what may not stand in a header value.
    static func isUnsafeInHeader(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || [0x7F, 0x85, 0x2028, 0x2029].contains(scalar.value)
    }

    /// Automation's multipart/related body: the call (Content-ID `request`), then the file (Content-ID `input`),
    /// read from disk while it is sent.
    static func related(call: JSONValue, file: URL, name: String, mimeType: String) throws -> HTTPClient.Body {
        let boundary = "satchel-" + UUID().uuidString
        let length: Int64
        do {
            length = try HTTPClient.Body.file(file).length
        } catch {
            throw NuxeoError(.invalidArgument, "\(file.path) cannot be read: \(error)")
        }
        // Header values: no line breaks or quotes from a file name.
        // By scalar: a quote followed by a combining mark is one Character, not equal to `"`.
        let safeName = name.escapingScalars { Self.isUnsafeInHeader($0) || $0 == "\"" || $0 == "\\" ? "_" : nil }
        let encodedName = safeName.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "file"
        let safeType =
            mimeType.unicodeScalars.contains(where: Self.isUnsafeInHeader) ? "application/octet-stream" : mimeType
        let head =
            "--\(boundary)\r\nContent-Type: application/json+nxrequest; charset=UTF-8\r\nContent-ID: request\r\n\r\n"
        let blobHead =
            "\r\n--\(boundary)\r\nContent-Type: \(safeType)\r\nContent-Transfer-Encoding: binary\r\n"
            + "Content-Disposition: attachment; filename=\"\(safeName)\"; filename*=UTF-8''\(encodedName)\r\n"
            + "Content-ID: input\r\n\r\n"
        return HTTPClient.Body(
            segments: [
                .data(Data(head.utf8)), .data(Data(call.serialized())), .data(Data(blobHead.utf8)),
                .file(file, offset: 0, length: length), .data(Data("\r\n--\(boundary)--\r\n".utf8)),
            ],
            contentType:
                "multipart/related; boundary=\(boundary); type=\"application/json+nxrequest\"; start=\"request\"")
    }

    /// Who the session is (`automation/login`).
    public func login() async throws -> NuxeoLogin {
        guard case .login(let login) = try await entity(NuxeoRequest.resource("automation", "login").method(.post))
        else { throw NuxeoError(.invalidResponse, "automation/login answered no login entity") }
        return login
    }

    /// The children of the folder at `path`, page by page as they are iterated (`@children`).
    public func children(ofPath path: String, pageSize: Int = 50) -> AsyncThrowingStream<NuxeoDocument, any Error> {
        pages(NuxeoRequest.path(path).adapter("children"), pageSize: pageSize)
    }

    /// The documents an NXQL query selects, page by page as they are iterated.
    public func query(_ nxql: String, pageSize: Int = 50) -> AsyncThrowingStream<NuxeoDocument, any Error> {
        pages(NuxeoRequest.search(nxql: nxql), pageSize: pageSize)
    }

    /// The pages of an NXQL query, as the server answers them (what ``query(_:pageSize:)`` flattens).
    public func queryPages(_ nxql: String, pageSize: Int = 50) -> AsyncThrowingStream<NuxeoDocumentPage, any Error> {
        pages(NuxeoRequest.search(nxql: nxql), pageSize: pageSize)
    }

    private func pages(_ request: NuxeoRequest, pageSize: Int) -> AsyncThrowingStream<NuxeoDocument, any Error> {
        let pages: AsyncThrowingStream<NuxeoDocumentPage, any Error> = pages(request, pageSize: pageSize)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await page in pages { for document in page.entries { continuation.yield(document) } }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Pages of documents, one request per page. Once a page has said how many pages there are, the next page is
    /// asked for before this one is read, so the server builds it while this one is decoded; a page past the count
    /// is never asked for.
    private func pages(_ request: NuxeoRequest, pageSize: Int) -> AsyncThrowingStream<NuxeoDocumentPage, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                func fetch(_ index: Int) -> Task<HTTPClient.Response, any Error> {
                    let page = request.query("pageSize", String(pageSize)).query("currentPageIndex", String(index))
                    return Task { try await send(page) }
                }
                var prefetched: Task<HTTPClient.Response, any Error>?
                defer { prefetched?.cancel() }
                do {
                    var index = 0
                    var pageCount: Int?
                    while true {
                        let response = try await (prefetched ?? fetch(index)).value
                        prefetched = nil
                        if let pageCount, index + 1 < pageCount { prefetched = fetch(index + 1) }
                        let documents = try Self.documentPage(response, request: request)
                        continuation.yield(documents)
                        // A page that brought nothing ends it even if the server says more follow.
                        guard documents.isNextPageAvailable, !documents.entries.isEmpty else { break }
                        try Task.checkCancellation()
                        pageCount = documents.pageCount
                        index += 1
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A response that must be a page of documents.
    private static func documentPage(
        _ response: HTTPClient.Response, request: NuxeoRequest
    ) throws(NuxeoError) -> NuxeoDocumentPage {
        guard case .documents(let documents) = try entity(response, request: request, registry: NuxeoEntityRegistry())
        else {
            throw NuxeoError(.invalidResponse, "a page of documents was expected")
        }
        return documents
    }

    static func document(_ entity: NuxeoEntity) throws(NuxeoError) -> NuxeoDocument {
        guard case .document(let document) = entity else {
            throw NuxeoError(.invalidResponse, "a document was expected")
        }
        return document
    }
}
