import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Answers one Browser-binding request against a ``CMISTestRepository``.
struct CMISTestHandler {
    typealias Node = CMISTestRepository.Node
    let repository: CMISTestRepository
    let options: CMISTestServer.Options
    let baseURL: URL

    func handle(_ request: Request) async throws -> Response {
        if let user = options.user {
            let expected = "Basic " + Data("\(user):\(options.password ?? "")".utf8).base64EncodedString()
            guard request.headers[.authorization] == expected else {
                var response = CMISTestJSON.error("permissionDenied", "Unauthorized", status: .unauthorized)
                response.headers[.wwwAuthenticate] = "Basic realm=\"cmis\""
                return response
            }
        }
        let segments = request.uri.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        let query = CMISTestForm(query: request.uri.query)
        if segments == ["browser"] {
            var info = CMISTestJSON.repositoryInfo(baseURL: baseURL, options: options)
            if let token = repository.token { info["token"] = token }
            return TestHTTPServer.json([CMISTestServer.repositoryId: info])
        }
        guard segments.count >= 2, segments[1] == CMISTestServer.repositoryId else {
            return CMISTestJSON.error("objectNotFound", "unknown repository", status: .notFound)
        }
        if request.method == .post {
            var request = request
            let buffer = try await request.collectBody(upTo: 256 << 20)
            var form = CMISTestForm(body: Data(buffer.readableBytesView), contentType: request.headers[.contentType])
            for (name, value) in query.fields where form[name] == nil { form.fields[name] = value }
            return post(form, headerToken: request.headers[HTTPField.Name("X-CSRF-Token")!])
        }
        if segments.count == 2 { return repositoryRequest(query) }
        guard segments[2] == "root" else {
            return CMISTestJSON.error("objectNotFound", "unknown URL", status: .notFound)
        }
        let selector = query["cmisselector"] ?? "object"
        repository.count(selector)
        return repository.store.withLock { store -> Response in
            let node: Node?
            if let objectId = query["objectId"] {
                node = store.nodes[objectId]
            } else {
                node = CMISTestRepository.resolve(path: Array(segments.dropFirst(3)), in: store)
            }
            guard let node else {
                let what =
                    query["objectId"].map { "object \($0)" } ?? "/" + segments.dropFirst(3).joined(separator: "/")
                return CMISTestJSON.error("objectNotFound", "Object not found: \(what)", status: .notFound)
            }
            switch selector {
            case "object": return TestHTTPServer.json(CMISTestJSON.object(node, in: store))
            case "children": return children(of: node, query: query, store: store)
            case "content": return content(of: node, range: request.headers[.range])
            default: return CMISTestJSON.error("invalidArgument", "unknown selector \(selector)", status: .badRequest)
            }
        }
    }

    private func repositoryRequest(_ query: CMISTestForm) -> Response {
        let selector = query["cmisselector"] ?? "repositoryInfo"
        repository.count(selector)
        switch selector {
        case "repositoryInfo":
            var info = CMISTestJSON.repositoryInfo(baseURL: baseURL, options: options)
            if let token = repository.token { info["token"] = token }
            return TestHTTPServer.json([CMISTestServer.repositoryId: info])
        case "typeDefinition":
            guard let type = CMISTestJSON.typeDefinition(query["typeId"] ?? "") else {
                return CMISTestJSON.error("objectNotFound", "Unknown type \(query["typeId"] ?? "")", status: .notFound)
            }
            return TestHTTPServer.json(type)
        case "query":
            return self.query(query)
        default:
            return CMISTestJSON.error("invalidArgument", "unknown selector \(selector)", status: .badRequest)
        }
    }

    private func page<T>(_ all: [T], _ query: CMISTestForm) -> (items: ArraySlice<T>, hasMore: Bool) {
        let skip = min(Int(query["skipCount"] ?? "") ?? 0, all.count)
        let max = Int(query["maxItems"] ?? "") ?? 100
        let items = all[skip..<min(skip + max, all.count)]
        return (items, skip + items.count < all.count)
    }

    private func children(of folder: Node, query: CMISTestForm, store: CMISTestRepository.Store) -> Response {
        guard folder.isFolder else {
            return CMISTestJSON.error("invalidArgument", "\(folder.id) is not a folder", status: .badRequest)
        }
        let all = store.children[folder.id, default: []].compactMap { store.nodes[$0] }
        let (items, hasMore) = page(all, query)
        return TestHTTPServer.json([
            "objects": items.map { ["object": CMISTestJSON.object($0, in: store), "pathSegment": $0.name] },
            "hasMoreItems": hasMore, "numItems": all.count,
        ])
    }

    private func content(of node: Node, range: String?) -> Response {
        guard let content = node.content else {
            return CMISTestJSON.error("constraint", "\(node.name) has no content", status: .conflict)
        }
        var headers: HTTPFields = [.contentType: node.mimeType ?? "application/octet-stream"]
        var bytes = content
        var status = HTTPResponse.Status.ok
        if let range, range.hasPrefix("bytes=") {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            let first = bounds.first.flatMap { Int($0) } ?? 0
            let last = min(
                bounds.count > 1 ? Int(bounds[1]) ?? content.count - 1 : content.count - 1, content.count - 1)
            guard first <= last else {
                headers[.contentRange] = "bytes */\(content.count)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            bytes = content.subdata(in: first..<(last + 1))
            headers[.contentRange] = "bytes \(first)-\(last)/\(content.count)"
            status = .partialContent
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func query(_ query: CMISTestForm) -> Response {
        let statement = (query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        let pattern = #"^SELECT \* FROM (cmis:document|cmis:folder)(?: WHERE IN_FOLDER\('([^']*)'\))?$"#
        guard let match = statement.range(of: pattern, options: [.regularExpression, .caseInsensitive]),
            match == statement.startIndex..<statement.endIndex
        else {
            return CMISTestJSON.error("invalidArgument", "Unsupported statement: \(statement)", status: .badRequest)
        }
        let wantsFolders = statement.lowercased().contains("from cmis:folder")
        let folderId = statement.range(of: "IN_FOLDER('", options: .caseInsensitive).map {
            String(statement[$0.upperBound...].prefix { $0 != "'" })
        }
        return repository.store.withLock { store in
            let all = store.nodes.values
                .filter { $0.isFolder == wantsFolders && $0.id != "root" }
                .filter { folderId == nil || $0.parentId == folderId }
                .sorted { (Int($0.id) ?? 0) < (Int($1.id) ?? 0) }
            let (items, hasMore) = page(all, query)
            return TestHTTPServer.json([
                "results": items.map { CMISTestJSON.object($0, in: store) },
                "hasMoreItems": hasMore, "numItems": all.count,
            ])
        }
    }
}
