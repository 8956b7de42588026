/// Reads the elements of one array inside a JSON document while the document is still arriving.
///
/// Feed chunks of bytes with ``append(_:_:)`` as they come; each element of the array at ``path`` is
/// handed to you as soon as its last byte has arrived, so memory stays bounded by the largest element,
/// not the page. Everything else in the document (`@odata.nextLink`, `@odata.count`, `__next` …) is kept
/// in ``envelope``, complete after ``finish()``, with the streamed array left empty. Chunks may split
/// the document anywhere: inside strings, escapes, multi-byte characters or numbers.
///
/// ```swift
/// var parser = JSONArrayStreamParser(path: ["value"])   // OData V4; ["d", "results"] for V2
/// for chunk in chunks {
///     for product in try parser.append(chunk, as: Product.self) { save(product) }
/// }
/// let envelope = try parser.finish()
/// let next = envelope["@odata.nextLink"]?.stringValue
/// ```
///
/// The whole document is validated as `JSONValue/init(parsing:limits:)` would, except that
/// ``JSONLimits/maxDocumentSize`` applies to each element rather than to the document.
public struct JSONArrayStreamParser: Sendable {
    /// Keys of the objects leading to the array; empty for a top-level array.
    public let path: [String]
    /// Limits applied to the document and each element.
    public let limits: JSONLimits
    /// The document without the streamed array's elements: set as soon as the document's root value has ended
    /// (which `skipElements(in:)` may reach early), and checked complete by `finish()`.
    public private(set) var envelope: JSONValue?
    /// Elements handed out so far.
    public private(set) var elementCount = 0

    private var buffer: [UInt8] = []
    private var position = 0
    /// Absolute offset of `buffer[0]` in the stream.
    private var consumed = 0
    private var state: State = .start
    private var levels: [Level] = []
    private var scanner = BoundaryScanner()
    private var found = false
    private var failure: (any Error)?

    private struct Level: Sendable {
        var object = JSONObject()
        /// The member whose value is being streamed or descended into.
        var pendingKey: String?
    }

    private enum State: Sendable, Equatable {
        case start, key(first: Bool), colon(String), memberValue(String), otherValue(String), afterMember
        case arrayFirst, element, afterElement, afterRoot, finished
    }

    /// A parser for the array at `path` (e.g. `["value"]`, `["d", "results"]`, or `[]` for a top-level array).
    public init(path: [String], limits: JSONLimits = .default) {
        self.path = path
        self.limits = limits
    }

    /// Adds bytes and calls `handler` with a reader positioned at each element completed by them.
    ///
    /// `handler` must read the element (or leave it unread to skip it). Errors thrown from it get the
    /// element's path (e.g. `value[3].Price`); after any error the parser refuses further input.
    public mutating func append<Bytes: Sequence>(
        _ chunk: Bytes, _ handler: (inout JSONReader) throws -> Void
    ) throws where Bytes.Element == UInt8 {
        try append(chunk, reading: .scanned, handler, retract: {})
    }

    /// Adds bytes and returns the elements they completed, as ``JSONValue``s.
    public mutating func append<Bytes: Sequence>(_ chunk: Bytes) throws -> [JSONValue] where Bytes.Element == UInt8 {
        var values: [JSONValue] = []
        try append(chunk) { values.append(try $0.readValue()) }
        return values
    }

    /// Adds bytes and returns the elements they completed, decoded as `T`.
    public mutating func append<Bytes: Sequence, T: JSONDecodable>(
        _ chunk: Bytes, as type: T.Type
    ) throws -> [T] where Bytes.Element == UInt8 {
        var values: [T] = []
        try append(chunk, decoding: { try T(from: &$0) }, into: &values)
        return values
    }

    /// Adds bytes and appends to `elements` what `decode` makes of each element they completed.
    ///
    /// Faster than ``append(_:_:)``: `decode` runs on an element before its end has been found, so its bytes are
    /// read once rather than scanned for the end and then read. It may therefore run on an element that is cut off
    /// by the end of the chunk; that result is dropped and `decode` runs again once the element is complete, so
    /// `decode` must only build a value (no side effects). Errors are the same as ``append(_:_:)``'s, with the
    /// element's path (`value[3].Price`); `elements` then holds the elements before the one that failed, and maybe
    /// that one too.
    ///
    /// ```swift
    /// var products: [Product] = []
    /// try parser.append(chunk, decoding: { try Product(from: &$0) }, into: &products)
    /// ```
    public mutating func append<Bytes: Sequence, T>(
        _ chunk: Bytes, decoding decode: (inout JSONReader) throws -> T, into elements: inout [T]
    ) throws where Bytes.Element == UInt8 {
        // Appending in the handler and taking back a speculative result that did not hold keeps the per-element work
        // to one closure call, with no optional of the generic type to look up.
        try append(
            chunk, reading: .speculative, { elements.append(try decode(&$0)) }, retract: { elements.removeLast() })
    }

    /// Adds bytes and passes over the elements they complete without reading them: their ends are found, but they
    /// are not validated. For reaching the envelope (a next link after the array) quickly, ahead of a reader that
    /// decodes the same bytes in full.
    ///
    /// ```swift
    /// var lookahead = JSONArrayStreamParser(path: ["value"])
    /// try lookahead.skipElements(in: chunk)
    /// if let envelope = lookahead.envelope { print(envelope["@odata.nextLink"] ?? "last page") }
    /// ```
    public mutating func skipElements<Bytes: Sequence>(in chunk: Bytes) throws where Bytes.Element == UInt8 {
        try append(chunk, reading: .skipped, { _ in }, retract: {})
    }

    /// How elements are read: found by scanning and then read, read before their end is known, or only found.
    private enum ElementReading {
        case scanned, speculative, skipped
    }

    private mutating func append<Bytes: Sequence>(
        _ chunk: Bytes, reading: ElementReading, _ handler: (inout JSONReader) throws -> Void,
        retract: () -> Void
    ) throws where Bytes.Element == UInt8 {
        if let failure { throw failure }
        precondition(state != .finished, "append(_:) after finish()")
        buffer.append(contentsOf: chunk)
        do {
            while try step(final: false, reading: reading, handler, retract: retract) {}
        } catch {
            failure = error
            throw error
        }
        if position > 0 {
            buffer.removeSubrange(0..<position)
            consumed += position
            scanner.shift(by: position)
            position = 0
        }
    }

    /// Declares the end of the input; checks the document is complete and returns ``envelope``.
    ///
    /// - Throws: ``JSONError`` if the document is cut short, or ``JSONError/Code/keyNotFound`` if it has
    ///   no array at ``path``.
    @discardableResult
    public mutating func finish() throws -> JSONValue {
        if let failure { throw failure }
        if state == .finished, let envelope { return envelope }
        do {
            while try step(final: true, reading: .scanned, { _ in }, retract: {}) {}
            guard found else {
                let where_ = path.isEmpty ? "at the top level" : "at \(path.joined(separator: "."))"
                throw error(.keyNotFound, "the document has no array \(where_)", at: buffer.count)
            }
        } catch {
            failure = error
            throw error
        }
        state = .finished
        return envelope ?? .null
    }

    // MARK: State machine

    /// Moves past whitespace; whether a byte is available.
    private mutating func skipWhitespace() -> Bool {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return true
            }
        }
        return false
    }

    private func error(_ code: JSONError.Code, _ message: String, at index: Int) -> JSONError {
        buffer.withUnsafeBytes { bytes in
            JSONReader(bytes: bytes, origin: consumed, depth: 0, limits: limits).makeError(code, message, at: index)
        }
    }

    private func syntaxError(_ expected: StaticString) -> JSONError {
        buffer.withUnsafeBytes { bytes in
            JSONReader(bytes: bytes, origin: consumed, depth: 0, limits: limits).syntaxError(
                expected: expected, at: position)
        }
    }

    private func typeMismatch(_ expected: StaticString) -> JSONError {
        buffer.withUnsafeBytes { bytes in
            JSONReader(bytes: bytes, origin: consumed, depth: 0, limits: limits).typeMismatch(
                expected: expected, at: position)
        }
    }

    /// The path of the member or element being read, for errors.
    private func withPath(_ error: any Error, _ last: JSONError.PathComponent) -> any Error {
        guard var error = error as? JSONError else { return error }
        error = error.prefixingPath(last)
        for level in levels.indices.reversed() {
            if let key = levels[level].pendingKey { error = error.prefixingPath(.key(key)) }
        }
        return error
    }

    /// Needs more input: an error at the end of the input, otherwise `false` (stop for now).
    private func needMore(_ final: Bool, _ expected: StaticString) throws -> Bool {
        if final { throw syntaxError(expected) }
        return false
    }

    private mutating func enter() throws {
        if levels.count + 1 > limits.maxDepth {
            throw error(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)", at: position)
        }
    }

    /// Scans to the end of the value at `position`; `nil` when more input is needed.
    private mutating func scanValue(_ final: Bool, baseDepth: Int) throws -> Int? {
        let position = position
        let result: Int?
        do {
            result = try buffer.withUnsafeBufferPointer { bytes throws(BoundaryScannerError) in
                try scanner.scan(bytes, from: position, baseDepth: baseDepth, limits: limits)
            }
        } catch {
            switch error {
            case .depth(let at):
                throw self.error(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)", at: at)
            case .notAValue: throw syntaxError("a value")
            case .size(let at):
                throw self.error(
                    .sizeLimitExceeded, "element larger than the limit of \(limits.maxDocumentSize) bytes", at: at)
            }
        }
        if result == nil && final {
            throw error(.unexpectedEnd, "unexpected end of input inside a value", at: buffer.count)
        }
        if let result, result - position > limits.maxDocumentSize {
            throw error(
                .sizeLimitExceeded, "element larger than the limit of \(limits.maxDocumentSize) bytes", at: position)
        }
        return result
    }

    /// Parses the complete value in `position..<end` with a reader at the right offset and depth.
    private func parse<R>(to end: Int, depth: Int, _ body: (inout JSONReader) throws -> R) throws -> R {
        try buffer.withUnsafeBytes { bytes in
            // The reader sees the rest of the buffer, not just the value, so that a broken value is
            // reported as the whole-document reader would (`tru,` is a bad character, not an early end).
            let rest = UnsafeRawBufferPointer(rebasing: bytes[position...])
            var reader = JSONReader(bytes: rest, origin: consumed + position, depth: depth, limits: limits)
            let result = try body(&reader)
            if reader.index == 0 { try reader.skipValue() }
            // The scanner only found a boundary; the parsed value must end exactly there.
            if reader.index != end - position {
                throw reader.syntaxError(
                    expected: state == .element ? "',' or ']' after array element" : "',' or '}' after object member",
                    at: min(reader.index, end - position))
            }
            return result
        }
    }

    /// Runs `handler` on the element at `position` before its end is known; the end of the element when
    /// `handler` read it whole and a `,` or `]` follows it in the buffer, nil otherwise (cut off by the end of the
    /// buffer, or invalid: the scanning path then waits for the rest, or reports the error as it always has).
    /// When `handler` succeeded but the element's end is not certain, `retract` takes its result back.
    private func speculate(_ handler: (inout JSONReader) throws -> Void, retract: () -> Void) -> Int? {
        buffer.withUnsafeBytes { bytes -> Int? in
            let rest = UnsafeRawBufferPointer(rebasing: bytes[position...])
            var reader = JSONReader(bytes: rest, origin: consumed + position, depth: levels.count + 1, limits: limits)
            do {
                try handler(&reader)
            } catch {
                return nil
            }
            if reader.index == 0 {
                do {
                    try reader.skipValue()
                } catch {
                    retract()
                    return nil
                }
            }
            let end = reader.index
            var next = end
            while end <= limits.maxDocumentSize && next < rest.count {
                switch rest[next] {
                case 0x20, 0x0A, 0x0D, 0x09: next += 1
                case UInt8(ascii: ","), UInt8(ascii: "]"): return position + end
                default: next = rest.count
                }
            }
            retract()
            return nil
        }
    }

    /// One step of the state machine; `false` when it must wait for more input (or is done). `retract` takes back
    /// what `handler` did for an element read speculatively that turned out not to be complete.
    private mutating func step(
        final: Bool, reading: ElementReading, _ handler: (inout JSONReader) throws -> Void, retract: () -> Void
    ) throws -> Bool {
        switch state {
        case .start:
            if consumed == 0 && position == 0 {
                // Skip a UTF-8 byte order mark, as the whole-document reader does.
                let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                if buffer.count < 3 && !final && bom.starts(with: buffer) { return false }
                if buffer.starts(with: bom) { position = 3 }
            }
            guard skipWhitespace() else { return try needMore(final, "a value") }
            let byte = buffer[position]
            if path.isEmpty {
                guard byte == UInt8(ascii: "[") else { throw typeMismatch("an array") }
                try enter()
                position += 1
                found = true
                state = .arrayFirst
            } else {
                guard byte == UInt8(ascii: "{") else { throw typeMismatch("an object") }
                try enter()
                position += 1
                levels.append(Level())
                state = .key(first: true)
            }
        case .key(let first):
            guard skipWhitespace() else { return try needMore(final, "a string key") }
            let byte = buffer[position]
            if first && byte == UInt8(ascii: "}") {
                closeObject()
                return true
            }
            guard byte == UInt8(ascii: "\"") else { throw syntaxError(first ? "a string key or '}'" : "a string key") }
            if scannerIdle {
                scanner.reset()
                scannerIdle = false
            }
            guard let end = try scanValue(final, baseDepth: levels.count) else { return false }
            let key = try parse(to: end, depth: levels.count) { try $0.readString() }
            scanner.reset()
            scannerIdle = true
            position = end
            state = .colon(key)
        case .colon(let key):
            guard skipWhitespace() else { return try needMore(final, "':' after object key") }
            guard buffer[position] == UInt8(ascii: ":") else { throw syntaxError("':' after object key") }
            position += 1
            state = .memberValue(key)
        case .memberValue(let key):
            guard skipWhitespace() else { return try needMore(final, "a value") }
            let level = levels.count - 1
            if levels[level].object.count + 1 > limits.maxObjectMembers {
                throw error(
                    .memberCountLimitExceeded, "object has more than \(limits.maxObjectMembers) members",
                    at: position)
            }
            if !found && key == path[level] {
                let byte = buffer[position]
                if level == path.count - 1 {
                    guard byte == UInt8(ascii: "[") else {
                        throw withPath(typeMismatch("an array"), .key(key))
                    }
                    try enter()
                    position += 1
                    found = true
                    levels[level].pendingKey = key
                    state = .arrayFirst
                    return true
                }
                if byte == UInt8(ascii: "{") {
                    try enter()
                    position += 1
                    levels[level].pendingKey = key
                    levels.append(Level())
                    state = .key(first: true)
                    return true
                }
            }
            scanner.reset()
            scannerIdle = false
            state = .otherValue(key)
        case .otherValue(let key):
            guard let end = try scanValue(final, baseDepth: levels.count) else { return false }
            let value: JSONValue
            do {
                value = try parse(to: end, depth: levels.count) { try $0.readValue() }
            } catch {
                throw withPath(error, .key(key))
            }
            levels[levels.count - 1].object.append(key: key, value: value)
            scannerIdle = true
            position = end
            state = .afterMember
        case .afterMember:
            guard skipWhitespace() else { return try needMore(final, "',' or '}' after object member") }
            let byte = buffer[position]
            if byte == UInt8(ascii: ",") {
                position += 1
                state = .key(first: false)
            } else if byte == UInt8(ascii: "}") {
                closeObject()
            } else {
                throw syntaxError("',' or '}' after object member")
            }
        case .arrayFirst:
            guard skipWhitespace() else { return try needMore(final, "a value or ']'") }
            if buffer[position] == UInt8(ascii: "]") {
                closeArray()
                return true
            }
            scanner.reset()
            state = .element
        case .element:
            guard skipWhitespace() else { return try needMore(final, "a value") }
            // An element whose scan began in an earlier chunk goes on scanning, so a large element arriving in
            // many chunks is not read again from its start each time.
            let read = reading == .speculative && !scanner.isStarted ? speculate(handler, retract: retract) : nil
            guard let end = try read ?? scanValue(final, baseDepth: levels.count + 1) else { return false }
            if elementCount >= limits.maxArrayElements {
                if read != nil { retract() }
                throw error(
                    .elementCountLimitExceeded, "array has more than \(limits.maxArrayElements) elements",
                    at: position)
            }
            do {
                if read == nil && reading != .skipped { try parse(to: end, depth: levels.count + 1, handler) }
            } catch {
                throw withPath(error, .index(elementCount))
            }
            elementCount += 1
            position = end
            state = .afterElement
        case .afterElement:
            guard skipWhitespace() else { return try needMore(final, "',' or ']' after array element") }
            let byte = buffer[position]
            if byte == UInt8(ascii: ",") {
                position += 1
                scanner.reset()
                state = .element
            } else if byte == UInt8(ascii: "]") {
                closeArray()
            } else {
                throw syntaxError("',' or ']' after array element")
            }
        case .afterRoot:
            if skipWhitespace() {
                throw error(.trailingData, "unexpected data after the end of the document", at: position)
            }
            return false
        case .finished:
            return false
        }
        return true
    }

    /// Whether the scanner is free to start on a new key (not resuming a key split across chunks).
    private var scannerIdle = true

    private mutating func closeObject() {
        position += 1
        let level = levels.removeLast()
        if levels.isEmpty {
            envelope = .object(level.object)
            state = .afterRoot
        } else {
            let key = levels[levels.count - 1].pendingKey!
            levels[levels.count - 1].pendingKey = nil
            levels[levels.count - 1].object.append(key: key, value: .object(level.object))
            state = .afterMember
        }
    }

    private mutating func closeArray() {
        position += 1
        if levels.isEmpty {
            envelope = .array([])
            state = .afterRoot
        } else {
            let key = levels[levels.count - 1].pendingKey!
            levels[levels.count - 1].pendingKey = nil
            levels[levels.count - 1].object.append(key: key, value: .array([]))
            state = .afterMember
        }
    }
}
