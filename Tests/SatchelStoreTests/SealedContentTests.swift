import Foundation
import SatchelStore
import Testing

/// Sealed content files: what goes in comes out, and a file cut short, changed, reordered, spliced from another
/// file or opened with another key is refused with the reason.
@Suite("Sealed content")
struct SealedContentTests {
    let folder: URL
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sealed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static func reason(_ body: () throws -> Void) -> SealedContent.Failure.Reason? {
        do {
            try body()
            return nil
        } catch let failure as SealedContent.Failure {
            return failure.reason
        } catch {
            return nil
        }
    }

    @Test("round trip at every segment edge, from data and from a file, in memory and to a file")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let sealer = try SealedContent(key: SealedContent.randomKey())
        let segment = SealedContent.segmentSize
        for size in [0, 1, segment - 1, segment, segment + 1, 2 * segment, 3 * segment + 17] {
            let plain = Self.bytes(size)
            let sealed = folder.appendingPathComponent("s\(size)")
            try sealer.seal(plain, to: sealed)
            #expect(try sealer.open(sealed) == plain, "\(size) bytes")
            let source = folder.appendingPathComponent("p\(size)")
            try plain.write(to: source)
            let again = folder.appendingPathComponent("t\(size)")
            #expect(try sealer.seal(contentsOf: source, to: again) == Int64(size))
            let out = folder.appendingPathComponent("o\(size)")
            try sealer.open(again, to: out)
            #expect(try Data(contentsOf: out) == plain)
            let stored = try Data(contentsOf: again)
            if size > 64 { #expect(stored.range(of: plain.prefix(64)) == nil, "no plaintext on disk") }
        }
        let sealedAgain = folder.appendingPathComponent("twice")
        try sealer.seal(Self.bytes(100), to: sealedAgain)
        let first = try Data(contentsOf: sealedAgain)
        try sealer.seal(Self.bytes(100), to: sealedAgain)
        #expect(try Data(contentsOf: sealedAgain) != first, "a fresh salt each time")
        #expect(throws: StoreError.self) { try SealedContent(key: [UInt8](repeating: 1, count: 16)) }
    }

    @Test("attack: truncation, bit flips, reordered or spliced segments, another key")
    func tampering() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let sealer = try SealedContent(key: SealedContent.randomKey())
        let segment = SealedContent.segmentSize
        let stride = segment + 16
        let header = 9 + 32
        let plain = Self.bytes(3 * segment + 100)
        let sealed = folder.appendingPathComponent("victim")
        try sealer.seal(plain, to: sealed)
        let original = try Data(contentsOf: sealed)
        func attempt(_ bytes: Data) -> SealedContent.Failure.Reason? {
            let file = folder.appendingPathComponent("attempt-\(UUID().uuidString)")
            try? bytes.write(to: file)
            return Self.reason { _ = try sealer.open(file) }
        }
        // Cut at a segment boundary (whole segments remain), inside a segment, inside the header.
        #expect(attempt(original.prefix(header + 2 * stride)) == .truncated)
        #expect(attempt(original.prefix(header + stride + 100)) == .corrupt)
        #expect(attempt(original.prefix(20)) == .truncated)
        #expect(attempt(Data("not a sealed file at all, really not at all".utf8)) == .notSealed)
        var flipped = original
        flipped[header + stride + 5] ^= 0x01
        #expect(attempt(flipped) == .corrupt)
        var swapped = original
        let a = original[(header)..<(header + stride)]
        let b = original[(header + stride)..<(header + 2 * stride)]
        swapped.replaceSubrange((header)..<(header + 2 * stride), with: b + a)
        #expect(attempt(swapped) == .corrupt)
        // A segment from another file sealed with the same key.
        let other = folder.appendingPathComponent("other")
        try sealer.seal(Self.bytes(3 * segment + 100, seed: 9), to: other)
        var spliced = original
        let otherBytes = try Data(contentsOf: other)
        spliced.replaceSubrange(
            (header + stride)..<(header + 2 * stride), with: otherBytes[(header + stride)..<(header + 2 * stride)])
        #expect(attempt(spliced) == .corrupt)
        let stranger = try SealedContent(key: SealedContent.randomKey())
        #expect(Self.reason { _ = try stranger.open(sealed) } == .corrupt)
        // Nothing of a failing segment reaches the reader.
        var delivered = 0
        #expect(throws: SealedContent.Failure.self) {
            let file = folder.appendingPathComponent("flipped")
            try flipped.write(to: file)
            try sealer.open(file) { delivered += $0.count }
        }
        #expect(delivered == segment, "only the first, intact segment")
    }
}
