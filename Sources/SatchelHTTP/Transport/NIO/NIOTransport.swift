#if canImport(AsyncHTTPClient)
    import AsyncHTTPClient
    public import Foundation
    import Logging
    import NIOCore
    import NIOFoundationCompat
    import NIOHTTP1
    import NIOHTTPCompression
    import NIOPosix
    import NIOSSL
    import SatchelText
    import Synchronization

    /// HTTP/1.1 and HTTPS over SwiftNIO (async-http-client and NIOSSL): the Linux transport for `https`.
    ///
    /// Bodies stream both ways in constant memory, with progress; cancelling the task closes the connection; a
    /// server that goes silent longer than the request's timeout is a `.timeout`. TLS verification is on: extra
    /// certificate authorities and a client certificate come from PEM files, and the only way to turn verification
    /// off is ``TLS/Verification/insecureNoVerification``. Proxies come from ``Configuration/proxy`` or from
    /// `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`. gzip and deflate answers are decompressed (with a ratio limit).
    ///
    /// ```swift
    /// var tls = NIOTransport.TLS()
    /// tls.trustRoots = URL(fileURLWithPath: "/etc/satchel/company-ca.pem")
    /// let transport = try NIOTransport(configuration: .init(tls: tls))
    /// let client = HTTPClient(transport: transport)
    /// …
    /// try await transport.shutdown()   // once no request uses it any more
    /// ```
    ///
    /// A transport holds connections and an event loop client: shut it down when done (``shared`` lives as long as
    /// the process).
    public final class NIOTransport: HTTPStreamingTransport, Sendable {
        /// TLS settings.
        public struct TLS: Sendable, Hashable {
            /// How the server's certificate is checked.
            public enum Verification: Sendable, Hashable {
                /// The chain up to a trusted authority, and the host name: always, unless said otherwise.
                case full
                /// Nothing is checked: any server, any certificate. For throwaway test servers only.
                case insecureNoVerification
            }

            /// A PEM bundle of certificate authorities trusted besides the system's.
            public var trustRoots: URL?
            /// A PEM certificate chain presented when the server asks for a client certificate.
            public var certificateChain: URL?
            /// The PEM private key of ``certificateChain``.
            public var privateKey: URL?
            /// How the server's certificate is checked (`.full` by default).
            public var verification: Verification

            /// Settings of the given files; by default the system's authorities alone, no client certificate, full
            /// verification.
            public init(
                trustRoots: URL? = nil, certificateChain: URL? = nil, privateKey: URL? = nil,
                verification: Verification = .full
            ) {
                self.trustRoots = trustRoots
                self.certificateChain = certificateChain
                self.privateKey = privateKey
                self.verification = verification
            }
        }

        /// An HTTP proxy.
        public struct Proxy: Sendable, Hashable {
            /// The proxy's host.
            public var host: String
            /// The proxy's port.
            public var port: Int
            /// The proxy at `host` and `port`.
            public init(host: String, port: Int) {
                self.host = host
                self.port = port
            }

            /// The proxy the environment names for `scheme` (`HTTPS_PROXY` for https, `HTTP_PROXY` for http, upper
            /// or lower case), unless `NO_PROXY` lists `host` (or a domain it ends with, or `*`).
            public static func fromEnvironment(
                scheme: String, host: String, environment: [String: String] = ProcessInfo.processInfo.environment
            ) -> Proxy? {
                func value(_ name: String) -> String? {
                    environment[name] ?? environment[name.lowercased()]
                }
                if let noProxy = value("NO_PROXY") {
                    let host = host.lowercased()
                    for entry in noProxy.split(separator: ",").map({
                        $0.trimmingCharacters(in: .whitespaces).lowercased()
                    })
                    where !entry.isEmpty {
                        if entry == "*" || host == entry || host.hasSuffix(entry.hasPrefix(".") ? entry : "." + entry) {
                            return nil
                        }
                    }
                }
                guard let text = value(scheme.lowercased() == "https" ? "HTTPS_PROXY" : "HTTP_PROXY"),
                    let url = URL(string: text.contains("://") ? text : "http://" + text), let proxyHost = url.host
                else { return nil }
                return Proxy(host: proxyHost, port: url.port ?? 80)
            }
        }

        /// What a transport is made with.
        public struct Configuration: Sendable, Hashable {
            /// TLS settings.
            public var tls: TLS
            /// The proxy for every request; nil reads the environment for each request's scheme and host.
            public var proxy: Proxy?
            /// Whether the environment's proxy variables apply when ``proxy`` is nil.
            public var usesEnvironmentProxy: Bool
            /// The most connections open to one host at once; requests beyond wait for one.
            public var maximumConnectionsPerHost: Int
            /// How long connecting (TCP and TLS) may take.
            public var connectTimeout: Duration
            /// Decompress gzip and deflate answers (refusing ones that grow more than 100 times).
            public var decompression: Bool

            /// A configuration whose defaults are: the default TLS settings, the environment's proxy, 8 connections per
            /// host, 10 seconds to connect, decompression on.
            public init(
                tls: TLS = TLS(), proxy: Proxy? = nil, usesEnvironmentProxy: Bool = true,
                maximumConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10), decompression: Bool = true
            ) {
                self.tls = tls
                self.proxy = proxy
                self.usesEnvironmentProxy = usesEnvironmentProxy
                self.maximumConnectionsPerHost = maximumConnectionsPerHost
                self.connectTimeout = connectTimeout
                self.decompression = decompression
            }
        }

        /// One transport for the process, with the default configuration.
        public static let shared: NIOTransport = {
            // The default configuration reads no file, so it cannot fail.
            // swiftlint:disable:next force_try
            try! NIOTransport()
        }()

        /// What the transport was made with.
        public let configuration: Configuration
        private let tlsConfiguration: TLSConfiguration
        /// One async-http-client client per (read timeout, proxy): both are per-client settings there.
        private let clients = Mutex<[ClientKey: AsyncHTTPClient.HTTPClient]>([:])
        private let isShutDown = Mutex(false)

        private struct ClientKey: Hashable {
            var readTimeout: Duration
            var proxy: Proxy?
        }

        /// Reads the TLS files now: a missing or malformed one throws `.tls` here, not at the first request.
        public convenience init(configuration: Configuration = Configuration()) throws {
            // Read before anything is stored: Swift 6.3.1's optimizer crashed on a throwing class initializer
            // that failed after its locks were set up.
            self.init(configuration: configuration, tls: try Self.makeTLSConfiguration(configuration.tls))
        }

        private init(configuration: Configuration, tls: TLSConfiguration) {
            self.configuration = configuration
            tlsConfiguration = tls
        }

        static func makeTLSConfiguration(_ tls: TLS) throws -> TLSConfiguration {
            var result = TLSConfiguration.makeClientConfiguration()
            result.minimumTLSVersion = .tlsv12
            do {
                if let roots = tls.trustRoots {
                    result.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(roots.path))]
                }
                if let chain = tls.certificateChain {
                    result.certificateChain = try NIOSSLCertificate.fromPEMFile(chain.path).map { .certificate($0) }
                    guard let key = tls.privateKey else {
                        throw HTTPTransferError(.tls, "a client certificate needs its private key (TLS.privateKey)")
                    }
                    result.privateKey = .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem))
                }
            } catch let error as HTTPTransferError {
                throw error
            } catch {
                throw HTTPTransferError(.tls, "cannot read the TLS files: \(error)", underlying: error)
            }
            if tls.verification == .insecureNoVerification { result.certificateVerification = .none }
            return result
        }

        /// A transport dropped without ``shutdown()`` still closes its connections, in the background (an
        /// async-http-client client must be shut down before it goes away).
        deinit {
            let remaining = clients.withLock { clients in
                defer { clients.removeAll() }
                return Array(clients.values)
            }
            guard !remaining.isEmpty else { return }
            Task {
                for client in remaining { try? await client.shutdown() }
            }
        }

        /// Closes every connection. Requests in flight fail; the transport cannot be used afterwards.
        public func shutdown() async throws {
            isShutDown.withLock { $0 = true }
            let all = clients.withLock { clients in
                defer { clients.removeAll() }
                return Array(clients.values)
            }
            for client in all { try await client.shutdown() }
        }

        private func client(readTimeout: Duration, url: URL) throws -> AsyncHTTPClient.HTTPClient {
            var proxy = configuration.proxy
            if proxy == nil, configuration.usesEnvironmentProxy {
                proxy = Proxy.fromEnvironment(scheme: url.scheme ?? "https", host: url.host ?? "")
            }
            let key = ClientKey(readTimeout: readTimeout, proxy: proxy)
            return try clients.withLock { clients in
                if isShutDown.withLock({ $0 }) {
                    throw HTTPTransferError(.cancelled, "the NIO transport was shut down")
                }
                if let client = clients[key] { return client }
                var settings = AsyncHTTPClient.HTTPClient.Configuration(
                    tlsConfiguration: tlsConfiguration,
                    redirectConfiguration: .disallow,
                    timeout: .init(
                        connect: .nanoseconds(Self.nanoseconds(configuration.connectTimeout)),
                        read: .nanoseconds(Self.nanoseconds(readTimeout))),
                    proxy: proxy.map { .server(host: $0.host, port: $0.port) },
                    decompression: configuration.decompression ? .enabled(limit: .ratio(100)) : .disabled)
                settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit =
                    configuration.maximumConnectionsPerHost
                settings.httpVersion = .http1Only
                // One exchange, as every transport: a refused connection fails now, and HTTPClient's RetryPolicy
                // decides about trying again.
                settings.connectionPool.retryConnectionEstablishment = false
                let client = AsyncHTTPClient.HTTPClient(
                    eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: settings)
                clients[key] = client
                return client
            }
        }

        static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
                ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }

        // MARK: Exchanges

        /// Sends `request` over the connection pool and reads the body into memory or a file, with progress.
        public func perform(_ request: TransportRequest) async throws -> TransportResponse {
            let (head, body) = try await send(request)
            switch request.destination {
            case .memory(let limit):
                let total = Self.announcedLength(head)
                if let total, total > Int64(limit) { throw ResponseBodyChannel.tooLarge(limit: Int64(limit)) }
                var data = Data()
                var received: Int64 = 0
                try await reading(request) {
                    for try await buffer in body {
                        received += Int64(buffer.readableBytes)
                        guard received <= Int64(limit) else { throw ResponseBodyChannel.tooLarge(limit: Int64(limit)) }
                        data.append(contentsOf: buffer.readableBytesView)
                        request.progress?.received(received, of: total)
                    }
                }
                return TransportResponse(status: Int(head.status.code), headers: Self.headers(head.headers), body: data)
            case .file(let url):
                let received = try await write(body, of: head, to: url, request: request)
                return TransportResponse(
                    status: Int(head.status.code), headers: Self.headers(head.headers), bodyLength: received)
            }
        }

        /// Returns once the head has arrived; a task of its own then reads the body into `channel`, waiting while the
        /// consumer is behind.
        public func performStreaming(
            _ request: TransportRequest, into channel: ResponseBodyChannel
        ) async throws -> TransportResponse {
            let (head, body) = try await send(request)
            let total = Self.announcedLength(head)
            if let limit = channel.limit, let total, total > limit { throw ResponseBodyChannel.tooLarge(limit: limit) }
            // The body is read by a task of its own, paced by the channel: it waits while the channel is full.
            let demand = Demand()
            channel.setOnDemand { demand.signal() }
            let pump = Task {
                var received: Int64 = 0
                do {
                    for try await buffer in body {
                        received += Int64(buffer.readableBytes)
                        request.progress?.received(received, of: total)
                        if try !channel.offer(Data(buffer.readableBytesView)) { await demand.wait() }
                        if channel.isCancelled { throw CancellationError() }
                    }
                    channel.finish()
                } catch let error as HTTPTransferError {
                    channel.finish(throwing: error)
                } catch {
                    channel.finish(throwing: self.map(error, request))
                }
            }
            channel.setOnCancel {
                pump.cancel()
                demand.signal()
            }
            return TransportResponse(status: Int(head.status.code), headers: Self.headers(head.headers))
        }

        /// Sends the request and returns the head, with the body still to read.
        private func send(_ request: TransportRequest) async throws -> (HTTPClientResponse, HTTPClientResponse.Body) {
            let client = try client(readTimeout: request.timeout, url: request.url)
            var outgoing = HTTPClientRequest(url: request.url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
            for field in request.headers { outgoing.headers.add(name: field.name, value: field.value) }
            if let body = request.body {
                let length = body.length
                if let contentType = body.contentType, !request.headers.contains("Content-Type") {
                    outgoing.headers.replaceOrAdd(name: "Content-Type", value: contentType)
                }
                if outgoing.headers["Content-Length"].isEmpty {
                    outgoing.headers.replaceOrAdd(name: "Content-Length", value: String(length))
                }
                outgoing.body = .stream(
                    BodyReader(segments: body.segments, progress: request.progress, total: length),
                    length: .known(length))
            }
            do {
                // The deadline bounds the head; the read timeout bounds silences after it.
                let response = try await client.execute(
                    outgoing, deadline: .distantFuture, logger: Logger(label: "satchel.http.nio"))
                return (response, response.body)
            } catch {
                var failure = map(error, request)
                if failure.code == .tls, Self.isVerificationFailure(error), let host = request.url.host {
                    // BoringSSL says only that verification failed: look at the certificate to say why.
                    let certificate = await Self.peerCertificate(host: host, port: request.url.port ?? 443)
                    failure.message = Self.verificationMessage(certificate, host: host, now: Date())
                }
                throw failure
            }
        }

        static func isVerificationFailure(_ error: any Error) -> Bool {
            String(describing: error).contains("CERTIFICATE_VERIFY_FAILED")
        }

        /// Why a certificate was refused: expired, not yet valid, or (valid dates) not signed by a trusted authority.
        static func verificationMessage(_ certificate: NIOSSLCertificate?, host: String, now: Date) -> String {
            guard let certificate else {
                return "the server's certificate is not signed by a trusted authority, or is out of date"
            }
            let after = Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter))
            let before = Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore))
            if now > after {
                return
                    "the server's certificate expired on \(ISO8601Timestamp.string(from: after, milliseconds: false))"
            }
            if now < before {
                return "the server's certificate is not valid until "
                    + ISO8601Timestamp.string(from: before, milliseconds: false)
            }
            return "the server's certificate is not signed by a trusted authority"
        }

        /// The certificate `host` presents, read over a connection that checks nothing and sends nothing; nil when
        /// none could be read within a few seconds.
        static func peerCertificate(host: String, port: Int) async -> NIOSSLCertificate? {
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            guard let context = try? NIOSSLContext(configuration: settings) else { return nil }
            let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(3))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
                    }
                }
            guard let channel = try? await bootstrap.connect(host: host, port: port).get() else { return nil }
            defer { channel.close(promise: nil) }
            for _ in 0..<100 {
                let certificate = try? await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
                }.get()
                if let certificate { return certificate }
                try? await Task.sleep(for: .milliseconds(30))
            }
            return nil
        }

        /// Runs a body read, mapping async-http-client's failures.
        private func reading(_ request: TransportRequest, _ body: () async throws -> Void) async throws {
            do {
                try await body()
            } catch let error as HTTPTransferError {
                throw error
            } catch {
                throw map(error, request)
            }
        }

        /// Writes the body to `url` (created or truncated), a chunk at a time on NIO's file thread pool.
        private func write(
            _ body: HTTPClientResponse.Body, of head: HTTPClientResponse, to url: URL, request: TransportRequest
        ) async throws -> Int64 {
            let total = Self.announcedLength(head)
            let fileIO = NonBlockingFileIO(threadPool: .singleton)
            let handle: NIOFileHandle
            do {
                // Created or truncated, owner only.
                handle = try await fileIO.openFile(
                    _deprecatedPath: url.path, mode: .write, flags: .posix(flags: O_CREAT | O_TRUNC, mode: 0o600),
                    eventLoop: MultiThreadedEventLoopGroup.singleton.next()
                ).get()
            } catch {
                throw HTTPTransferError(
                    .fileSystem, "cannot write \(url.lastPathComponent): \(error)", url: request.url, underlying: error)
            }
            defer { try? handle.close() }
            var received: Int64 = 0
            try await reading(request) {
                for try await buffer in body {
                    received += Int64(buffer.readableBytes)
                    do {
                        try await fileIO.write(fileHandle: handle, buffer: buffer)
                    } catch {
                        throw HTTPTransferError(
                            .fileSystem, "cannot write \(url.lastPathComponent): \(error)", url: request.url,
                            underlying: error)
                    }
                    request.progress?.received(received, of: total)
                }
            }
            return received
        }

        /// The body length the head announces (`Content-Length`), if any.
        static func announcedLength(_ head: HTTPClientResponse) -> Int64? {
            head.headers.first(name: "Content-Length").flatMap(Int64.init)
        }

        static func headers(_ fields: HTTPHeaders) -> HTTPClient.Headers {
            HTTPClient.Headers(fields.map { ($0.name, $0.value) })
        }

        /// async-http-client's and NIOSSL's failures as ``HTTPTransferError``s.
        func map(_ error: any Error, _ request: TransportRequest) -> HTTPTransferError {
            if let error = error as? HTTPTransferError { return error }
            let url = request.url
            let method = request.method
            if error is CancellationError {
                return HTTPTransferError(.cancelled, "the request was cancelled", method: method, url: url)
            }
            if let client = error as? HTTPClientError {
                switch client {
                case .readTimeout, .deadlineExceeded:
                    return HTTPTransferError(
                        .timeout, "the server sent nothing for \(request.timeout)", method: method, url: url,
                        underlying: error)
                case .connectTimeout:
                    return HTTPTransferError(
                        .timeout, "connecting took longer than \(configuration.connectTimeout)", method: method,
                        url: url, underlying: error)
                case .cancelled:
                    return HTTPTransferError(.cancelled, "the request was cancelled", method: method, url: url)
                case .remoteConnectionClosed:
                    return HTTPTransferError(
                        .connection, "the server closed the connection", method: method, url: url, underlying: error)
                default:
                    break
                }
            }
            if let tls = Self.tlsDescription(error) {
                return HTTPTransferError(.tls, tls, method: method, url: url, underlying: error)
            }
            return HTTPTransferError(
                .connection, "cannot reach \(url.host ?? "the server"): \(error)", method: method, url: url,
                underlying: error)
        }

        /// What went wrong in the TLS handshake, said for a person; nil when the error is not about TLS.
        static func tlsDescription(_ error: any Error) -> String? {
            let text = String(describing: error)
            if let ssl = error as? NIOSSLError {
                switch ssl {
                case .handshakeFailed(let reason):
                    let detail = String(describing: reason)
                    if detail.contains("CERTIFICATE_VERIFY_FAILED") || detail.contains("certificate verify failed") {
                        if detail.contains("expired") {
                            return "the server's certificate has expired (\(detail))"
                        }
                        return "the server's certificate is not signed by a trusted authority (\(detail))"
                    }
                    return "the TLS handshake failed: \(detail)"
                case .unableToValidateCertificate:
                    return "the server's certificate could not be validated"
                default:
                    return "TLS failed: \(ssl)"
                }
            }
            if let validation = error as? NIOSSLExtraError {
                return "the server's certificate does not name this host (\(validation))"
            }
            if text.contains("SSL") || text.contains("TLS") || text.contains("certificate") {
                return "TLS failed: \(text)"
            }
            return nil
        }
    }

    /// The request body's segments as the ByteBuffers async-http-client sends: bytes as they are, files read 1 MiB
    /// at a time on NIO's file thread pool, with upload progress.
    struct BodyReader: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let segments: [HTTPClient.Body.Segment]
        let progress: ProgressReporter?
        let total: Int64

        func makeAsyncIterator() -> Iterator { Iterator(reader: self) }

        struct Iterator: AsyncIteratorProtocol {
            let reader: BodyReader
            var index = 0
            var offsetInSegment: Int64 = 0
            var sent: Int64 = 0
            var handle: NIOFileHandle?
            let fileIO = NonBlockingFileIO(threadPool: .singleton)
            static let chunk: Int64 = 1 << 18

            /// Returns once every event loop has run what was queued on it before: the chunks handed over so far
            /// have reached their channel, whose writability has paused this body if the socket is behind.
            ///
            /// async-http-client pauses a body only once the channel says it is full, which it learns on the event
            /// loop; a producer that reads faster than a busy loop runs would queue chunk after chunk meanwhile.
            static func drainEventLoops() async {
                for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                    try? await loop.submit {}.get()
                }
            }

            mutating func next() async throws -> ByteBuffer? {
                while index < reader.segments.count {
                    switch reader.segments[index] {
                    case .data(let data):
                        index += 1
                        guard !data.isEmpty else { continue }
                        sent += Int64(data.count)
                        reader.progress?.sent(sent, of: reader.total)
                        return ByteBuffer(data: data)
                    case .file(let url, let offset, let length):
                        if offsetInSegment >= length {
                            try? handle?.close()
                            handle = nil
                            index += 1
                            offsetInSegment = 0
                            continue
                        }
                        if handle == nil {
                            do {
                                handle = try await fileIO.openFile(
                                    _deprecatedPath: url.path, eventLoop: MultiThreadedEventLoopGroup.singleton.next()
                                ).get().0
                            } catch {
                                throw HTTPTransferError(
                                    .fileSystem, "cannot read \(url.lastPathComponent): \(error)", underlying: error)
                            }
                        }
                        if offsetInSegment > 0 { await Self.drainEventLoops() }
                        let count = Swift.min(Self.chunk, length - offsetInSegment)
                        let buffer: ByteBuffer
                        do {
                            buffer = try await fileIO.read(
                                fileHandle: handle!, fromOffset: offset + offsetInSegment, byteCount: Int(count),
                                allocator: ByteBufferAllocator())
                        } catch {
                            throw HTTPTransferError(
                                .fileSystem, "cannot read \(url.lastPathComponent): \(error)", underlying: error)
                        }
                        guard buffer.readableBytes > 0 else {
                            throw HTTPTransferError(
                                .fileSystem, "\(url.lastPathComponent) ended before its announced length")
                        }
                        offsetInSegment += Int64(buffer.readableBytes)
                        sent += Int64(buffer.readableBytes)
                        reader.progress?.sent(sent, of: reader.total)
                        return buffer
                    }
                }
                try? handle?.close()
                handle = nil
                return nil
            }
        }
    }

    /// A wake-up for a producer paused by a full channel: `wait` returns once `signal` was called (or at once if it
    /// already was since the last wait).
    final class Demand: Sendable {
        private let state = Mutex<(signalled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func signal() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.signalled = true
                return nil
            }
            waiter?.resume()
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
#endif
