import Synchronization
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Routes URLSession's delegate callbacks to the waiting `perform` calls.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    /// What one task collects until it completes. Body fields are touched only on the session's serial delegate
    /// queue; the continuation and the activity clock are shared with the watchdog, behind a lock.
    final class TaskState: @unchecked Sendable {
        let request: TransportRequest
        var body = Data()
        var bodyLength: Int64 = 0
        var failure: HTTPTransferError?
        /// For streamed responses: where the body goes once the head has been handed over.
        let channel: ResponseBodyChannel?
        private let shared = Mutex<
            (continuation: CheckedContinuation<TransportResponse, any Error>?, activity: ContinuousClock.Instant)
        >(
            (nil, .now)
        )

        init(request: TransportRequest, channel: ResponseBodyChannel? = nil) {
            self.request = request
            self.channel = channel
        }

        var memoryLimit: Int? {
            if channel == nil, case .memory(let limit) = request.destination { return limit }
            return nil
        }

        func attach(_ continuation: CheckedContinuation<TransportResponse, any Error>) {
            shared.withLock { $0 = (continuation, .now) }
        }

        func touch() { shared.withLock { $0.activity = .now } }

        var idleSince: ContinuousClock.Instant { shared.withLock { $0.activity } }

        /// Resumes the waiting caller; only the first call has an effect.
        func finish(_ result: Result<TransportResponse, any Error>) {
            let continuation = shared.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(with: result)
        }
    }

    private let tasks = Mutex<[Int: (task: URLSessionTask, state: TaskState)]>([:])
    private let watchdogRunning = Mutex(false)

    func register(
        _ task: URLSessionTask,
        state: TaskState,
        continuation: CheckedContinuation<TransportResponse, any Error>
    ) {
        state.attach(continuation)
        tasks.withLock { $0[task.taskIdentifier] = (task, state) }
        startWatchdog()
    }

    private func state(for task: URLSessionTask) -> TaskState? {
        let state = tasks.withLock { $0[task.taskIdentifier]?.state }
        state?.touch()
        return state
    }

    /// Turns a request on which URLSession stopped reporting anything into a timeout.
    ///
    /// swift-corelibs-foundation has been seen to lose a transfer under load: no data, no completion and no
    /// timeout. The watchdog fails such a request once it has been idle for its timeout plus a grace period.
    private func startWatchdog() {
        guard
            watchdogRunning.withLock({ running in
                defer { running = true }
                return !running
            })
        else { return }
        Task.detached { [weak self] in
            while let self {
                try? await Task.sleep(for: .milliseconds(500))
                let now = ContinuousClock.now
                let stalled = self.tasks.withLock { tasks in
                    let stalled = tasks.filter {
                        // A stream paused for its consumer is waiting on purpose.
                        $0.value.state.channel?.isPaused != true
                            && now - $0.value.state.idleSince > $0.value.state.request.timeout + .seconds(1)
                    }
                    for key in stalled.keys { tasks.removeValue(forKey: key) }
                    return Array(stalled.values)
                }
                for (task, state) in stalled {
                    let error = HTTPTransferError(.timeout, "the server did not answer within \(state.request.timeout)")
                    state.finish(.failure(error))
                    state.channel?.finish(throwing: error)
                    task.cancel()
                }
                let idle = self.tasks.withLock { $0.isEmpty }
                if idle {
                    self.watchdogRunning.withLock { $0 = false }
                    // A task registered between the check and the reset starts its own watchdog.
                    if self.tasks.withLock({ !$0.isEmpty }) { self.startWatchdog() }
                    return
                }
            }
        }
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
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Server trust is judged by the system. HTTP authentication is the auth providers' job: URLSession must
        // hand the 401 back rather than answer the challenge itself (on Linux, leaving it to the default handling
        // stalls the request).
        let httpMethods = [
            NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
        ]
        if httpMethods.contains(challenge.protectionSpace.authenticationMethod) {
            completionHandler(.performDefaultHandling, nil)
        } else {
            completionHandler(.performDefaultHandling, nil)
        }
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
        if let state = state(for: dataTask), state.channel != nil, let response = response as? HTTPURLResponse {
            state.finish(.success(Self.response(response, state: state)))
            completionHandler(.allow)
            return
        }
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
        if let channel = state.channel {
            do {
                state.bodyLength += Int64(data.count)
                if try !channel.offer(data) { dataTask.suspend() }
            } catch {
                state.failure = error
                dataTask.cancel()
            }
            return
        }
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
            state.failure = HTTPTransferError(
                .fileSystem, "cannot move the download to \(destination.path)", underlying: error)
        }
    }

    // MARK: Completion

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier)?.state }) else { return }
        if let channel = state.channel {
            let failure =
                state.failure ?? error.map { URLSessionTransport.map($0, request: state.request) }
                ?? (task.response is HTTPURLResponse
                    ? nil : HTTPTransferError(.invalidResponse, "the server sent no HTTP response"))
            if let failure {
                state.finish(.failure(failure))
            } else if let response = task.response as? HTTPURLResponse {
                state.finish(.success(Self.response(response, state: state)))
            }
            channel.finish(throwing: failure)
            return
        }
        if let failure = state.failure {
            state.finish(.failure(failure))
        } else if let error {
            state.finish(.failure(URLSessionTransport.map(error, request: state.request)))
        } else if let response = task.response as? HTTPURLResponse {
            state.finish(.success(Self.response(response, state: state)))
        } else {
            state.finish(.failure(HTTPTransferError(.invalidResponse, "the server sent no HTTP response")))
        }
    }

    private static func response(_ response: HTTPURLResponse, state: TaskState) -> TransportResponse {
        var headers = HTTPClient.Headers()
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

    private static func tooLarge(limit: Int, announced: Int64?) -> HTTPTransferError {
        let size = announced.map { " (\($0) bytes announced)" } ?? ""
        return HTTPTransferError(
            .responseTooLarge,
            "the response is larger than the \(limit) bytes allowed in memory\(size); download it to a file instead"
        )
    }
}
