public import Hummingbird
public import SatchelCMISCore
import SatchelJSON
import SatchelText

extension CMISError {
    /// The HTTP status every binding of `satchel serve` (Browser, AtomPub, Nuxeo) gives this failure: the one CMIS
    /// 1.1 gives each exception, else the status the failure carries (a back-end's), else 500.
    public var httpStatus: HTTPResponse.Status {
        switch code {
        case .invalidArgument, .filterNotValid: .badRequest
        case .permissionDenied, .streamNotSupported: .forbidden
        case .objectNotFound: .notFound
        case .notSupported: .methodNotAllowed
        case .constraint, .contentAlreadyExists, .nameConstraintViolation, .updateConflict, .versioning: .conflict
        case .unauthorized: .unauthorized
        // A gateway's back-end that cannot be reached, or answers with something that is not CMIS.
        case .connection: .serviceUnavailable
        case .invalidResponse: .badGateway
        default: status.map { HTTPResponse.Status(code: $0) } ?? .internalServerError
        }
    }

    /// The exception name a response carries, in every binding: server codes as they are, an authentication failure
    /// as `permissionDenied`, client-side codes (a back-end that cannot be reached or read) as `runtime`.
    public var exceptionName: String {
        switch code {
        case .unauthorized: "permissionDenied"
        case .connection, .invalidResponse: "runtime"
        default: code.name
        }
    }
}

/// Browser binding error bodies: `{"exception":"objectNotFound","message":"…"}`.
public enum CMISErrorResponse {
    /// The JSON error response for `error`, with the status the specification gives.
    public static func json(_ error: CMISError, status: HTTPResponse.Status? = nil) -> Response {
        var writer = JSONWriter()
        writer.writeObject { writer in
            writer.write(key: "exception", error.exceptionName)
            writer.write(key: "message", error.message)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status ?? error.httpStatus, headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    /// The 429 answer to a credential that may not be checked yet: too many failed logins for its user name or
    /// address, or too many passwords waiting to be checked.
    public static func tooManyAttempts(retryAfter wait: Duration) -> Response {
        let seconds = max(1, Int(wait.timeInterval.rounded(.up)))
        var response = json(
            CMISError(.permissionDenied, "too many failed logins: try again in \(seconds) s"), status: .tooManyRequests)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// The 401 answer that makes Basic clients send credentials.
    public static func challenge(_ message: String = "authentication required") -> Response {
        var response = json(CMISError(.permissionDenied, message), status: .unauthorized)
        response.headers[.wwwAuthenticate] = #"Basic realm="Satchel""#
        return response
    }
}
