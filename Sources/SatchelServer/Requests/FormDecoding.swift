import Foundation
public import SatchelCMISCore

/// `application/x-www-form-urlencoded` decoding for query strings and form bodies, with a field limit.
public enum FormDecoding {
    /// The name/value pairs of `text`, in order. Throws `invalidArgument` for bad percent escapes and when there
    /// are more than `maxFields` fields.
    public static func decode(_ text: Substring, maxFields: Int) throws(CMISError) -> [(String, String)] {
        var fields: [(String, String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard fields.count < maxFields else {
                throw CMISError(.invalidArgument, "the request has more than \(maxFields) parameters")
            }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try unescape(parts[0])
            let value = parts.count > 1 ? try unescape(parts[1]) : ""
            fields.append((name, value))
        }
        return fields
    }

    /// The decoded segments of a URL path (empty segments dropped), each read by ``unescapePathSegment(_:)``: what
    /// a binding decides from a path (a repository, an object path) it decides from these, never from the raw text.
    public static func pathSegments(_ path: Substring) throws(CMISError) -> [String] {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            do {
                segments.append(try unescapePathSegment(raw))
            } catch {
                throw CMISError(.invalidArgument, "the URL path has an invalid percent escape or is not UTF-8")
            }
        }
        return segments
    }

    /// Decodes the `%XX` escapes of a URL path segment (`+` stays `+`); the result must be UTF-8.
    public static func unescapePathSegment(_ text: Substring) throws(CMISError) -> String {
        try unescape(text, plusIsSpace: false)
    }

    /// Decodes `+` (when `plusIsSpace`) and `%XX` escapes; the result must be UTF-8.
    static func unescape(_ text: Substring, plusIsSpace: Bool = true) throws(CMISError) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusIsSpace) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex, utf8.index(after: first) != utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)])
                else { throw CMISError(.invalidArgument, "the request has an invalid percent escape") }
                bytes.append(high << 4 | low)
                index = utf8.index(after: utf8.index(after: first))
                continue
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw CMISError(.invalidArgument, "a request parameter is not valid UTF-8")
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
