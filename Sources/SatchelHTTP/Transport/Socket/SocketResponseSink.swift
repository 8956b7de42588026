import Foundation

/// Where the body bytes of one response go: a `Data` bounded by a limit, or a file written with plain `write(2)`.
///
/// The file path is the hot path of a download: each buffer the reader hands out is written straight from the
/// socket buffer to the file descriptor, with no `Data` or `FileHandle` in between.
final class SocketResponseSink {
    private enum Target {
        case memory(limit: Int)
        case file(fd: Int32, path: String)
        case stream(ResponseBodyChannel)
        case closed
    }

    private var target: Target
    private(set) var data = Data()
    /// Body bytes accepted so far.
    private(set) var length: Int64 = 0

    init(destination: ResponseDestination, expectedLength: Int64?) throws(HTTPTransferError) {
        switch destination {
        case .memory(let limit):
            if let expectedLength, expectedLength > Int64(limit) {
                throw Self.tooLarge(limit: limit, announced: expectedLength)
            }
            if let expectedLength, expectedLength > 0 { data.reserveCapacity(Int(expectedLength)) }
            target = .memory(limit: limit)
        case .file(let url):
            let path = url.path
            let fd = SocketPlatform.openForWriting(path)
            guard fd >= 0 else {
                throw HTTPTransferError(
                    .fileSystem, "cannot create \(path)", underlying: Self.posixError(SocketPlatform.errno))
            }
            target = .file(fd: fd, path: path)
        }
    }

    /// A sink that hands each buffer to a streamed response's consumer, waiting while its buffer is full.
    init(channel: ResponseBodyChannel) { target = .stream(channel) }

    deinit {
        if case .file(let fd, _) = target { SocketPlatform.close(fd) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPTransferError) {
        guard !bytes.isEmpty else { return }
        switch target {
        case .memory(let limit):
            if data.count + bytes.count > limit { throw Self.tooLarge(limit: limit, announced: nil) }
            data.append(bytes.assumingMemoryBound(to: UInt8.self))
        case .file(let fd, let path):
            var offset = 0
            while offset < bytes.count {
                let written = SocketPlatform.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else {
                    let cause = Self.posixError(written < 0 ? SocketPlatform.errno : ENOSPC)
                    throw HTTPTransferError(.fileSystem, "cannot write \(path)", underlying: cause)
                }
                offset += written
            }
        case .stream(let channel):
            try channel.push(Data(bytes))
        case .closed:
            return
        }
        length += Int64(bytes.count)
    }

    /// Closes the file; the body is complete.
    func finish() {
        if case .file(let fd, _) = target { SocketPlatform.close(fd) }
        target = .closed
    }

    /// Closes and removes the file of a body that failed half-way, so nobody mistakes it for a download.
    func abandon() {
        if case .file(let fd, let path) = target {
            SocketPlatform.close(fd)
            SocketPlatform.unlink(path)
        }
        target = .closed
        data = Data()
    }

    static func posixError(_ code: Int32) -> POSIXError { POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }

    static func tooLarge(limit: Int, announced: Int64?) -> HTTPTransferError {
        let size = announced.map { " (\($0) bytes announced)" } ?? ""
        return HTTPTransferError(
            .responseTooLarge,
            "the response is larger than the \(limit) bytes allowed in memory\(size); download it to a file instead"
        )
    }
}
