import Foundation

/// An `InputStream` over the segments of an ``HTTPClient/Body``: bytes in memory, then file ranges read as needed.
///
/// URLSession pulls request bodies from an `InputStream`; this one holds at most one open file and no more
/// than the caller's buffer, so a multipart upload of a 1 GiB file stays in constant memory.
final class SegmentInputStream: InputStream {
    // Used from URLSession's one body-reading thread at a time.
    private let segments: [HTTPClient.Body.Segment]
    private var index = 0
    private var offsetInSegment: Int64 = 0
    private var file: FileHandle?
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?
    private let onRead: (@Sendable (Int64) -> Void)?
    private var totalRead: Int64 = 0

    init(segments: [HTTPClient.Body.Segment], onRead: (@Sendable (Int64) -> Void)? = nil) {
        self.segments = segments
        self.onRead = onRead
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { status == .open && index < segments.count }

    override func open() { status = .open }

    override func close() {
        try? file?.close()
        file = nil
        status = .closed
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard status == .open || status == .atEnd else { return -1 }
        var written = 0
        while written < len, index < segments.count {
            let segment = segments[index]
            let remaining = segment.length - offsetInSegment
            if remaining <= 0 {
                advance()
                continue
            }
            let count = Int(min(Int64(len - written), remaining))
            do {
                try copy(segment, count: count, into: buffer + written)
            } catch {
                failure = error
                status = .error
                return -1
            }
            offsetInSegment += Int64(count)
            written += count
        }
        if index >= segments.count { status = .atEnd }
        totalRead += Int64(written)
        onRead?(totalRead)
        return written
    }

    private func copy(_ segment: HTTPClient.Body.Segment, count: Int, into target: UnsafeMutablePointer<UInt8>) throws {
        switch segment {
        case .data(let data):
            let start = data.startIndex + Int(offsetInSegment)
            data.copyBytes(to: target, from: start..<(start + count))
        case .file(let url, let offset, _):
            if file == nil {
                file = try FileHandle(forReadingFrom: url)
                try file?.seek(toOffset: UInt64(offset + offsetInSegment))
            }
            var filled = 0
            while filled < count {
                guard let chunk = try file?.read(upToCount: count - filled), !chunk.isEmpty else {
                    throw HTTPTransferError(.fileSystem, "\(url.path) became shorter while it was being sent")
                }
                chunk.copyBytes(to: target + filled, count: chunk.count)
                filled += chunk.count
            }
        }
    }

    private func advance() {
        try? file?.close()
        file = nil
        index += 1
        offsetInSegment = 0
    }
}
