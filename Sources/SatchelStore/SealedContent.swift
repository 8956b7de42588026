import Crypto
public import Foundation

/// Seals files for keeping beside a store (cached content, media), in constant memory: AES-256-GCM over 64 KiB
/// segments, under a key derived for each file (HKDF from the content key and a random 32-byte file salt), each
/// segment's number in its nonce and, with whether it is the last, in its associated data. A file cut short, segments
/// reordered, swapped between files or changed are each refused (``Failure``), never returned.
///
/// File: `SATCHELC` `0x01` salt(32) then segments, each ciphertext (up to 64 KiB) and tag (16).
///
/// ```swift
/// let sealer = try SealedContent(key: contentKey)            // 32 bytes, kept in the encrypted store
/// try sealer.seal(contentsOf: download, to: cached)
/// try sealer.open(cached, to: plain)
/// ```
public struct SealedContent: Sendable {
    /// Bytes of plaintext per sealed segment: 64 KiB (the last segment of a file may be shorter).
    public static let segmentSize = 64 * 1024
    static let magic = Array("SATCHELC".utf8) + [1]
    static let saltSize = 32
    static let tagSize = 16
    static var headerSize: Int { magic.count + saltSize }

    /// Why a sealed file was not opened.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What kind of failure it was.
        public enum Reason: String, Sendable, Hashable {
            /// Not a sealed file (or a newer format).
            case notSealed
            /// A segment fails authentication: changed, moved, from another file, or another key.
            case corrupt
            /// The file ends before its last segment.
            case truncated
            /// Reading or writing a file failed.
            case io
        }

        /// What kind of failure it was.
        public var reason: Reason
        /// The file concerned: the sealed file, or for `io` the file that could not be read or written.
        public var path: String
        /// The segment concerned.
        public var segment: Int?
        /// More context: for `io`, the system's error message.
        public var detail: String?

        /// `SatchelStore: <path>: <what went wrong>`, with the detail after a colon.
        public var description: String {
            var text = "SatchelStore: \(path): "
            switch reason {
            case .notSealed: text += "not a sealed content file"
            case .corrupt: text += "segment \(segment ?? 0) is corrupt, misplaced or sealed with another key"
            case .truncated: text += "the file ends before its last segment"
            case .io: text += "file error"
            }
            if let detail { text += ": \(detail)" }
            return text
        }
    }

    private let key: SymmetricKey

    /// `key`: 32 random bytes, kept secret (in an encrypted store's own tables, say).
    public init(key: some ContiguousBytes) throws(StoreError) {
        let bytes = key.withUnsafeBytes { Array($0) }
        guard bytes.count == 32 else { throw StoreError(.invalidKey, path: "", detail: "a content key is 32 bytes") }
        self.key = SymmetricKey(data: bytes)
    }

    /// A new random content key.
    public static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The key of one file: from its salt and the context it was sealed for (a file moved to another context does
    /// not open there).
    private func fileKey(salt: some DataProtocol, context: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, salt: salt, info: Data("satchel sealed content 1\u{0}\(context)".utf8),
            outputByteCount: 32)
    }

    private static func nonce(_ index: UInt64) -> AES.GCM.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { bytes[4 + i] = UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64(i))) }
        return try! AES.GCM.Nonce(data: bytes)  // 12 bytes: always a valid nonce
    }

    private static func associatedData(_ index: UInt64, last: Bool) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64($0))) } + [last ? 1 : 0]
    }

    /// Seals `source` into `destination` (written beside it, then renamed into place); returns the plaintext length.
    /// `context` (a cache key, a record id) binds the file to what it is for: it opens only with the same context.
    @discardableResult
    public func seal(contentsOf source: URL, to destination: URL, context: String = "") throws(Failure) -> Int64 {
        let input = try Reader(source)
        defer { input.close() }
        return try seal(to: destination, context: context) { () throws(Failure) -> Data in
            try input.read(Self.segmentSize)
        }
    }

    /// A file read in pieces, its failures said as ``Failure``s.
    private struct Reader {
        let handle: FileHandle
        let path: String

        init(_ url: URL) throws(Failure) {
            path = url.path
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                throw Failure(reason: .io, path: url.path, detail: "\(error)")
            }
        }

        func read(_ count: Int) throws(Failure) -> Data {
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw Failure(reason: .io, path: path, detail: "\(error)")
            }
        }

        func close() { try? handle.close() }
    }

    /// Seals `data` into `destination`.
    public func seal(_ data: Data, to destination: URL, context: String = "") throws(Failure) {
        var offset = data.startIndex
        _ = try seal(to: destination, context: context) { () throws(Failure) -> Data in
            let end = data.index(offset, offsetBy: Self.segmentSize, limitedBy: data.endIndex) ?? data.endIndex
            defer { offset = end }
            return data[offset..<end]
        }
    }

    /// Writes segments from `next` (an empty answer: the end) into a temporary file, then renames it.
    private func seal(
        to destination: URL, context: String, next: () throws(Failure) -> Data
    ) throws(Failure)
        -> Int64
    {
        let (temporary, output) = try Self.temporaryFile(beside: destination)
        var done = false
        defer { if !done { try? FileManager.default.removeItem(at: temporary) } }
        do {
            defer { try? output.close() }
            let salt = Self.randomKey()
            try output.write(contentsOf: Self.magic + salt)
            let fileKey = fileKey(salt: salt, context: context)
            var index: UInt64 = 0
            var total: Int64 = 0
            var current = try next()
            while true {
                let following = current.count == Self.segmentSize ? try next() : Data()
                let last = following.isEmpty
                let box = try AES.GCM.seal(
                    current, using: fileKey, nonce: Self.nonce(index),
                    authenticating: Self.associatedData(index, last: last))
                try output.write(contentsOf: box.ciphertext)
                try output.write(contentsOf: box.tag)
                total += Int64(current.count)
                if last { break }
                current = following
                index += 1
            }
            // Not synced: a file torn by a power cut fails its check when read, and a cache fetches it again.
            try output.close()
            try Self.moveIntoPlace(temporary, destination)
            done = true
            return total
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(reason: .io, path: destination.path, detail: "\(error)")
        }
    }

    /// Opens a sealed file segment by segment, passing each segment's plaintext to `body` in order; throws before
    /// passing anything of a segment that fails, and at the end if the last segment never came.
    public func open(_ sealed: URL, context: String = "", _ body: (Data) throws -> Void) throws {
        let input = try Reader(sealed)
        defer { input.close() }
        func read(_ count: Int) throws(Failure) -> Data { try input.read(count) }
        let header = try read(Self.headerSize)
        guard header.count == Self.headerSize, Array(header.prefix(Self.magic.count)) == Self.magic else {
            throw Failure(reason: header.count < Self.headerSize ? .truncated : .notSealed, path: sealed.path)
        }
        let fileKey = fileKey(salt: header.suffix(Self.saltSize), context: context)
        let stride = Self.segmentSize + Self.tagSize
        var index: UInt64 = 0
        var current = try read(stride)
        while true {
            guard current.count >= Self.tagSize else {
                throw Failure(reason: .truncated, path: sealed.path, segment: Int(index))
            }
            let following = current.count == stride ? try read(stride) : Data()
            let last = following.isEmpty
            let plain: Data
            do {
                let box = try AES.GCM.SealedBox(
                    nonce: Self.nonce(index), ciphertext: current.dropLast(Self.tagSize),
                    tag: current.suffix(Self.tagSize))
                plain = try AES.GCM.open(box, using: fileKey, authenticating: Self.associatedData(index, last: last))
            } catch {
                // A full segment that is not the last failing as the last: the file was cut after it.
                if last, current.count == stride,
                    (try? AES.GCM.open(
                        AES.GCM.SealedBox(
                            nonce: Self.nonce(index), ciphertext: current.dropLast(Self.tagSize),
                            tag: current.suffix(Self.tagSize)), using: fileKey,
                        authenticating: Self.associatedData(index, last: false))) != nil
                {
                    throw Failure(reason: .truncated, path: sealed.path, segment: Int(index))
                }
                throw Failure(reason: .corrupt, path: sealed.path, segment: Int(index))
            }
            try body(plain)
            if last { return }
            current = following
            index += 1
        }
    }

    /// A sealed file's plaintext in memory.
    public func open(_ sealed: URL, context: String = "") throws -> Data {
        var data = Data()
        try open(sealed, context: context) { data.append($0) }
        return data
    }

    /// Opens a sealed file into `destination` (written beside it, then renamed into place).
    public func open(_ sealed: URL, to destination: URL, context: String = "") throws {
        let (temporary, output) = try Self.temporaryFile(beside: destination)
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try open(sealed, context: context) { try output.write(contentsOf: $0) }
            try output.close()
        } catch {
            try? output.close()
            throw error
        }
        try Self.moveIntoPlace(temporary, destination)
    }

    /// A new owner-only file beside `destination`, open for writing.
    private static func temporaryFile(beside destination: URL) throws(Failure) -> (URL, FileHandle) {
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = try? FileHandle(forWritingTo: temporary)
        else {
            throw Failure(reason: .io, path: temporary.path, detail: "cannot create the file")
        }
        return (temporary, handle)
    }

    /// Renames a finished file over `destination` in one step (rename(2); Foundation's `replaceItemAt` fails on Linux
    /// when the destination exists).
    public static func moveIntoPlace(_ file: URL, _ destination: URL) throws {
        guard rename(file.path, destination.path) == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSFilePathErrorKey: destination.path, NSLocalizedDescriptionKey: String(cString: strerror(errno)),
                ])
        }
    }
}
