import Foundation

/// The benchmark server's answers to creations, at next to no cost: `POST …/Products` is answered 201 with the
/// entity sent; `POST …/$batch` (multipart) with a changeset response per part, 201 with its entity and its
/// `Content-ID`. Nothing is stored: the benchmark measures the client.
enum LoopbackWrites {
    static func response(to target: String, body: [UInt8], contentType: String) -> [[UInt8]] {
        if target.hasSuffix("/$batch") {
            guard let boundary = boundary(in: contentType) else { return [status("400 Bad Request")] }
            return batch(body, boundary: boundary)
        }
        guard target.hasSuffix("/Products") else { return [status("404 Not Found")] }
        let head =
            "HTTP/1.1 201 Created\r\nContent-Type: application/json;odata.metadata=minimal\r\nOData-Version: 4.0\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        return [Array(head.utf8), body]
    }

    private static func status(_ text: String) -> [UInt8] {
        Array("HTTP/1.1 \(text)\r\nContent-Length: 0\r\n\r\n".utf8)
    }

    private static func boundary(in contentType: String) -> String? {
        guard let range = contentType.range(of: "boundary=") else { return nil }
        return contentType[range.upperBound...].split(separator: ";").first.map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
    }

    /// Each part of the request answered 201 with its entity, in a changeset response of its own (the client sends
    /// one request per changeset). Read at the byte level: the server must cost next to nothing.
    private static func batch(_ body: [UInt8], boundary: String) -> [[UInt8]] {
        let answer = "batchresponse_bench"
        let changeset = "changesetresponse_bench"
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / 2)
        body.withUnsafeBytes { bytes in
            var position = 0
            while let marker = find("Content-ID: ", in: bytes, from: position),
                let lineEnd = find("\r\n", in: bytes, from: marker),
                let headersEnd = find("\r\n\r\n", in: bytes, from: lineEnd),
                let requestEnd = find("\r\n\r\n", in: bytes, from: headersEnd + 4),
                let entityEnd = find("\r\n--", in: bytes, from: requestEnd + 4)
            {
                let contentID = bytes[(marker + 12)..<lineEnd]
                out += Array(
                    ("--\(answer)\r\nContent-Type: multipart/mixed; boundary=\(changeset)\r\n\r\n--\(changeset)\r\n"
                        + "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: ").utf8)
                out += contentID
                out += Array(
                    ("\r\n\r\nHTTP/1.1 201 Created\r\nContent-Type: application/json;odata.metadata=minimal\r\n"
                        + "OData-Version: 4.0\r\n\r\n").utf8)
                out += bytes[(requestEnd + 4)..<entityEnd]
                out += Array("\r\n--\(changeset)--\r\n".utf8)
                position = entityEnd
            }
        }
        out += Array("--\(answer)--\r\n".utf8)
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed; boundary=\(answer)\r\nOData-Version: 4.0\r\n"
            + "Content-Length: \(out.count)\r\n\r\n"
        return [Array(head.utf8), out]
    }

    private static func find(_ needle: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let pattern = UnsafeRawBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == first {
                var matched = 1
                while matched < pattern.count && bytes[index + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }
}
