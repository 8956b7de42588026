import Foundation

/// Writing the request: head, then the body segments as they are (files through `sendfile(2)` where it exists).
extension SocketExchange {
    /// Bodies up to this size travel in the same `send` as the head.
    static let coalescedBodyLimit: Int64 = 64 * 1024
    /// Bytes per `sendfile` call: 1 MiB measured faster than 8 MiB against nginx (the receiver drains steadily),
    /// and gives steady upload progress.
    static let sendFileChunk = 1024 * 1024

    func sendRequest(on fd: Int32, sent: inout Int64) throws {
        var head = try Array(serializedHead().utf8)
        guard let body = request.body else {
            try Self.sendAll(fd, head)
            return
        }
        let total = body.length
        if total <= Self.coalescedBodyLimit, let data = body.inMemoryData {
            head.append(contentsOf: data)
            try Self.sendAll(fd, head)
            sent = total
            request.progress?.sent(sent, of: total)
            return
        }
        try Self.sendAll(fd, head)
        for segment in body.segments {
            switch segment {
            case .data(let data):
                try data.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let count = min(bytes.count - offset, configuration.bufferSize)
                        try Self.sendAll(fd, UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
                        offset += count
                        sent += Int64(count)
                        request.progress?.sent(sent, of: total)
                    }
                }
            case .file(let url, let offset, let length):
                try sendFile(url, offset: offset, length: length, on: fd, sent: &sent, total: total)
            }
        }
    }

    /// The request line and header fields; refuses values that would split the head (header injection).
    func serializedHead() throws(HTTPTransferError) -> String {
        let method = request.method.rawValue
        guard !method.isEmpty, method.utf8.allSatisfy(HTTP1Syntax.isTokenByte) else {
            throw HTTPTransferError(.invalidRequest, "the method \(method) is not a valid HTTP token")
        }
        var head = "\(method) \(endpoint.target) HTTP/1.1\r\n"
        if !request.headers.contains("Host") { head += "Host: \(endpoint.hostHeader)\r\n" }
        for field in request.headers {
            // Framing is ours to set: it must match what we send.
            if field.name.caseInsensitiveEquals("Content-Length")
                || field.name.caseInsensitiveEquals("Transfer-Encoding")
            {
                continue
            }
            try HTTP1Syntax.checkField(name: field.name, value: field.value)
            head += "\(field.name): \(field.value)\r\n"
        }
        if let body = request.body {
            if let contentType = body.contentType, !request.headers.contains("Content-Type") {
                try HTTP1Syntax.checkField(name: "Content-Type", value: contentType)
                head += "Content-Type: \(contentType)\r\n"
            }
            head += "Content-Length: \(body.length)\r\n"
        } else if ["POST", "PUT", "PATCH", "MERGE"].contains(method) {
            head += "Content-Length: 0\r\n"
        }
        head += "\r\n"
        return head
    }

    private func sendFile(
        _ url: URL,
        offset start: Int64,
        length: Int64,
        on socket: Int32,
        sent: inout Int64,
        total: Int64
    ) throws {
        let path = url.path
        let file = SocketPlatform.openForReading(path)
        guard file >= 0 else {
            throw HTTPTransferError(
                .fileSystem, "cannot read \(path)", underlying: SocketResponseSink.posixError(SocketPlatform.errno))
        }
        defer { SocketPlatform.close(file) }
        var offset = start
        let end = start + length
        var useSendFile = SocketPlatform.hasSendFile && configuration.usesSendFile
        var buffer: UnsafeMutableRawBufferPointer?
        defer { buffer?.deallocate() }
        while offset < end {
            let wanted = Int(min(end - offset, Int64(Self.sendFileChunk)))
            var moved: Int
            if useSendFile {
                moved = SocketPlatform.sendFile(socket, from: file, offset: &offset, count: wanted)
                if moved < 0 {
                    let code = SocketPlatform.errno
                    // Some file systems can't feed sendfile: fall back to reading into a buffer.
                    if code == EINVAL || code == ENOSYS || code == EOPNOTSUPP {
                        useSendFile = false
                        continue
                    }
                    throw SocketFailure(errno: code)
                }
            } else {
                let chunk = buffer ?? .allocate(byteCount: configuration.bufferSize, alignment: 16)
                buffer = chunk
                moved = SocketPlatform.read(file, into: chunk.baseAddress!, count: min(wanted, chunk.count), at: offset)
                if moved < 0 {
                    throw HTTPTransferError(
                        .fileSystem,
                        "cannot read \(path)",
                        underlying: SocketResponseSink.posixError(SocketPlatform.errno)
                    )
                }
                if moved > 0 {
                    try Self.sendAll(socket, UnsafeRawBufferPointer(rebasing: chunk[0..<moved]))
                    offset += Int64(moved)
                }
            }
            if moved == 0 { throw HTTPTransferError(.fileSystem, "\(path) became shorter while it was being sent") }
            sent += Int64(moved)
            request.progress?.sent(sent, of: total)
        }
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in try sendAll(fd, buffer) }
    }

    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SocketFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = SocketPlatform.send(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 { throw SocketFailure(errno: SocketPlatform.errno) }
            offset += written
        }
    }
}
