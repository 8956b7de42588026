import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
extension HTTPTransferError.Code {
    /// The code for a non-2xx status.
    public init(status: Int) {
        self =
            switch status {
            case 400: .badRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .notFound
            case 405: .methodNotAllowed
            case 406: .notAcceptable
            case 409: .conflict
            case 410: .gone
            case 412: .preconditionFailed
            case 413: .payloadTooLarge
            case 415: .unsupportedMediaType
            case 416: .rangeNotSatisfiable
            case 429: .tooManyRequests
            case 503: .serviceUnavailable
            case 500...599: .server
            case 400...499: .clientError
            default: .invalidResponse
            }
    }
}

extension HTTPTransferError {
    /// The error for a response the request did not expect.
    static func status(_ response: HTTPClient.Response, body: Data, request: HTTPClient.Request) -> HTTPTransferError {
        let reason = HTTPURLResponse.localizedString(forStatusCode: response.status)
        return HTTPTransferError(
            HTTPTransferError.Code(status: response.status),
            "the server answered \(response.status) \(reason)",
            operation: request.operation,
            method: request.method,
            url: request.url,
            status: response.status,
            responseHeaders: response.headers,
            responseExcerpt: ResponseExcerpt.make(body),
            serverMessage: ServerMessage.extract(from: body, contentType: response.mediaType)
        )
    }

    /// Adds request context to an error raised below the client (by a transport or an auth provider).
    func with(request: HTTPClient.Request) -> HTTPTransferError {
        var error = self
        if error.operation == nil { error.operation = request.operation }
        if error.method == nil { error.method = request.method }
        if error.url == nil { error.url = request.url }
        return error
    }
}
