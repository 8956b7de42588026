import SatchelJSON

/// SatchelJSON's readers: the whole-document parse, the `Decodable` decoder, and the array stream under a chunking
/// the input picks.
///
/// - A document that does not parse throws a ``JSONError`` whose offset lies within the input.
/// - The decoder accepts exactly what the parse accepts, and reads the same value.
/// - What parses, written by ``JSONWriter``, parses to the same value.
/// - The stream of the array at the document's usual paths (`value`, `d.results`, the top level) hands out exactly
///   that array's elements, and fails on a document the parse rejects.
enum JSONFuzzTarget {
    static let target = FuzzTarget(
        name: "json", summary: "JSON: JSONValue(parsing:), SatchelJSONDecoder, JSONArrayStreamParser, JSONWriter",
        seedFolders: [
            "Tests/SatchelODataTests/Fixtures", "Tests/SatchelNuxeoTests/Fixtures",
            "Tests/SatchelCMISCoreTests/Fixtures/cmis-opencmis", "Tests/SatchelODataGenTests/Fixtures",
        ],
        seedExtensions: ["json"], check: check)

    /// Small limits, so that inputs a fuzzer makes reach them.
    static let limits = JSONLimits(
        maxDepth: 64, maxDocumentSize: 1 << 20, maxStringLength: 4096, maxNumberLength: 64, maxObjectMembers: 512,
        maxArrayElements: 4096)

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("json", "\(message): \(bytes.excerpt())") }

        let whole: JSONValue?
        do {
            whole = try JSONValue(parsing: bytes, limits: limits)
        } catch let error as JSONError {
            guard let offset = error.offset, offset >= 0, offset <= bytes.count else {
                throw violation("a parse error without a position in the input: \(error)")
            }
            whole = nil
        } catch {
            throw violation("the parse threw something other than a JSONError: \(error)")
        }

        // The decoder (the default limits: what the parse accepted, it accepts).
        let decoded: JSONValue?
        do {
            decoded = try SatchelJSONDecoder().decode(JSONValue.self, from: bytes)
        } catch is JSONError {
            decoded = nil
        } catch let DecodingError.dataCorrupted(context) where context.underlyingError is JSONError {
            // Codable's convention: the reader's error under a DecodingError.
            decoded = nil
        } catch {
            throw violation("the decoder threw something other than a JSONError: \(error)")
        }
        if let whole {
            guard let decoded else { throw violation("the decoder rejected a document the parse accepted") }
            guard decoded == whole else { throw violation("the decoder read another value than the parse") }
        }

        if let whole {
            let written = whole.serialized()
            do {
                let again = try JSONValue(parsing: written, limits: limits)
                guard again == whole else {
                    throw violation("written as \(written.excerpt()), it parses to another value")
                }
            } catch let error as FuzzViolation {
                throw error
            } catch {
                throw violation("written as \(written.excerpt()), it no longer parses: \(error)")
            }
        }

        try checkStream(bytes, whole: whole, violation: violation)
    }

    /// The stream of the array at a path, fed in chunks whose sizes come from the input itself.
    static func checkStream(
        _ bytes: [UInt8], whole: JSONValue?, violation: (String) -> FuzzViolation
    ) throws(FuzzViolation) {
        let paths: [[String]] = [[], ["value"], ["d", "results"]]
        let path = paths[bytes.count % paths.count]
        var parser = JSONArrayStreamParser(path: path, limits: limits)
        var elements: [JSONValue] = []
        var streamFailed = false
        var offset = 0
        var step = 0
        do {
            while offset < bytes.count {
                let size = 1 + Int(bytes[step % bytes.count] % 23)
                step += 1
                let end = min(bytes.count, offset + size)
                elements += try parser.append(bytes[offset..<end])
                offset = end
            }
            _ = try parser.finish()
        } catch is JSONError {
            streamFailed = true
        } catch {
            throw violation("the stream threw something other than a JSONError: \(error)")
        }
        guard let whole else {
            if !streamFailed { throw violation("the stream of \(path) accepted a document the parse rejected") }
            return
        }
        // Duplicate keys: the parse keeps the last member, the stream may already have handed out the first.
        guard !hasDuplicateKeys(whole) else { return }
        var target: JSONValue? = whole
        for key in path { target = target?[key] }
        if let array = target?.arrayValue {
            if streamFailed { throw violation("the stream of \(path) rejected a document the parse accepted") }
            if elements != array { throw violation("the stream of \(path) handed out other elements") }
        } else if !streamFailed {
            throw violation("the stream of \(path) accepted a document without an array there")
        }
    }

    static func hasDuplicateKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            Set(object.keys).count != object.keys.count || object.values.contains(where: hasDuplicateKeys)
        case .array(let elements):
            elements.contains(where: hasDuplicateKeys)
        default:
            false
        }
    }
}
