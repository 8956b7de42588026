import Synchronization

/// Routes URLSession's delegate callbacks to the waiting `perform` calls.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    /// What one task collects until it completes. Touched only on the session's serial delegate queue.
    final class TaskState: @unchecked Sendable {
        let request: TransportRequest
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var body = Data()
        var bodyLength: Int64 = 0
        var failure: HTTPError?

        init(request: TransportRequest) { self.request = request }

        var memoryLimit: Int? {
            if case .memory(let limit) = request.destination { return limit }
            return nil
        }
    }

    private let tasks = Mutex<[Int: TaskState]>([:])

    func register(
        _ task: URLSessionTask,
        state: TaskState,
        continuation: CheckedContinuation<TransportResponse, any Error>
    ) {
        state.continuation = continuation
        tasks.withLock { $0[task.taskIdentifier] = state }
    }

    private func state(for task: URLSessionTask) -> TaskState? {
        tasks.withLock { $0[task.taskIdentifier] }
    }

    // MARK: Redirects and bodies

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)  // HTTPClient follows redirects itself, so that cookies and auth stay right.
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        let segments = state(for: task)?.request.body?.segments ?? []
        completionHandler(SegmentInputStream(segments: segments))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let state = state(for: task) else { return }
        let total = state.request.body?.length
        state.request.progress?.sent(totalBytesSent, of: total)
    }

    // MARK: In-memory bodies

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let state = state(for: dataTask), let limit = state.memoryLimit,
            response.expectedContentLength > Int64(limit)
        {
            state.failure = Self.tooLarge(limit: limit, announced: response.expectedContentLength)
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let state = state(for: dataTask), state.failure == nil else { return }
        if let limit = state.memoryLimit, state.body.count + data.count > limit {
            state.failure = Self.tooLarge(limit: limit, announced: nil)
            dataTask.cancel()
            return
        }
        state.body.append(data)
        state.bodyLength = Int64(state.body.count)
        let expected = dataTask.response?.expectedContentLength ?? -1
        state.request.progress?.received(state.bodyLength, of: expected >= 0 ? expected : nil)
    }

    // MARK: Downloads to files

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard let state = state(for: downloadTask) else { return }
        state.bodyLength = totalBytesWritten
        let total = totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil
        state.request.progress?.received(totalBytesWritten, of: total)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let state = state(for: downloadTask), case .file(let destination) = state.request.destination else {
            return
        }
        // The temporary file is removed when this method returns: move it now.
        do {
            let fileManager = FileManager.default
            if fileManager.fileExists(atPath: destination.path) { try fileManager.removeItem(at: destination) }
            try fileManager.moveItem(at: location, to: destination)
            let size = try fileManager.attributesOfItem(atPath: destination.path)[.size] as? NSNumber
            state.bodyLength = size?.int64Value ?? state.bodyLength
        } catch {
            state.failure = HTTPError(.fileSystem, "cannot move the download to \(destination.path)", underlying: error)
        }
    }

    // MARK: Completion

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }),
            let continuation = state.continuation
        else { return }
        state.continuation = nil
        if let failure = state.failure {
            continuation.resume(throwing: failure)
        } else if let error {
            continuation.resume(throwing: URLSessionTransport.map(error, request: state.request))
        } else if let response = task.response as? HTTPURLResponse {
            continuation.resume(returning: Self.response(response, state: state))
        } else {
            continuation.resume(throwing: HTTPError(.invalidResponse, "the server sent no HTTP response"))
        }
    }

    private static func response(_ response: HTTPURLResponse, state: TaskState) -> TransportResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            if name.caseInsensitiveEquals("Set-Cookie") {
                // Foundation joins several Set-Cookie fields with ", "; split them back at cookie boundaries.
                for cookie in SetCookieParser.splitCombined(value) { headers.add(name, cookie) }
            } else {
                headers.add(name, value)
            }
        }
        return TransportResponse(
            status: response.statusCode,
            headers: headers,
            body: state.body,
            bodyLength: state.bodyLength
        )
    }

    private static func tooLarge(limit: Int, announced: Int64?) -> HTTPError {
        let size = announced.map { " (\($0) bytes announced)" } ?? ""
        return HTTPError(
            .responseTooLarge,
            "the response is larger than the \(limit) bytes allowed in memory\(size); download it to a file instead"
        )
    }
}
