import Foundation
/// Reading the response: skip interim 1xx heads, parse the final head, then the body as its framing says.
extension SocketExchange {
    /// A server that sends more interim responses than this is not going to answer.
    static let maximumInterimResponses = 32
    /// A chunk-size line longer than this (extensions included) is hostile.
    static let maximumChunkLine = 4096

    /// The first non-1xx head. Throws ``SocketFailure`` for I/O, ``HTTPTransferError`` for a head that can't be read.
    func readFinalHead(_ reader: SocketReader) throws -> HTTP1ResponseHead {
        var interim = 0
        while true {
            let result = try reader.readHead(
                maximumBytes: configuration.maximumResponseHeaderBytes,
                maximumLines: configuration.maximumResponseHeaderFields + 1
            )
            let head: HTTP1ResponseHead
            switch result {
            case .head(let bytes): head = try HTTP1ResponseHead(parsing: bytes)
            case .endOfStream, .truncated: throw SocketFailure(.closed)
            case .tooLarge:
                throw HTTP1ResponseHead.error(
                    "more than \(configuration.maximumResponseHeaderBytes) bytes"
                        + " or \(configuration.maximumResponseHeaderFields) fields"
                )
            }
            if head.status == 101 {
                throw HTTPTransferError(
                    .invalidResponse, "the server switched protocols, which the request did not ask for")
            }
            guard head.status < 200 else { return head }
            interim += 1
            if interim > Self.maximumInterimResponses {
                throw HTTPTransferError(
                    .invalidResponse, "the server sent more than \(Self.maximumInterimResponses) interim responses")
            }
        }
    }

    /// Reads the body of `head` into the request's destination.
    func readBody(of head: HTTP1ResponseHead, from reader: SocketReader) throws -> Outcome {
        let framing = try HTTP1BodyFraming(head: head, method: request.method)
        let expected = framing.expectedLength
        let sink =
            if let channel {
                SocketResponseSink(channel: channel)
            } else {
                try SocketResponseSink(destination: request.destination, expectedLength: expected)
            }
        onHead?(TransportResponse(status: head.status, headers: head.headers, bodyLength: expected ?? 0))
        do {
            switch framing {
            case .none: break
            case .length(let length): try copy(length, from: reader, to: sink, expected: expected)
            case .chunked: try readChunked(from: reader, to: sink)
            case .untilClose: try copyUntilClose(from: reader, to: sink)
            }
        } catch {
            sink.abandon()
            throw error
        }
        sink.finish()
        request.progress?.received(sink.length, of: sink.length)
        let response = TransportResponse(
            status: head.status, headers: head.headers, body: sink.data, bodyLength: sink.length)
        let reusable = framing != .untilClose && reader.buffered == 0 && keepsAlive(head)
        return Outcome(response: response, reusable: reusable)
    }

    /// HTTP/1.1 keeps the connection unless either side says `close`; HTTP/1.0 only with `keep-alive`.
    private func keepsAlive(_ head: HTTP1ResponseHead) -> Bool {
        func tokens(_ headers: HTTPClient.Headers) -> [String] {
            headers.values(for: "Connection").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        }
        if tokens(request.headers).contains("close") { return false }
        let response = tokens(head.headers)
        return head.minorVersion >= 1 ? !response.contains("close") : response.contains("keep-alive")
    }

    /// Copies exactly `count` bytes; `expected` is the whole body's length for progress and messages.
    private func copy(_ count: Int64, from reader: SocketReader, to sink: SocketResponseSink, expected: Int64?) throws {
        var remaining = count
        while remaining > 0 {
            let bytes: UnsafeRawBufferPointer?
            do {
                bytes = try reader.next(upTo: remaining)
            } catch {
                throw bodyError(error, received: sink.length, expected: expected)
            }
            guard let bytes else { throw bodyError(SocketFailure(.closed), received: sink.length, expected: expected) }
            try sink.write(bytes)
            remaining -= Int64(bytes.count)
            request.progress?.received(sink.length, of: expected)
        }
    }

    private func copyUntilClose(from reader: SocketReader, to sink: SocketResponseSink) throws {
        while true {
            let bytes: UnsafeRawBufferPointer?
            do {
                bytes = try reader.next(upTo: .max)
            } catch {
                throw bodyError(error, received: sink.length, expected: nil)
            }
            guard let bytes else { return }
            try sink.write(bytes)
            request.progress?.received(sink.length, of: nil)
        }
    }

    /// `chunk-size [; ext] CRLF data CRLF … 0 CRLF trailers CRLF`. Trailer fields are read within the header limits
    /// and dropped: the client acts on header fields (cookies, redirects), and a trailer must not smuggle one in.
    private func readChunked(from reader: SocketReader, to sink: SocketResponseSink) throws {
        while true {
            let size = try chunkSize(reader, received: sink.length)
            if size == 0 { break }
            try copy(size, from: reader, to: sink, expected: nil)
            guard let end = try line(reader, received: sink.length), end.isEmpty else {
                throw HTTPTransferError(.invalidResponse, "a chunk of the response body is not followed by a line end")
            }
        }
        var trailers = HTTPClient.Headers()
        var trailerBytes = 0
        while true {
            guard let line = try line(reader, received: sink.length) else {
                throw bodyError(SocketFailure(.closed), received: sink.length, expected: nil)
            }
            if line.isEmpty { return }
            trailerBytes += line.count + 2
            guard trailerBytes <= configuration.maximumResponseHeaderBytes,
                trailers.fields.count < configuration.maximumResponseHeaderFields
            else {
                throw HTTP1ResponseHead.error("the trailer section is too large")
            }
            try HTTP1ResponseHead.parseTrailer(line, into: &trailers)
        }
    }

    private func chunkSize(_ reader: SocketReader, received: Int64) throws -> Int64 {
        guard let line = try line(reader, received: received) else {
            throw bodyError(SocketFailure(.closed), received: received, expected: nil)
        }
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 0x20 && $0 != 0x09 }
        // Hex digits only (no sign), and few enough that the size can't overflow.
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(HTTP1Syntax.isHexDigit),
            let size = Int64(String(decoding: digits, as: UTF8.self), radix: 16)
        else {
            throw HTTPTransferError(.invalidResponse, "the response body has an invalid chunk size")
        }
        return size
    }

    /// One line of chunked framing; nil at the end of the stream.
    private func line(_ reader: SocketReader, received: Int64) throws -> [UInt8]? {
        do {
            guard let line = try reader.readLine(maximumBytes: Self.maximumChunkLine) else {
                if reader.buffered > Self.maximumChunkLine {
                    throw HTTPTransferError(.invalidResponse, "the response body has an overlong chunk header")
                }
                return nil
            }
            return line
        } catch let failure as SocketFailure {
            throw bodyError(failure, received: received, expected: nil)
        }
    }

    private func bodyError(_ error: any Error, received: Int64, expected: Int64?) -> any Error {
        guard let failure = error as? SocketFailure else { return error }
        let progress = expected.map { "\(received) of \($0) bytes" } ?? "\(received) bytes received"
        switch failure.kind {
        case .timedOut:
            return HTTPTransferError(.timeout, "the server sent nothing for \(request.timeout) (\(progress))")
        case .closed:
            return HTTPTransferError(
                .connection, "the connection closed before the whole response arrived (\(progress))")
        case .system:
            return HTTPTransferError(
                .connection,
                "reading the response failed: \(failure.systemDescription) (\(progress))",
                underlying: failure.underlying
            )
        }
    }
}
