public import Foundation
public import SatchelCMISCore
public import SatchelHTTP

/// What the client adds to ``CMISError``: the transport's error behind a failure.
extension CMISError {
    /// An error whose cause is a transport failure (kept as `underlying`).
    public init(
        _ code: Code, _ message: String, serverException: String? = nil, status: Int? = nil, offset: Int? = nil,
        path: String? = nil, httpError: HTTPTransferError?
    ) {
        self.init(
            code, message, serverException: serverException, status: status, offset: offset, path: path,
            underlying: httpError)
    }

    /// The transport error, when the failure came from SatchelHTTP.
    public var httpError: HTTPTransferError? { underlying as? HTTPTransferError }

    /// `browser(status:body:)` with the transport's error: a login page where JSON was expected is
    /// `.unauthorized`, and the transport's message stands in for a missing server message.
    public static func browser(status: Int, body: Data, httpError: HTTPTransferError?) -> CMISError {
        let (exception, message) = browserException(body)
        return response(status: status, exception: exception, serverMessage: message, httpError: httpError)
    }

    /// The error a transport failure stands for: its status when it had one, otherwise `.connection`.
    public static func transport(_ error: HTTPTransferError) -> CMISError {
        if let status = error.status {
            return CMISError(
                status == 401 || error.code == .unauthorized ? .unauthorized : statusCode(status),
                error.serverMessage ?? error.message,
                status: status, httpError: error)
        }
        return CMISError(.connection, error.message, httpError: error)
    }

    /// ``response(status:exception:serverMessage:unauthorized:fallbackMessage:underlying:)`` for a refused
    /// request the transport reported.
    static func response(
        status: Int, exception: String?, serverMessage: String?, httpError: HTTPTransferError?
    ) -> CMISError {
        response(
            status: status, exception: exception, serverMessage: serverMessage,
            unauthorized: httpError?.code == .unauthorized,
            fallbackMessage: httpError?.serverMessage ?? httpError?.message, underlying: httpError)
    }
}
