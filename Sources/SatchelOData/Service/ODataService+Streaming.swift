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
        return ResponseChunks(body: response.body, head: response.head)
    }

    /// The entities of the page at `url`, decoded while the page arrives.
    func entityStream(
        at url: URL, type: CSDLEntityType?, version: ODataVersion, operation: String
    ) async throws -> ODataEntityStream<ResponseChunks> {
        var request = request(.get, url, version: version, operation: operation)
        if version == .v4, let size = configuration.pageSize { request.headers["Prefer"] = "odata.maxpagesize=\(size)" }
        let chunks = try await stream(request)
        return ODataEntityStream(chunks: chunks, reader: try await reader(), type: type)
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
