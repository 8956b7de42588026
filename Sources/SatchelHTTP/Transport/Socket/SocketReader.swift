/// Buffered reads from a connected socket: one buffer, allocated once per exchange and reused for every read.
///
/// Bodies are handed out as views into the buffer (valid until the next read), so bytes go from the kernel to
/// their destination with a single copy and memory stays constant however large the response.
final class SocketReader {
    private let fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    /// Bytes received from the socket so far; zero means the server has sent nothing at all.
    private(set) var received: Int64 = 0

    init(fd: Int32, capacity: Int) {
        self.fd = fd
        buffer = .allocate(byteCount: max(capacity, 4096), alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Bytes received but not yet consumed; a reusable connection must have none left after a response.
    var buffered: Int { end - start }

    private var base: UnsafeMutableRawPointer { buffer.baseAddress! }

    /// Reads once from the socket into the free end of the buffer; returns the byte count, 0 at the end of the stream.
    @discardableResult
    private func fill() throws(SocketFailure) -> Int {
        if start == end {
            start = 0
            end = 0
        } else if end == buffer.count, start > 0 {
            (base + 0).copyMemory(from: base + start, byteCount: end - start)
            end -= start
            start = 0
        }
        guard end < buffer.count else { return 0 }
        let count = SocketPlatform.receive(fd, base + end, buffer.count - end)
        if count < 0 { throw SocketFailure(errno: SocketPlatform.errno) }
        end += count
        received += Int64(count)
        return count
    }

    // MARK: Heads and lines

    enum HeadResult {
        /// A complete head; the view excludes the empty line that ends it.
        case head(UnsafeRawBufferPointer)
        /// The stream ended before any byte of a head arrived.
        case endOfStream
        /// The stream ended in the middle of a head.
        case truncated
        /// More than `maximumBytes` or `maximumLines` without an end.
        case tooLarge
    }

    /// Reads up to and including the empty line ending a message head. Lines may end in CRLF or a bare LF, and empty
    /// lines before the status line are skipped. The returned view is valid until the next read.
    func readHead(maximumBytes: Int, maximumLines: Int) throws(SocketFailure) -> HeadResult {
        var scanned = 0
        var lineStart = 0
        var lines = 0
        while true {
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            while scanned < end - start {
                if bytes[start + scanned] == 0x0A {
                    let length = scanned - lineStart
                    let isEmpty = length == 0 || (length == 1 && bytes[start + lineStart] == 0x0D)
                    if isEmpty && lines == 0 {
                        start += scanned + 1
                        scanned = 0
                        lineStart = 0
                        continue
                    }
                    if isEmpty {
                        let head = UnsafeRawBufferPointer(start: base + start, count: lineStart)
                        start += scanned + 1
                        return .head(head)
                    }
                    lines += 1
                    if lines > maximumLines { return .tooLarge }
                    lineStart = scanned + 1
                }
                scanned += 1
                if scanned >= maximumBytes { return .tooLarge }
            }
            if end - start >= maximumBytes { return .tooLarge }
            let before = end - start
            if try fill() == 0 { return before == 0 && lines == 0 ? .endOfStream : .truncated }
        }
    }

    /// One line without its CRLF or LF, at most `maximumBytes` long; nil when the stream ends or the line is longer.
    func readLine(maximumBytes: Int) throws(SocketFailure) -> [UInt8]? {
        var scanned = 0
        while true {
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            while scanned < end - start {
                if bytes[start + scanned] == 0x0A {
                    var length = scanned
                    if length > 0, bytes[start + length - 1] == 0x0D { length -= 1 }
                    let line = Array(UnsafeBufferPointer(start: bytes + start, count: length))
                    start += scanned + 1
                    return line
                }
                scanned += 1
                if scanned > maximumBytes { return nil }
            }
            if try fill() == 0 { return nil }
        }
    }

    // MARK: Bodies

    /// The next bytes of a body, at most `limit`: what is buffered, or one fresh read. Nil at the end of the stream.
    /// The view is valid until the next read.
    func next(upTo limit: Int64) throws(SocketFailure) -> UnsafeRawBufferPointer? {
        if start == end, try fill() == 0 { return nil }
        let count = Int(min(Int64(end - start), limit))
        let view = UnsafeRawBufferPointer(start: base + start, count: count)
        start += count
        return view
    }
}
