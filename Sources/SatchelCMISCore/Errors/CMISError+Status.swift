public import Foundation
import SatchelJSON

extension CMISError {
    /// The error a Browser binding response with a failure status stands for.
    ///
    /// The body's `exception` name decides the code when the server sent one
    /// (`{"exception":"objectNotFound","message":"…"}`); otherwise the status does: 400 invalid argument,
    /// 401 unauthorized, 403 permission denied, 404 object not found, 405 not supported, 409 constraint,
    /// anything else runtime.
    ///
    /// ```swift
    /// let error = CMISError.browser(status: 404, body: Data(#"{"exception":"objectNotFound","message":"x"}"#.utf8))
    /// error.code == .objectNotFound   // true
    /// ```
    public static func browser(status: Int, body: Data) -> CMISError {
        let (exception, message) = browserException(body)
        return response(status: status, exception: exception, serverMessage: message)
    }

    /// The `exception` and `message` of a Browser binding error body, when it is one.
    package static func browserException(_ body: Data) -> (exception: String?, message: String?) {
        guard let json = try? JSONValue(parsing: body, limits: JSONLimits(maxDepth: 64)) else { return (nil, nil) }
        return (json["exception"]?.stringValue, json["message"]?.stringValue)
    }

    /// The code an HTTP status stands for when the body names no exception.
    package static func statusCode(_ status: Int) -> Code {
        switch status {
        case 400: return .invalidArgument
        case 401: return .unauthorized
        case 403: return .permissionDenied
        case 404: return .objectNotFound
        case 405: return .notSupported
        case 409: return .constraint
        default: return .runtime
        }
    }

    /// The error for a refused request, whichever binding read `exception` and `serverMessage` from its body:
    /// the exception name wins over the status, except that a 401 (or, with `unauthorized`, a login page) is
    /// always `.unauthorized`.
    package static func response(
        status: Int, exception: String?, serverMessage: String?, unauthorized: Bool = false,
        fallbackMessage: String? = nil, underlying: (any Error)? = nil
    ) -> CMISError {
        let code: Code
        if status == 401 || unauthorized {
            code = .unauthorized
        } else if let exception, let known = Code.serverExceptions[exception] {
            code = known
        } else {
            code = statusCode(status)
        }
        let message = serverMessage ?? fallbackMessage ?? "HTTP status \(status)"
        return CMISError(code, message, serverException: exception, status: status, underlying: underlying)
    }
}
