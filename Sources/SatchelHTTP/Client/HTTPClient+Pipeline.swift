import Logging
import SatchelText
public import Foundation

/// The request pipeline: prepare → (retry loop → (auth loop → (redirect loop → transport))) → finish.
extension HTTPClient {
    enum Destination {
        case memory
        case file(URL, resume: Bool)
        /// Handed over while it arrives, at most `limit` bytes.
        case stream(limit: Int64?)
    }

    /// One exchange's outcome before it is validated: the response, the request as sent, and the temporary file
    /// holding the body of a download.
    struct Exchange {
        var response: HTTPClient.Response
        var sent: HTTPClient.Request
        var temporaryFile: URL?
        /// The body still arriving, for `.stream` destinations with a 2xx answer.
        var body: HTTPResponseBody?
    }

    func execute(
        _ request: HTTPClient.Request,
        destination: Destination,
        progress: ProgressReporter?,
        authDepth: Int? = nil
    ) async throws -> HTTPClient.Response {
        try await run(request, destination: destination, progress: progress, authDepth: authDepth).response
    }

    /// The whole pipeline; the body stays open for `.stream` destinations.
    func run(
        _ request: HTTPClient.Request,
        destination: Destination,
        progress: ProgressReporter?,
        authDepth: Int? = nil
    ) async throws -> (response: HTTPClient.Response, body: HTTPResponseBody?) {
        var request = try prepare(request)
        var resumeOffset: Int64 = 0
        if case .file(let file, true) = destination, let size = try? FileInfo.size(of: file), size > 0 {
            resumeOffset = size
            request.range = .from(size)
        }
        let providers = auth.prefix(authDepth ?? auth.count)
        let policy = configuration.retry
        var attempt = 1
        while true {
            do {
                let exchange = try await authorizedExchange(
                    request,
                    providers: providers,
                    destination: destination,
                    progress: progress
                )
                let status = exchange.response.status
                if policy.retryableStatuses.contains(status), request.isRetryable, attempt < policy.maximumAttempts {
                    let retryAfter = RetryPolicy.retryAfter(in: exchange.response.headers)
                    if retryAfter.map({ $0 <= policy.maximumRetryAfter }) ?? true {
                        discard(exchange)
                        try await wait(
                            policy.delay(after: attempt, retryAfter: retryAfter), before: attempt + 1,
                            of: request, reason: "status \(status)")
                        attempt += 1
                        continue
                    }
                }
                let response = try finish(
                    exchange, request: request, destination: destination, resumeOffset: resumeOffset)
                return (response, exchange.body)
            } catch let error as HTTPTransferError where policy.shouldRetry(error) && request.isRetryable {
                guard attempt < policy.maximumAttempts else { throw error.with(request: request) }
                try await wait(policy.delay(after: attempt), before: attempt + 1, of: request, reason: error.message)
                attempt += 1
            } catch let error as HTTPTransferError {
                throw error.with(request: request)
            } catch is CancellationError {
                throw HTTPTransferError(.cancelled, "the request was cancelled").with(request: request)
            }
        }
    }

    /// Resolves the URL and adds default headers.
    private func prepare(_ request: HTTPClient.Request) throws -> HTTPClient.Request {
        var request = request
        if request.url.scheme == nil {
            guard let base = configuration.baseURL,
                let resolved = URL(string: request.url.relativeString, relativeTo: base)?.absoluteURL
            else {
                throw HTTPTransferError(
                    .invalidRequest, "the URL \(request.url.relativeString) is relative and there is no base URL"
                )
                .with(request: request)
            }
            request.url = resolved
        }
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPTransferError(.invalidRequest, "only http and https URLs can be requested").with(request: request)
        }
        for field in configuration.headers { request.headers.setIfAbsent(field.name, field.value) }
        request.headers.setIfAbsent("User-Agent", configuration.userAgent)
        if let id = request.repeatabilityID {
            request.headers.setIfAbsent("Repeatability-Request-ID", id)
            request.headers.setIfAbsent("Repeatability-First-Sent", HTTPDate.format(Date()))
        }
        // Every transport writes what passes here: none of them may be handed a field that splits in two.
        do {
            for field in request.headers { try HTTP1Syntax.checkField(name: field.name, value: field.value) }
            if let contentType = request.body?.contentType {
                try HTTP1Syntax.checkField(name: "Content-Type", value: contentType)
            }
        } catch {
            throw error.with(request: request)
        }
        return request
    }

    /// Sends the request with every provider's credentials; lets each provider recover once from a refusal.
    private func authorizedExchange(
        _ request: HTTPClient.Request,
        providers: ArraySlice<any HTTPAuthProvider>,
        destination: Destination,
        progress: ProgressReporter?
    ) async throws -> Exchange {
        var recovered = Set<Int>()
        while true {
            var authorized = request
            for (index, provider) in providers.enumerated() {
                try await provider.authorize(&authorized, context: HTTPAuthContext(client: self, depth: index))
            }
            // What the providers added or changed is a credential too (a token header): it stays with the origin.
            let credentials = Set(
                authorized.headers.filter {
                    request.headers.values(for: $0.name) != authorized.headers.values(for: $0.name)
                }
                .map { $0.name.lowercased() })
            let exchange = try await exchangeFollowingRedirects(
                authorized,
                destination: destination,
                progress: progress,
                credentialHeaders: credentials
            )
            var retry = false
            for (index, provider) in providers.enumerated() where !recovered.contains(index) {
                let context = HTTPAuthContext(client: self, depth: index)
                if try await provider.recover(from: exchange.response, to: exchange.sent, context: context) {
                    recovered.insert(index)
                    retry = true
                    logger.debug("auth recovered; resending", metadata: ["url": "\(Redaction.url(request.url))"])
                    break
                }
            }
            guard retry else { return exchange }
            discard(exchange)
        }
    }

    private func exchangeFollowingRedirects(
        _ request: HTTPClient.Request,
        destination: Destination,
        progress: ProgressReporter?,
        credentialHeaders: Set<String> = []
    ) async throws -> Exchange {
        var current = request
        var redirects = 0
        while true {
            var sent = current
            if let cookies = configuration.cookieJar.headerValue(for: current.url) {
                sent.headers["Cookie"] = [current.headers["Cookie"], cookies].compactMap { $0 }.joined(separator: "; ")
            }
            let exchange = try await exchange(sent, destination: destination, progress: progress)
            configuration.cookieJar.store(from: exchange.response.headers, for: current.url)
            guard exchange.response.isRedirect, let location = exchange.response.headers["Location"] else {
                return exchange
            }
            discard(exchange)
            redirects += 1
            guard redirects <= configuration.maximumRedirects,
                let next = URL(string: location, relativeTo: current.url)?.absoluteURL
            else {
                throw HTTPTransferError(
                    redirects > configuration.maximumRedirects ? .tooManyRedirects : .invalidResponse,
                    redirects > configuration.maximumRedirects
                        ? (configuration.maximumRedirects == 0
                            ? "the answer is a redirect (\(exchange.response.status)), and this client follows none"
                            : "more than \(configuration.maximumRedirects) redirects")
                        : "the redirect location is not a URL",
                    status: exchange.response.status,
                    responseHeaders: exchange.response.headers
                )
            }
            let status = exchange.response.status
            if status == 303 || ((status == 301 || status == 302) && current.method == .post) {
                current.method = .get
                current.body = nil
                current.headers.remove("Content-Type")
            }
            if BasicAuth.origin(of: next) != BasicAuth.origin(of: current.url) {
                // Credentials belong to the origin that was asked for, not to wherever it sends us.
                current.headers.remove("Authorization")
                current.headers.remove("Cookie")
                for name in credentialHeaders { current.headers.remove(name) }
            }
            current.url = next
        }
    }

    /// One trip through the transport.
    private func exchange(
        _ request: HTTPClient.Request, destination: Destination, progress: ProgressReporter?
    ) async throws
        -> Exchange
    {
        let temporaryFile: URL?
        let transportDestination: ResponseDestination
        switch destination {
        case .memory, .stream:
            temporaryFile = nil
            transportDestination = .memory(limit: configuration.maximumInMemoryResponseBytes)
        case .file(let file, _):
            let partial = file.deletingLastPathComponent()
                .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString.prefix(8)).part")
            temporaryFile = partial
            transportDestination = .file(partial)
        }
        let transportRequest = TransportRequest(
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
            timeout: request.timeout ?? configuration.timeout,
            destination: transportDestination,
            progress: progress
        )
        let started = ContinuousClock.now
        logger.debug("→ \(request.method) \(Redaction.url(request.url))")
        logger.trace("request headers", metadata: ["headers": "\(request.headers)"])
        var response: TransportResponse
        var body: HTTPResponseBody?
        do {
            if case .stream(let limit) = destination {
                (response, body) = try await streamingExchange(transportRequest, limit: limit)
            } else {
                response = try await transport.perform(transportRequest)
            }
        } catch {
            if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
            let mapped = (error as? HTTPTransferError) ?? URLSessionTransport.map(error, request: transportRequest)
            logger.debug("✕ \(request.method) \(Redaction.url(request.url)): \(mapped.message)")
            throw mapped
        }
        logger.debug(
            "← \(response.status) \(request.method) \(Redaction.url(request.url))",
            metadata: ["bytes": "\(response.bodyLength)", "duration": "\(ContinuousClock.now - started)"]
        )
        logger.trace("response headers", metadata: ["headers": "\(response.headers)"])
        if let streamed = body,
            !(200..<300).contains(response.status)
                || response.headers["Content-Type"]?.lowercased().contains("html") == true
        {
            // Errors, redirects, refusals and login pages are judged on their body: read it (bounded) now.
            body = nil
            response.body = try await Self.drain(streamed, maximumBytes: 1024 * 1024)
        }
        if body != nil, case .stream(let limit?) = destination,
            let length = response.headers["Content-Length"].flatMap({ Int64($0) }), length > limit
        {
            body?.cancel()
            throw ResponseBodyChannel.tooLarge(limit: limit)
        }
        var result = HTTPClient.Response(
            status: response.status, headers: response.headers, url: request.url, body: response.body)
        if let temporaryFile {
            result.bodyFile = temporaryFile
            // Keep the start of the body in memory where someone may need to look at it: errors, login pages.
            if !result.isSuccess || result.mediaType?.contains("html") == true {
                result.body = Self.prefix(of: temporaryFile, count: 256 * 1024)
            }
        }
        return Exchange(response: result, sent: request, temporaryFile: temporaryFile, body: body)
    }

    /// Asks a streaming transport for the head; other transports read the body into memory first.
    private func streamingExchange(
        _ request: TransportRequest, limit: Int64?
    ) async throws -> (TransportResponse, HTTPResponseBody) {
        guard let transport = transport as? any HTTPStreamingTransport else {
            var response = try await transport.perform(request)
            if let limit, response.body.count > limit { throw ResponseBodyChannel.tooLarge(limit: limit) }
            let body = HTTPResponseBody(data: response.body)
            response.body = Data()
            return (response, body)
        }
        let channel = ResponseBodyChannel(limit: limit)
        do {
            let response = try await transport.performStreaming(request, into: channel)
            return (response, HTTPResponseBody(channel: channel))
        } catch {
            channel.cancel()
            throw error
        }
    }

    /// Reads at most `maximumBytes` of a body into memory and closes it.
    private static func drain(_ body: HTTPResponseBody, maximumBytes: Int) async throws -> Data {
        var data = Data()
        for try await chunk in body {
            data.append(chunk.prefix(maximumBytes - data.count))
            if data.count >= maximumBytes { break }
        }
        body.cancel()
        return data
    }

    /// Validates the answer and moves a download into place.
    private func finish(
        _ exchange: Exchange, request: HTTPClient.Request, destination: Destination, resumeOffset: Int64
    )
        throws -> HTTPClient.Response
    {
        var response = exchange.response
        if LoginPage.isLoginPage(response, for: request) {
            discard(exchange)
            var error = HTTPTransferError.status(response, body: response.body, request: request)
            error.code = .unauthorized
            error.message =
                "the server answered with an HTML login page where data was expected"
                + " (not logged in, or the session expired)"
            throw error
        }
        if case .file(let file, _) = destination, resumeOffset > 0, response.status == 416,
            response.contentRange == nil || response.headers["Content-Range"] == "bytes */\(resumeOffset)"
        {
            discard(exchange)  // The file is already complete.
            response.status = 206
            response.body = Data()
            response.bodyFile = file
            return response
        }
        guard response.isSuccess || !request.validatesStatus else {
            discard(exchange)
            throw HTTPTransferError.status(response, body: response.body, request: request)
        }
        guard case .file(let file, _) = destination, let temporaryFile = exchange.temporaryFile else { return response }
        guard response.isSuccess else {
            discard(exchange)
            response.bodyFile = nil
            return response
        }
        do {
            if response.status == 206, resumeOffset > 0, response.contentRange?.first == resumeOffset {
                try Self.append(temporaryFile, to: file)
                try FileManager.default.removeItem(at: temporaryFile)
            } else {
                try Platform.rename(temporaryFile, to: file)
            }
        } catch {
            discard(exchange)
            throw HTTPTransferError(.fileSystem, "cannot write the download to \(file.path)", underlying: error)
        }
        response.bodyFile = file
        response.body = Data()
        return response
    }

    private func wait(
        _ delay: Duration, before attempt: Int, of request: HTTPClient.Request, reason: String
    ) async throws {
        logger.debug(
            "retrying \(request.method) \(Redaction.url(request.url)) in \(delay) (attempt \(attempt)): \(reason)"
        )
        try await Task.sleep(for: delay)
    }

    private func discard(_ exchange: Exchange) {
        exchange.body?.cancel()
        if let file = exchange.temporaryFile { try? FileManager.default.removeItem(at: file) }
    }

    private static func prefix(of file: URL, count: Int) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: count)) ?? Data()
    }

    private static func append(_ source: URL, to destination: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        try output.seekToEnd()
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }
}

extension HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110), computed from the seconds since 1970 (a
    /// `DateFormatter` costs tens of microseconds to make; queues stamp every request with one of these).
    public static func format(_ date: Date) -> String {
        // To the millisecond first, as the date formatter does (…44.9997 s is …45).
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        let (civil, time) = CivilDate.split(secondsSince1970: Int64((millis / 1000).rounded(.down)))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[civil.weekday]), \(two(civil.day)) \(months[civil.month - 1]) \(civil.year) "
            + "\(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60)) GMT"
    }
}
