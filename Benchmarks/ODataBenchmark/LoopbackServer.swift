import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 (keep-alive, a thread per connection) serving the pages:
/// `GET /odata/pN/Products` is page 0 of N, `…/pN/Products?$skiptoken=K` page K; and accepting creations
/// (`POST …/Products`, `POST …/$batch`, see ``LoopbackWrites``). Kept in the benchmark so the server costs next to
/// nothing and needs no other library.
final class LoopbackServer: Sendable {
    let port: Int
    private let listener: Int32
    let pages: Pages

    init(pages: Pages) throws {
        self.pages = pages
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw BenchmarkError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: String { "http://127.0.0.1:\(port)/odata" }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        // As HTTP servers do: without it, Nagle's algorithm holds a response's last small segment (the page's tail,
        // with its next link) until the client's delayed acknowledgement, up to 40 ms later.
        var yes: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            var end: Int?
            while end == nil {
                if let found = Self.headEnd(pending) {
                    end = found
                    break
                }
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[0..<count])
            }
            guard let end else { return }
            let head = String(decoding: pending[0..<end], as: UTF8.self)
            pending.removeFirst(end + 4)
            let words = head.split(separator: " ", maxSplits: 2)
            let target = words.dropFirst().first.map(String.init) ?? "/"
            guard words.first == "POST" else {
                guard write(fd, response(for: target)) else { return }
                continue
            }
            let fields = Self.fields(head)
            let length = Int(fields["content-length"] ?? "") ?? 0
            while pending.count < length {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[0..<count])
            }
            let body = Array(pending[0..<length])
            pending.removeFirst(length)
            guard write(fd, LoopbackWrites.response(to: target, body: body, contentType: fields["content-type"] ?? ""))
            else { return }
        }
    }

    /// Header fields by lower-cased name.
    private static func fields(_ head: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The service's `$metadata` (the committed Bench.odata.xml), for clients that read it (the offline store).
    static let metadata: [UInt8] = Array(
        (try? Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "Bench.odata.xml"))) ?? Data())

    private func response(for target: String) -> [[UInt8]] {
        if target.hasSuffix("/$metadata") {
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: \(Self.metadata.count)\r\n\r\n"
            return [Array(head.utf8), Self.metadata]
        }
        let components = URLComponents(string: target)
        let items = components?.queryItems ?? []
        let segments = (components?.path ?? "").split(separator: "/")
        let number = items.first { $0.name == "$skiptoken" }.flatMap { Int($0.value ?? "") } ?? 0
        guard segments.count >= 2, segments.last == "Products", segments[segments.count - 2].hasPrefix("p"),
            let count = Int(segments[segments.count - 2].dropFirst()), number < count
        else {
            return [Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)]
        }
        let body = pages.body(page: number, of: count, baseURL: baseURL + "/p\(count)")
        let length = body.reduce(0) { $0 + $1.count }
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json;odata.metadata=minimal\r\nOData-Version: 4.0\r\n"
            + "Content-Length: \(length)\r\n\r\n"
        return [Array(head.utf8)] + body
    }

    private func write(_ fd: Int32, _ parts: [[UInt8]]) -> Bool {
        for part in parts {
            var offset = 0
            while offset < part.count {
                let sent = part.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, part.count - offset, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { return false }
                offset += sent
            }
        }
        return true
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
