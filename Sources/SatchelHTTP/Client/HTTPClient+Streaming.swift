import Foundation
extension HTTPClient {
    /// Sends a request and returns as soon as the response head has arrived; the body follows as an
    /// `AsyncSequence` of chunks (see ``HTTPStreamingResponse``).
    ///
    /// Authentication, cookies, redirects, retries and status validation work as in ``send(_:progress:)``, for
    /// the head: an answer outside 2xx (or an HTML login page) has its body read into memory, bounded, to be
    /// judged, and throws ``HTTPTransferError`` unless `request.validatesStatus` is false. Once the head is returned
    /// nothing is retried: a connection cut mid-body throws from the body's iteration.
    ///
    /// ```swift
    /// let response = try await client.stream(HTTPClient.Request(url: feedURL), maximumBytes: 512 * 1024 * 1024)
    /// var parser = JSONArrayStreamParser(path: ["value"])
    /// for try await chunk in response.body {
    ///     for item in try parser.append(chunk) { print(item) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: the request; its answer's status is judged before the body is read (see above).
    ///   - maximumBytes: the most body bytes accepted; an announced `Content-Length` above it throws at once, and a
    ///     body that grows past it throws `.responseTooLarge` from the iteration. `nil`: no limit.
    public func stream(_ request: HTTPClient.Request, maximumBytes: Int64? = nil) async throws -> HTTPStreamingResponse
    {
        var (head, body) = try await run(request, destination: .stream(limit: maximumBytes), progress: nil)
        if body == nil {
            body = HTTPResponseBody(data: head.body)
            head.body = Data()
        }
        return HTTPStreamingResponse(head: head, body: body ?? HTTPResponseBody(data: Data()))
    }
}
