import Foundation
import SatchelHTTP
import SatchelOData

/// The `multipart/mixed` reader under OData `$batch` answers, changesets one level down.
///
/// - What cannot be read throws an ``ODataError``; nothing else.
/// - The limits hold: parts per level, header bytes, nesting.
/// - The parts, written again between the same delimiters, read back as the same parts: the same header fields,
///   bodies and nesting.
enum MultipartFuzzTarget {
    static let target = FuzzTarget(
        name: "multipart", summary: "multipart/mixed: the $batch answer reader (MultipartMixed)", check: check)

    static let limits: MultipartMixed.Limits = {
        var limits = MultipartMixed.Limits()
        limits.maxParts = 64
        limits.maxHeaderBytes = 4096
        limits.maxPartBytes = 32 * 1024
        return limits
    }()

    /// The boundary is the input's first line after `--` (at most 70 bytes), so that the fuzzer controls it too.
    static func boundary(of bytes: [UInt8]) -> String {
        guard bytes.starts(with: [0x2D, 0x2D]) else { return "batch" }
        let line = bytes.dropFirst(2).prefix { $0 != 0x0D && $0 != 0x0A }.prefix(70)
        let text = String(decoding: line, as: UTF8.self)
        return text.isEmpty ? "batch" : text
    }

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation {
            FuzzViolation("multipart", "\(message): \(bytes.excerpt())")
        }
        let boundary = boundary(of: bytes)
        let parts: [MultipartMixed.Part]
        do {
            parts = try MultipartMixed.parse(Data(bytes), boundary: boundary, limits: limits)
        } catch is ODataError {
            return
        } catch {
            throw violation("the reader threw something other than an ODataError: \(error)")
        }
        try checkLimits(parts, depth: 1, violation: violation)
        let written = write(parts, boundary: boundary)
        let again: [MultipartMixed.Part]
        do {
            // Larger limits for the second read: a header byte that is not UTF-8 was read as U+FFFD and is written
            // as three bytes, so the headers may have outgrown the first read's limits (which that read held to).
            var larger = limits
            larger.maxHeaderBytes = max(limits.maxHeaderBytes, written.count)
            larger.maxPartBytes = max(limits.maxPartBytes, written.count)
            again = try MultipartMixed.parse(Data(written), boundary: boundary, limits: larger)
        } catch {
            throw violation("written again as \(written.excerpt(400)), it no longer reads: \(error)")
        }
        guard describe(again) == describe(parts) else {
            throw violation("written again as \(written.excerpt(400)), it reads as other parts")
        }
    }

    static func checkLimits(
        _ parts: [MultipartMixed.Part], depth: Int, violation: (String) -> FuzzViolation
    ) throws(FuzzViolation) {
        guard parts.count <= limits.maxParts else { throw violation("\(parts.count) parts, more than the limit") }
        guard depth <= limits.maxDepth else { throw violation("nested deeper than the limit") }
        for part in parts {
            if let inner = part.parts { try checkLimits(inner, depth: depth + 1, violation: violation) }
        }
    }

    /// The parts between `--boundary` delimiters, CRLF line ends; nested parts with the boundary their
    /// `Content-Type` names.
    static func write(_ parts: [MultipartMixed.Part], boundary: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes += Array("--\(boundary)\r\n".utf8)
            for field in part.headers { bytes += Array("\(field.name): \(field.value)\r\n".utf8) }
            bytes += Array("\r\n".utf8)
            if let inner = part.parts {
                let innerBoundary = MediaType(part.headers["Content-Type"] ?? "").parameter("boundary") ?? ""
                bytes += write(inner, boundary: innerBoundary)
            } else {
                bytes += Array(part.body)
            }
            bytes += Array("\r\n".utf8)
        }
        bytes += Array("--\(boundary)--\r\n".utf8)
        return bytes
    }

    static func describe(_ parts: [MultipartMixed.Part]) -> [String] {
        parts.map { part in
            let fields = part.headers.map { "\($0.name): \($0.value)" }.joined(separator: "|")
            let content =
                part.parts.map { "[" + describe($0).joined(separator: ", ") + "]" } ?? part.body.base64EncodedString()
            return fields + " => " + content
        }
    }
}
