import Foundation
import SatchelHTTP
import SatchelJSON

extension ODataService {
    /// Sends a request and returns once the head has arrived, the body following while it arrives; a status
    /// outside 2xx becomes an ``ODataError`` with the server's error body read.
    func stream(_ request: HTTPClient.Request) async throws -> ResponseChunks {
        var request = request
        request.validatesStatus = false
        let response: HTTPStreamingResponse
        do {
            response = try await client.stream(request)
        } catch let error as HTTPTransferError {
            throw ODataError(http: error)
        }
        guard response.head.isSuccess else {
            let whole: HTTPClient.Response
            do {
                whole = try await response.collect()
            } catch let error as HTTPTransferError {
                throw ODataError(http: error)
            }
            throw ODataError(response: whole, request: request)
        }
        noteFormat(contentType: response.head.headers["Content-Type"])
        return ResponseChunks(body: response.body, head: response.head)
    }

    /// The page at `url`: JSON is decoded entity by entity while it arrives; a V2 answer whose `Content-Type` does
    /// not say JSON (Atom, which has no streaming reader here, or no type at all) is read whole once it has arrived.
    func entityStream(
        at url: URL, type: CSDLEntityType?, version: ODataVersion, operation: String
    ) async throws -> PageStream {
        var request = request(.get, url, version: version, operation: operation)
        if version == .v4, let size = configuration.pageSize { request.headers["Prefer"] = "odata.maxpagesize=\(size)" }
        let chunks = try await stream(request)
        let reader = try await reader()
        // A V2 answer that does not say it is JSON is read whole, as Atom when it starts with `<`.
        let contentType = chunks.head.headers["Content-Type"]?.lowercased() ?? ""
        guard version == .v2, !contentType.contains("json") else {
            return .streaming(ODataEntityStream(chunks: chunks, reader: reader, type: type))
        }
        var body = Data()
        for try await chunk in chunks { body.append(chunk) }
        var whole = chunks.head
        whole.body = body
        let format = ODataAtom.isXML(body) ? "xml" : "json"
        var page = try Self.decoding(whole, of: request, expecting: format) { try reader.page(from: body, type: type) }
        page.byteCount = body.count
        return .whole(page)
    }

    /// A page as ``entityStream(at:type:version:operation:)`` gives it.
    enum PageStream {
        /// JSON, decoded while it arrives.
        case streaming(ODataEntityStream<ResponseChunks>)
        /// Atom, read whole.
        case whole(ODataPage)
    }
}

/// A response body's chunks, with transport failures mid-body reported as ``ODataError``.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let body: HTTPResponseBody
    let head: HTTPClient.Response

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPResponseBody.AsyncIterator
        mutating func next() async throws -> Data? {
            do {
                return try await base.next()
            } catch let error as HTTPTransferError {
                throw ODataError(http: error)
            }
        }
    }
}

extension ODataError {
    /// An error met while a page was decoded: an ``ODataError`` gets the page's URL and operation, anything else
    /// (invalid JSON, a type that does not decode) becomes `.invalidPayload`.
    static func payload(_ error: any Error, url: URL, operation: String) -> ODataError {
        if var error = error as? ODataError {
            if error.url == nil { error.url = url }
            if error.operation == nil { error.operation = operation }
            return error
        }
        var mapped = ODataError(
            .invalidPayload, "the collection response could not be decoded: \(error)", url: url, underlying: error)
        mapped.operation = operation
        return mapped
    }
}
