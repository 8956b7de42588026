import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore

/// AtomPub error responses: the status CMIS 1.1 gives each exception (part II, 3.2.4), with a text body that
/// names the exception and carries the message between `<!--exception-->` and `<!--message-->` markers, which
/// AtomPub clients (Satchel's among them) read.
enum AtomPubErrors {
    static func status(for code: CMISError.Code) -> HTTPResponse.Status {
        switch code {
        case .invalidArgument, .filterNotValid: .badRequest
        case .unauthorized: .unauthorized
        case .permissionDenied, .streamNotSupported: .forbidden
        case .objectNotFound: .notFound
        case .notSupported: .methodNotAllowed
        case .constraint, .contentAlreadyExists, .nameConstraintViolation, .updateConflict, .versioning: .conflict
        default: .internalServerError
        }
    }

    /// The response for a CMIS error; `status` overrides the exception's (413 for a body over the limit).
    static func response(_ error: CMISError, status: HTTPResponse.Status? = nil) -> Response {
        let name = error.code == .invalidResponse ? "invalidArgument" : error.code.name
        let body =
            "\(name): \(error.message)\n<!--exception-->\(name)<!--/exception-->"
            + "<!--message-->\(escape(error.message))<!--/message-->\n"
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        if error.code == .unauthorized { headers[.wwwAuthenticate] = "Basic realm=\"Satchel\"" }
        return Response(
            status: status ?? self.status(for: error.code), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
