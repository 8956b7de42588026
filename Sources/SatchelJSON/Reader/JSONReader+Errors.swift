// Error construction lives out of line: hot paths only pay for a call on failure.
extension JSONReader {
    /// An error at `position` (an index into this reader's bytes) with offset, line, column and excerpt.
    @usableFromInline @inline(never)
    func makeError(_ code: JSONError.Code, _ message: String, at position: Int) -> JSONError {
        let position = max(0, min(position, end))
        var line: Int?
        var column: Int?
        if origin == 0 {
            // Only a reader over the whole document knows lines; counting them is cheap next to failing.
            var lineNumber = 1
            var lineStart = 0
            for i in 0..<position where base[i] == 0x0A {
                lineNumber += 1
                lineStart = i + 1
            }
            line = lineNumber
            column = position - lineStart + 1
        }
        return JSONError(
            code: code, message: message, offset: origin + position, line: line, column: column,
            excerpt: excerpt(around: position))
    }

    @usableFromInline
    func excerpt(around position: Int) -> String? {
        guard end > 0 else { return nil }
        var from = max(0, position - 24)
        var to = min(end, position + 24)
        // Don't cut a multi-byte character in half.
        while from > 0, from < end, base[from] & 0xC0 == 0x80 { from -= 1 }
        while to < end, base[to] & 0xC0 == 0x80 { to += 1 }
        var text = String(decoding: UnsafeBufferPointer(start: base + from, count: to - from), as: UTF8.self)
        text = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return (from > 0 ? "…" : "") + text + (to < end ? "…" : "")
    }

    /// A readable name for the byte at `position`.
    @usableFromInline
    func describe(at position: Int) -> String {
        guard position < end else { return "end of input" }
        let byte = base[position]
        if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte >= 0x80 {
            // Show the whole character if it is valid UTF-8.
            var length = 1
            while position + length < end, length < 4, base[position + length] & 0xC0 == 0x80 { length += 1 }
            if let text = String(validating: UnsafeBufferPointer(start: base + position, count: length), as: UTF8.self)
            {
                return "'\(text)'"
            }
        }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    /// "expected X, found Y" — or unexpected end when the input is exhausted.
    @usableFromInline @inline(never)
    func syntaxError(expected: StaticString, at position: Int) -> JSONError {
        if position >= end {
            return makeError(.unexpectedEnd, "unexpected end of input, expected \(expected)", at: position)
        }
        return makeError(.unexpectedCharacter, "expected \(expected), found \(describe(at: position))", at: position)
    }

    /// The kind of value starting at `position`, if a value can start there.
    @usableFromInline
    func kind(at position: Int) -> JSONKind? {
        guard position < end else { return nil }
        return JSONKind.starting(with: base[position])
    }

    /// A value of another kind than `expected` starts at `position` (or no value at all: a syntax error).
    @usableFromInline @inline(never)
    func typeMismatch(expected: StaticString, at position: Int) -> JSONError {
        guard let found = kind(at: position) else { return syntaxError(expected: expected, at: position) }
        return makeError(.typeMismatch, "expected \(expected), found \(found)", at: position)
    }

    /// Failure to read `null`, `true` or `false` at `index`: a broken literal or another kind of value.
    @usableFromInline @inline(never)
    func literalError(expected: StaticString) -> JSONError {
        guard index < end else { return syntaxError(expected: expected, at: index) }
        let first = base[index]
        let isLiteralStart = first == UInt8(ascii: "n") || first == UInt8(ascii: "t") || first == UInt8(ascii: "f")
        guard isLiteralStart else { return typeMismatch(expected: expected, at: index) }
        let word: StaticString = first == UInt8(ascii: "n") ? "null" : first == UInt8(ascii: "t") ? "true" : "false"
        var i = 0
        let matched = word.withUTF8Buffer { literal -> Bool in
            while i < literal.count {
                guard index + i < end, base[index + i] == literal[i] else { return false }
                i += 1
            }
            return true
        }
        if matched {
            // A complete literal of the other kind, e.g. `null` where a boolean was expected.
            return makeError(.typeMismatch, "expected \(expected), found \(word)", at: index)
        }
        if index + i >= end {
            return makeError(.unexpectedEnd, "unexpected end of input inside '\(word)'", at: index + i)
        }
        return makeError(
            .unexpectedCharacter, "invalid literal, expected '\(word)', found \(describe(at: index + i))",
            at: index + i)
    }

    @usableFromInline @inline(never)
    func depthError() -> JSONError {
        makeError(.depthLimitExceeded, "nesting deeper than the limit of \(limits.maxDepth)", at: index)
    }

    @usableFromInline @inline(never)
    func trailingDataError() -> JSONError {
        makeError(.trailingData, "unexpected \(describe(at: index)) after the end of the document", at: index)
    }

    @usableFromInline @inline(never)
    func memberLimitError() -> JSONError {
        makeError(
            .memberCountLimitExceeded, "object has more than \(limits.maxObjectMembers) members", at: index)
    }

    @usableFromInline @inline(never)
    func elementLimitError() -> JSONError {
        makeError(
            .elementCountLimitExceeded, "array has more than \(limits.maxArrayElements) elements", at: index)
    }
}
