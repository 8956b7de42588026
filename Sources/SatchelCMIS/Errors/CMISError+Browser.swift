import Foundation
import SatchelHTTP
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
    public static func browser(status: Int, body: Data, httpError: HTTPError? = nil) -> CMISError {
        var exception: String?
        var serverMessage: String?
        if let json = try? JSONValue(parsing: body, limits: JSONLimits(maxDepth: 64)) {
            exception = json["exception"]?.stringValue
            serverMessage = json["message"]?.stringValue
        }
        return response(status: status, exception: exception, serverMessage: serverMessage, httpError: httpError)
    }

    /// The error a transport failure stands for: its status when it had one, otherwise `.connection`.
    public static func transport(_ error: HTTPError) -> CMISError {
        if let status = error.status {
            return CMISError(
                status == 401 || error.code == .unauthorized ? .unauthorized : statusCode(status),
                error.serverMessage ?? error.message,
                status: status, httpError: error)
        }
        return CMISError(.connection, error.message, httpError: error)
    }

    static func statusCode(_ status: Int) -> Code {
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
    /// the exception name wins over the status, except that a 401 or a login page is always `.unauthorized`.
    static func response(status: Int, exception: String?, serverMessage: String?, httpError: HTTPError?) -> CMISError {
        let code: Code
        // A 401, or an HTML login page where JSON was expected (an expired SSO session), is an authentication
        // failure whatever else the body says.
        if status == 401 || httpError?.code == .unauthorized {
            code = .unauthorized
        } else if let exception, let known = Code.serverExceptions[exception] {
            code = known
        } else {
            code = statusCode(status)
        }
        let message = serverMessage ?? httpError?.serverMessage ?? httpError?.message ?? "HTTP status \(status)"
        return CMISError(code, message, serverException: exception, status: status, httpError: httpError)
    }
}
