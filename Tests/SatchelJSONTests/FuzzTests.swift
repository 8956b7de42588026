import Foundation
import Testing

@testable import SatchelJSON

/// Random and mutated inputs: nothing may crash, and for valid documents the stream (under random
/// chunkings) must produce exactly the elements of the whole-document parse.
@Suite struct FuzzTests {
    static let seeds: [String] = [
        #"{"value": [{"ID": 1, "Name": "A\n\u00e9", "Price": 1.5e3, "Ok": true, "N": null}, "#
            + #"{"ID": -2, "T": [1, [2, {}]]}], "@odata.nextLink": "n"}"#,
        #"{"d": {"results": [{"__metadata": {"uri": "u"}, "V": "\ud83d\ude00"}, 0.1, "x"], "__next": "m"}}"#,
        #"[1, -0.0, 12345678901234567890, "é日本", [], {}, [[[]]], {"a": {"b": null}}]"#,
        #"{"value": [], "@odata.count": 0}"#,
        #"{"a": "\"\\\/\b\f\n\r\t", "value": ["\u0000", 1e-7, false]}"#,
    ]

    struct Loose: Decodable {
        var ID: Int?
        var Name: String?
        var value: [JSONValue]?
        var d: [String: JSONValue]?
    }

    /// Runs every reader on `bytes`; checks the stream against the whole-document parse.
    static func check(_ bytes: [UInt8], path: [String], random: inout SeededRandom) {
        let whole = try? JSONValue(parsing: bytes)
        _ = try? SatchelJSONDecoder().decode(Loose.self, from: bytes)
        _ = try? SatchelJSONDecoder().decode(JSONValue.self, from: bytes)
        _ = try? bytes.withUnsafeBytes { buffer in
            var tokenizer = try JSONTokenizer(unsafeBytes: buffer)
            while try tokenizer.next() != nil {}
        }
        _ = try? JSONReader.read(bytes) { try $0.skipValue() }

        // Random chunking.
        var parser = JSONArrayStreamParser(path: path)
        var elements: [JSONValue] = []
        var streamFailed = false
        var offset = 0
        do {
            while offset < bytes.count {
                let end = min(bytes.count, offset + 1 + Int(random.next() % 17))
                elements += try parser.append(bytes[offset..<end])
                offset = end
            }
            try parser.finish()
        } catch {
            streamFailed = true
        }
        guard let whole else {
            #expect(
                streamFailed,
                "stream accepted a document the whole parse rejected: \(String(decoding: bytes, as: UTF8.self))")
            return
        }
        var target: JSONValue? = whole
        for key in path { target = target?[key] }
        let duplicateKeys = hasDuplicateKeys(whole)
        if let array = target?.arrayValue, !duplicateKeys {
            #expect(!streamFailed, "stream rejected a valid document: \(String(decoding: bytes, as: UTF8.self))")
            #expect(elements == array)
        } else if !duplicateKeys {
            #expect(streamFailed)
        }
    }

    static func hasDuplicateKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            return Set(object.keys).count != object.keys.count || object.values.contains(where: hasDuplicateKeys)
        case .array(let elements):
            return elements.contains(where: hasDuplicateKeys)
        default:
            return false
        }
    }

    static let alphabet =
        Array(#"{}[]:,"\ u0123456789abcdefABCDEF.-+eEtrunlfs"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]

    @Test(arguments: 0..<seeds.count)
    func mutatedDocuments(_ seedIndex: Int) {
        var random = SeededRandom(seed: UInt64(seedIndex) &* 7919 &+ 1)
        let seed = Array(Self.seeds[seedIndex].utf8)
        let path = seedIndex == 1 ? ["d", "results"] : seedIndex == 2 ? [] : ["value"]
        // The seed itself under many chunkings.
        for _ in 0..<300 { Self.check(seed, path: path, random: &random) }
        for _ in 0..<3_000 {
            var bytes = seed
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[position] = Self.alphabet[Int(random.next() % UInt64(Self.alphabet.count))]
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(Self.alphabet[Int(random.next() % UInt64(Self.alphabet.count))], at: position)
                default: bytes = Array(bytes[..<position])
                }
                if bytes.isEmpty { bytes = [0x5B] }
            }
            Self.check(bytes, path: path, random: &random)
        }
    }

    @Test func randomBytes() {
        var random = SeededRandom(seed: 2024)
        for _ in 0..<10_000 {
            let count = Int(random.next() % 40)
            let bytes = (0..<count).map { _ in Self.alphabet[Int(random.next() % UInt64(Self.alphabet.count))] }
            Self.check(bytes, path: [], random: &random)
        }
    }
}
