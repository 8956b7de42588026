import HTTPTypes
import Hummingbird

/// Answers `HEAD` for every `GET` route: the request is routed as a `GET`, and the response goes out with its
/// status and headers (a `Content-Length` included) but without its body.
///
/// Content bodies are file streams that are read only when written, so a `HEAD` on a large document reads
/// nothing from disk. The access log shows such a request as `GET`, which is what ran.
struct HeadRequestResponder<Inner: HTTPResponder>: HTTPResponder {
    typealias Context = Inner.Context
    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .head else { return try await inner.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        var response = try await inner.respond(to: Request(head: head, body: request.body), context: context)
        let length = response.headers[.contentLength] ?? response.body.contentLength.map { String($0) }
        response.body = ResponseBody()  // sets Content-Length to 0: the GET's length goes back after it
        response.headers[.contentLength] = length
        return response
    }
}
