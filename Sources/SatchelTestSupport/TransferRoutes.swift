public import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension TestHTTPServer {
    /// The byte at `offset` of every `/bytes/{n}` body.
    public static func patternByte(at offset: Int64) -> UInt8 { UInt8(truncatingIfNeeded: offset % 251) }

    /// The first `count` bytes of the pattern.
    public static func pattern(count: Int, from start: Int64 = 0) -> Data {
        var data = Data(capacity: count)
        var offset = start
        while data.count < count {
            let take = min(count - data.count, patternChunk)
            data.append(contentsOf: patternBlock[Int(offset % 251)..<(Int(offset % 251) + take)])
            offset += Int64(take)
        }
        return data
    }

    /// The pattern, 251 × 1,024 bytes long: any 64 KiB run of it starts within its first 251 bytes.
    /// Slicing it keeps the server's hot loops out of per-byte work, which matters in debug builds.
    static let patternBlock: [UInt8] = (0..<(251 * 1024)).map { UInt8(truncatingIfNeeded: $0 % 251) }
    static let patternChunk = 64 * 1024

    static func addTransferRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/bytes/{n}") { request, context -> Response in
            let total = try context.parameters.require("n", as: Int64.self)
            var first: Int64 = 0
            var last = total - 1
            var status = HTTPResponse.Status.ok
            var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
            if let range = request.headers[.range], range.hasPrefix("bytes=") {
                let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
                if bounds.count == 2, let start = Int64(bounds[0]) {
                    first = start
                    last = Int64(bounds[1]).map { min($0, total - 1) } ?? total - 1
                } else if bounds.count == 2, bounds[0].isEmpty, let suffix = Int64(bounds[1]) {
                    first = max(0, total - suffix)
                }
                guard first < total, first <= last else {
                    headers[.contentRange] = "bytes */\(total)"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
                status = .partialContent
                headers[.contentRange] = "bytes \(first)-\(last)/\(total)"
            }
            let length = last - first + 1
            headers[.contentLength] = String(length)
            let (start, end) = (first, last)
            return Response(
                status: status,
                headers: headers,
                body: ResponseBody(contentLength: Int(length)) { writer in
                    var offset = start
                    while offset <= end {
                        let count = Int(min(Int64(patternChunk), end - offset + 1))
                        let phase = Int(offset % 251)
                        try await writer.write(ByteBuffer(bytes: patternBlock[phase..<(phase + count)]))
                        offset += Int64(count)
                    }
                    try await writer.finish(nil)
                }
            )
        }
        for method in [HTTPRequest.Method.put, .post] {
            router.on("/sink", method: method) { request, _ -> Response in
                var received = 0
                var matches = true
                for try await buffer in request.body {
                    var view = buffer.readableBytesView[...]
                    while matches, !view.isEmpty {
                        let phase = (received + (buffer.readableBytes - view.count)) % 251
                        let count = min(view.count, patternChunk)
                        matches = view.prefix(count).elementsEqual(patternBlock[phase..<(phase + count)])
                        view = view.dropFirst(count)
                    }
                    received += buffer.readableBytes
                }
                return json(["received": received, "matchesPattern": matches])
            }
        }
        router.get("/drip") { request, _ -> Response in
            let chunks = request.uri.queryParameters.get("chunks", as: Int.self) ?? 10
            let milliseconds = request.uri.queryParameters.get("ms", as: Int.self) ?? 200
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: chunks * 1024) { writer in
                    do {
                        for _ in 0..<chunks {
                            try await writer.write(ByteBuffer(repeating: 0x61, count: 1024))
                            try await Task.sleep(for: .milliseconds(milliseconds))
                        }
                    } catch {
                        // The client left or the server is stopping. Finish anyway: NIO treats a response writer
                        // that is dropped unfinished as a fatal error.
                    }
                    try? await writer.finish(nil)
                }
            )
        }
        router.get("/cut") { request, _ -> Response in
            let length = request.uri.queryParameters.get("length", as: Int.self) ?? 100_000
            let send = request.uri.queryParameters.get("send", as: Int.self) ?? 1000
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: length) { writer in
                    try await writer.write(ByteBuffer(repeating: 0x62, count: send))
                    throw TestServerError("dropping the connection mid-body on purpose")
                }
            )
        }
        router.get("/big-header") { request, _ -> Response in
            let size = request.uri.queryParameters.get("size", as: Int.self) ?? 100_000
            var headers: HTTPFields = [.contentType: "text/plain"]
            headers[HTTPField.Name("X-Huge")!] = String(repeating: "h", count: size)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "ok")))
        }
    }
}
