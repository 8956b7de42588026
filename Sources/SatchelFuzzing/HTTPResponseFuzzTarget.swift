import Foundation
import SatchelHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket transport's HTTP/1.1 response reader, fed a hostile server's bytes through a socket pair: status
/// line, header fields, interim responses, `Content-Length` and chunked framing with trailers, reading until close.
///
/// - What cannot be read throws an ``HTTPTransferError`` (`.invalidResponse` for the bytes, `.connection` for an
///   early end, `.responseTooLarge` past the limit); nothing else.
/// - A response read has a final status (200–599), header names that are tokens and values without CR, LF or NUL,
///   and a body of its announced length.
/// - Written again with `Content-Length` framing, it reads back as the same status, fields and body.
enum HTTPResponseFuzzTarget {
    static let target = FuzzTarget(
        name: "http-response",
        summary: "HTTP/1.1 responses: SocketTransport's head, framing and chunked reader", maximumLength: 32 * 1024,
        check: check)

    static let configuration = SocketTransport.Configuration(
        bufferSize: 4096, maximumResponseHeaderBytes: 8192, maximumResponseHeaderFields: 64)
    static let limit = 64 * 1024

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation {
            FuzzViolation("http-response", "\(message): \(bytes.excerpt())")
        }
        let method: HTTPClient.Method = bytes.first == UInt8(ascii: "H") && bytes.count % 7 == 0 ? .head : .get
        let response: TransportResponse
        do {
            response = try read(bytes, method: method).response
        } catch let error as HTTPTransferError {
            guard [.invalidResponse, .connection, .responseTooLarge].contains(error.code) else {
                throw violation("an error of code \(error.code): \(error)")
            }
            return
        } catch let error as FuzzViolation {
            throw error
        } catch {
            throw violation("the reader threw something other than an HTTPTransferError: \(error)")
        }
        guard (200...599).contains(response.status) else { throw violation("a final status of \(response.status)") }
        for field in response.headers {
            let (name, value) = (field.name, field.value)
            guard !name.isEmpty, name.utf8.allSatisfy(HTTP1Syntax.isTokenByte) else {
                throw violation("a field name \(name.debugDescription)")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw violation("a field value \(value.debugDescription)")
            }
        }
        guard Int64(response.body.count) == response.bodyLength else {
            throw violation("a body of \(response.body.count) bytes reported as \(response.bodyLength)")
        }

        // Written again, with Content-Length framing, it reads back the same.
        var written = Array("HTTP/1.1 \(response.status) Again\r\n".utf8)
        var fields: [(String, String)] = []
        for field in response.headers {
            let lower = field.name.lowercased()
            guard lower != "content-length", lower != "transfer-encoding" else { continue }
            fields.append((field.name, field.value))
            written += Array("\(field.name): \(field.value)\r\n".utf8)
        }
        written += Array("Content-Length: \(response.body.count)\r\n\r\n".utf8) + Array(response.body)
        let again: TransportResponse
        do {
            // Larger limits for the second read: a byte that is not UTF-8 in a field value was read as U+FFFD and
            // is written as three bytes, and Content-Length is one field more, so the head may have outgrown the
            // first read's limits (which that read held to).
            var larger = configuration
            larger.maximumResponseHeaderBytes = max(configuration.maximumResponseHeaderBytes, written.count)
            larger.maximumResponseHeaderFields = max(configuration.maximumResponseHeaderFields, fields.count + 1)
            again = try read(written, method: .get, configuration: larger).response
        } catch {
            throw violation("written again as \(written.excerpt(400)), it no longer reads: \(error)")
        }
        let againFields = again.headers.fields.filter { $0.name.lowercased() != "content-length" }
        guard again.status == response.status, again.body == response.body,
            againFields.map({ "\($0.name): \($0.value)" }) == fields.map({ "\($0.0): \($0.1)" })
        else {
            throw violation("written again as \(written.excerpt(400)), it reads as another response")
        }
    }

    /// Writes `bytes` into one end of a socket pair, closes it, and reads the response from the other end.
    static func read(
        _ bytes: [UInt8], method: HTTPClient.Method, configuration: SocketTransport.Configuration = configuration
    ) throws -> (
        response: TransportResponse, reusable: Bool
    ) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends)
        #else
            let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &ends)
        #endif
        guard made == 0 else { throw FuzzViolation("http-response", "no socket pair: errno \(errno)") }
        defer { close(ends[0]) }
        var size = Int32(max(bytes.count * 2, 65_536))
        setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(ends[1], $0.baseAddress! + sent, bytes.count - sent, 0) }
            guard count > 0 else {
                close(ends[1])
                throw FuzzViolation("http-response", "the socket pair took \(sent) of \(bytes.count) bytes")
            }
            sent += count
        }
        close(ends[1])
        return try SocketTransport.readResponse(
            from: ends[0], method: method, limit: limit, configuration: configuration)
    }
}
