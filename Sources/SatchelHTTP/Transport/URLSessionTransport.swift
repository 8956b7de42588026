import Synchronization
import Foundation
import SatchelText
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Foundation's `URLSession`: the default transport on Apple platforms. It works on Linux too, where the default
/// is `AutomaticTransport`.
///
/// It uses its own ephemeral session that stores no cookies, credentials or cache on disk (the client keeps
/// cookies in memory), follows no redirects itself, streams request bodies from ``HTTPClient/Body`` segments and
/// writes downloads to a file, so large transfers run in constant memory.
///
/// ```swift
/// let client = HTTPClient(transport: URLSessionTransport(configuration: .init(maximumConnectionsPerHost: 4)))
/// ```
public final class URLSessionTransport: HTTPStreamingTransport {
    /// What the transport's session is made with; transports of one configuration share one session.
    public struct Configuration: Sendable, Hashable {
        /// The most connections open to one host at once (8 by default).
        public var maximumConnectionsPerHost: Int
        /// A configuration of the given limit.
        public init(maximumConnectionsPerHost: Int = 8) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
        }
    }

    /// What the transport's session is made with.
    public let configuration: Configuration

    /// Creating a transport is free: the shared session is made on the first request (one per configuration, for
    /// the whole process).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// One URLSession per configuration for the whole process.
    ///
    /// Each URLSession on Linux runs its own libcurl multi handle; dozens of them side by side lost socket events
    /// under load in our tests (requests that never completed nor timed out), and sharing one also lets every
    /// client reuse the same keep-alive connections.
    private static let sessions = Mutex<[Int: (URLSession, URLSessionTransportDelegate)]>([:])

    private static func sharedSession(for configuration: Configuration) -> (URLSession, URLSessionTransportDelegate) {
        sessions.withLock { sessions in
            if let existing = sessions[configuration.maximumConnectionsPerHost] { return existing }
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.httpCookieStorage = nil
            sessionConfiguration.httpShouldSetCookies = false
            sessionConfiguration.httpCookieAcceptPolicy = .never
            sessionConfiguration.urlCredentialStorage = nil
            sessionConfiguration.urlCache = nil
            sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
            sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
            sessionConfiguration.timeoutIntervalForResource = 7 * 24 * 3600
            let queue = OperationQueue()
            queue.name = "satchel.http.urlsession"
            queue.maxConcurrentOperationCount = 1
            let delegate = URLSessionTransportDelegate()
            let session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
            sessions[configuration.maximumConnectionsPerHost] = (session, delegate)
            return (session, delegate)
        }
    }

    /// Runs a data, upload or download task on the shared session; cancelling the calling task cancels it.
    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let (session, delegate) = Self.sharedSession(for: configuration)
        // A body that is one whole file, answered into memory, goes as an upload task: URLSession then reads the
        // file itself and sends a Content-Length (a streamed body is always chunked on Linux).
        var uploadFile: URL?
        if case .memory = request.destination { uploadFile = Self.wholeFile(of: request.body) }
        let urlRequest = makeURLRequest(request, uploadFile: uploadFile)
        let task: URLSessionTask =
            switch (request.destination, uploadFile) {
            case (.memory, let file?): session.uploadTask(with: urlRequest, fromFile: file)
            case (.memory, nil): session.dataTask(with: urlRequest)
            case (.file, _): session.downloadTask(with: urlRequest)
            }
        let state = URLSessionTransportDelegate.TaskState(request: request)
        return try await run(task, state: state, delegate: delegate)
    }

    /// Returns once the head has arrived; the body then goes into `channel`, the task suspended while the
    /// consumer is behind.
    public func performStreaming(
        _ request: TransportRequest, into channel: ResponseBodyChannel
    ) async throws -> TransportResponse {
        try Task.checkCancellation()
        let (session, delegate) = Self.sharedSession(for: configuration)
        let task = session.dataTask(with: makeURLRequest(request, uploadFile: nil))
        channel.setOnDemand { task.resume() }
        channel.setOnCancel { task.cancel() }
        let state = URLSessionTransportDelegate.TaskState(request: request, channel: channel)
        return try await run(task, state: state, delegate: delegate)
    }

    /// Starts `task` and waits for its delegate to finish it; cancelling the waiting task cancels `task`.
    private func run(
        _ task: URLSessionTask, state: URLSessionTransportDelegate.TaskState, delegate: URLSessionTransportDelegate
    ) async throws -> TransportResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(task, state: state, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// The file of a body that is exactly one whole file, or nil.
    static func wholeFile(of body: HTTPClient.Body?) -> URL? {
        guard let body, body.segments.count == 1, case .file(let url, 0, let length) = body.segments[0],
            (try? FileInfo.size(of: url)) == length
        else { return nil }
        return url
    }

    private func makeURLRequest(_ request: TransportRequest, uploadFile: URL?) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = request.timeout.timeInterval
        urlRequest.httpShouldHandleCookies = false
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if let body = request.body {
            if let contentType = body.contentType, !request.headers.contains("Content-Type") {
                urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type")
            }
            // An upload task reads its file and sets Content-Length itself.
            if let data = body.inMemoryData {
                urlRequest.setValue(String(body.length), forHTTPHeaderField: "Content-Length")
                urlRequest.httpBody = data
            } else if uploadFile == nil {
                if !Platform.streamedBodiesAreChunked {
                    urlRequest.setValue(String(body.length), forHTTPHeaderField: "Content-Length")
                }
                urlRequest.httpBodyStream = SegmentInputStream(segments: body.segments)
            }
        }
        return urlRequest
    }
}

extension URLSessionTransport {
    /// Maps URLSession's errors to ``HTTPTransferError`` codes.
    static func map(_ error: any Error, request: TransportRequest) -> HTTPTransferError {
        if let error = error as? HTTPTransferError { return error }
        guard let urlError = error as? URLError else {
            return HTTPTransferError(.connection, "the request failed", underlying: error)
        }
        let (code, message): (HTTPTransferError.Code, String) =
            switch urlError.code {
            case .timedOut: (.timeout, "the server did not answer within \(request.timeout)")
            case .cancelled: (.cancelled, "the request was cancelled")
            case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
                .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
                .clientCertificateRequired:
                (.tls, "the secure connection failed")
            case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
                (.invalidResponse, "the server's answer could not be read")
            case .networkConnectionLost:
                (.connection, "the connection closed before the whole response arrived")
            // The client only hands over http(s) URLs, so "unsupported" here means libcurl could not read the answer
            // as HTTP (a broken status line, say).
            case .unsupportedURL: (.invalidResponse, "the server's answer is not valid HTTP")
            case .badURL: (.invalidRequest, "the URL is not usable")
            case .cannotFindHost, .dnsLookupFailed: (.connection, "the host name could not be resolved")
            case .cannotConnectToHost: (.connection, "could not connect to the server")
            default: (.connection, "the connection failed")
            }
        return HTTPTransferError(code, message, underlying: urlError)
    }
}
