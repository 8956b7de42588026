import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelText

/// AtomPub error responses: the status and exception name every binding gives a failure (``CMISError/httpStatus``,
/// ``CMISError/exceptionName``: CMIS 1.1 part II, 3.2.4 and 5.2.8), with a text body that
/// names the exception and carries the message between `<!--exception-->` and `<!--message-->` markers, which
/// AtomPub clients (Satchel's among them) read.
enum AtomPubErrors {
    /// The response for a CMIS error; `status` overrides the exception's (413 for a body over the limit).
    static func response(_ error: CMISError, status: HTTPResponse.Status? = nil) -> Response {
        let name = error.exceptionName
        let body =
            "\(name): \(error.message)\n<!--exception-->\(name)<!--/exception-->"
            + "<!--message-->\(escape(error.message))<!--/message-->\n"
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Basic realm=\"Satchel\"" }
        return Response(
            status: status ?? error.httpStatus, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func escape(_ text: String) -> String {
        text.escapingScalars {
            switch $0 {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            default: nil
            }
        }
    }
}
