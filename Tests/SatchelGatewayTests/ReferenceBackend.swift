import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SatchelCMIS
import SatchelHTTP
import SatchelTestSupport
import Synchronization

/// A back-end that answers as the CMIS reference server (OpenCMIS InMemory, repository `A1`) answered: its captured
/// responses (`SatchelCMISCoreTests/Fixtures/cmis-opencmis`), with their URLs pointing here. Every request it gets
/// is logged, so a test can see what the gateway asked.
final class ReferenceBackend: Sendable {
    /// What the handlers share: the log of requests, and the port the answers' URLs name.
    final class State: Sendable {
        let requests = Mutex<[String]>([])
        let port = Mutex(0)
    }

    let server: TestHTTPServer
    private let state: State

    /// The Browser binding's service URL.
    var browserURL: URL { server.url("/inmemory/browser") }
    /// The AtomPub service document's URL.
    var atomPubURL: URL { server.url("/inmemory/atom11") }

    /// The requests so far: `METHOD path?query`, and for a POST its form body after a blank line.
    var log: [String] { state.requests.withLock { $0 } }

    /// The bytes of the folder 138's `cmis:thumbnail` rendition (`138-rendition`); also sent without a length
    /// (chunked) as `138-chunked`.
    static let thumbnail: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<1_200).map { UInt8($0 % 251) }

    private init(server: TestHTTPServer, state: State) {
        self.server = server
        self.state = state
    }

    func stop() async { await server.stop() }

    /// The Satchel client's AtomPub binding to `A1`, straight to this back-end.
    func atomPubBinding() -> any CMISBinding {
        SessionParameters(
            binding: .atomPub, url: atomPubURL, repositoryId: "A1", auth: [BasicAuth(user: "svc", password: "pw-svc")]
        ).makeBinding()
    }

    /// A fixture's bytes.
    static func fixture(_ name: String) throws -> Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SatchelCMISCoreTests/Fixtures/cmis-opencmis/\(name)")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TestServerError("fixture \(name) is missing at \(url.path)")
        }
        return data
    }

    /// A captured answer, its URLs naming the server on `port` instead of the reference server.
    static func answer(_ name: String, type: String, port: Int) throws -> Response {
        try answer(name, type: type, naming: "http://127.0.0.1:\(port)/inmemory")
    }

    /// A captured answer, its URLs naming `here` instead of the reference server.
    static func answer(_ name: String, type: String, naming here: String) throws -> Response {
        // JSON may escape its slashes (`http:\/\/127.0.0.1:8080\/inmemory`).
        let text = String(decoding: try fixture(name), as: UTF8.self)
            .replacing(/http:\/\/127\.0\.0\.1:\d+\/inmemory/, with: here)
            .replacing(/http:\\\/\\\/127\.0\.0\.1:\d+\\\/inmemory/, with: here)
        var headers = HTTPFields()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The folder as the reference server answers a read with a filter: the properties it names alone.
    static func filteredFolder(keeping names: Set<String>) throws -> Response {
        guard
            var object = try JSONSerialization.jsonObject(with: fixture("browser-object-folder-renditions.json"))
                as? [String: Any], let properties = object["properties"] as? [String: Any]
        else { throw TestServerError("the folder fixture has no properties") }
        object["properties"] = properties.filter { names.contains($0.key) }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: .ok, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))))
    }

    static func notFound(json: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = json ? "application/json" : "text/plain"
        let body = json ? #"{"exception":"objectNotFound","message":"Unknown type"}"# : "Unknown type"
        return Response(status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The thumbnail, with a Content-Length or chunked.
    static func thumbnailResponse(chunked: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "image/png"
        guard chunked else {
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: thumbnail)))
        }
        let body = ResponseBody { writer in
            for start in stride(from: 0, to: thumbnail.count, by: 500) {
                try await writer.write(ByteBuffer(bytes: thumbnail[start..<min(start + 500, thumbnail.count)]))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    static func json(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A GET, answered from the captures.
    static func get(_ request: Request, port: Int) throws -> Response {
        let query = request.uri.queryParameters
        let path = request.uri.path
        let json = "application/json"
        let entry = "application/atom+xml;type=entry"
        if path.hasPrefix("/inmemory/browser") {
            switch query.get("cmisselector") {
            case nil, "repositoryInfo": return try answer("browser-repositories.json", type: json, port: port)
            case "object":
                // The reference server honours a filter to the letter.
                if let filter = query.get("filter"), filter != "*" {
                    return try filteredFolder(keeping: Set(filter.split(separator: ",").map(String.init)))
                }
                return try answer("browser-object-folder-renditions.json", type: json, port: port)
            case "content": return thumbnailResponse(chunked: query.get("streamId") == "138-chunked")
            case "query" where query.get("q")?.contains("HUGE") == true:
                // An answer larger than the 16 MiB a mount reads into memory.
                return Self.json(#"{"results":[],"padding":""# + String(repeating: "x", count: 17 << 20) + #""}"#)
            case "query":
                let succinct = query.get("succinct") == "true"
                return try answer(
                    succinct ? "browser-query-aliases-succinct.json" : "browser-query-aliases.json", type: json,
                    port: port)
            case "parents": return Self.json("[]")
            case "typeDefinition" where query.get("typeId") == "cmis:document":
                return try answer("browser-typedef-document.json", type: json, port: port)
            default: return notFound(json: true)
            }
        }
        switch path {
        case "/inmemory/atom11", "/inmemory/atom11/A1":
            return try answer("atompub-service-document.xml", type: "application/atomsvc+xml", port: port)
        case "/inmemory/atom11/A1/id", "/inmemory/atom11/A1/entry":
            if query.get("id") == "666" {
                // A document whose content link points at another host.
                return try answer("atompub-document-entry.xml", type: entry, naming: "http://localhost:9/inmemory")
            }
            return query.get("id") == "133"
                ? try answer("atompub-document-entry.xml", type: entry, port: port)
                : try answer("atompub-folder-entry-filtered.xml", type: entry, port: port)
        case "/inmemory/atom11/A1/changes":
            return try answer("atompub-content-changes.xml", type: "application/atom+xml;type=feed", port: port)
        case "/inmemory/atom11/A1/content": return thumbnailResponse(chunked: false)
        default: return notFound(json: false)
        }
    }

    static func start() async throws -> ReferenceBackend {
        let state = State()
        let server = try await TestHTTPServer.start { router in
            router.on("**", method: .get) { request, _ -> Response in
                state.requests.withLock { $0.append("GET \(request.uri)") }
                return try get(request, port: state.port.withLock { $0 })
            }
            router.on("**", method: .post) { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 1 << 20)
                let text = String(buffer: body)
                state.requests.withLock { $0.append("POST \(request.uri)\n\n\(text)") }
                let port = state.port.withLock { $0 }
                // A type for createType and updateType, else a document (what a create answers).
                if text.contains("cmisaction=createType") || text.contains("cmisaction=updateType") {
                    return try answer("browser-typedef-document.json", type: "application/json", port: port)
                }
                return try answer("browser-object-document.json", type: "application/json", port: port)
            }
        }
        state.port.withLock { $0 = server.port }
        return ReferenceBackend(server: server, state: state)
    }
}
