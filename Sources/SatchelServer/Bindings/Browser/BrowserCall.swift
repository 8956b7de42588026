import Foundation
import Hummingbird
import Logging
import SatchelCMISCore
import SatchelRepository
import SatchelText

/// One request's view of the binding: who calls, which repository and object, and the parameters.
struct BrowserCall {
    let environment: BindingEnvironment
    let caller: CallerContext
    let context: ServerRequestContext
    let request: Request
    /// The binding's service URL as the client addresses it (`http://host:port/cmis/browser`).
    let serviceURL: String
    let repository: String?
    /// Path segments after `root` (nil when the URL does not go through `root`).
    let objectPath: [String]?
    var parameters: BrowserParameters
    var upload: MultipartReader.Upload?
    /// Where a rendered object read is kept (``ResponseCache``); nil for what is not cached.
    var cacheKey: String?

    /// The service of the request's repository (the local engine's when the URL names none).
    var service: any CMISService { environment.repositories.service(for: repository ?? "") }

    func repositoryId() throws(CMISError) -> String {
        guard let repository else { throw CMISError(.invalidArgument, "this URL names no repository") }
        return repository
    }
}

// MARK: Responses

extension BrowserCall {
    var succinct: Bool { parameters.succinct }

    static let jsonContentType = "application/json; charset=utf-8"

    func json(
        status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:], _ write: (inout BrowserJSONWriter) -> Void
    )
        -> Response
    {
        Self.jsonResponse(jsonBytes(write), status: status, headers: extra)
    }

    func jsonBytes(_ write: (inout BrowserJSONWriter) -> Void) -> [UInt8] {
        var writer = BrowserJSONWriter(succinct: succinct)
        write(&writer)
        return writer.bytes
    }

    static func jsonResponse(
        _ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]
    ) -> Response {
        var headers = extra
        headers[.contentType] = jsonContentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    func empty(status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentLength] = "0"
        return Response(status: status, headers: headers, body: .init())
    }

    /// The object URL of `id` (for `Location` headers).
    func objectURL(_ id: String) -> String {
        let repository = BrowserPath.escape(repository ?? "")
        return "\(serviceURL)/\(repository)/root?objectId=\(PercentEncoding.encode(id))"
    }

}
