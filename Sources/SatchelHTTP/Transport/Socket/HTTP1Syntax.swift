import SatchelText

/// Byte classes of HTTP/1.1 messages (RFC 9110 §5.6.2), shared by the request writer and the response parser.
package enum HTTP1Syntax {
    /// `tchar`: the bytes of methods and field names.
    package static func isTokenByte(_ byte: UInt8) -> Bool { HTTPTokenSyntax.isTokenByte(byte) }

    /// Control characters other than horizontal tab: never allowed inside a field value or reason phrase.
    static func isForbiddenInValue(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09) || byte == 0x7F }

    /// Refuses a header field that would not be one field on the wire: a name that is not a token, a value with a
    /// control character (CR and LF above all, which would end the field and start another: header injection).
    /// `place` says what the field belongs to (`"the request"`, `"part 2 of the form"`).
    package static func checkField(
        name: String, value: String, in place: String = "the request"
    ) throws(HTTPTransferError) {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw HTTPTransferError(
                .invalidRequest, "the header name \"\(name)\" of \(place) is not a valid HTTP token")
        }
        if let offset = value.utf8.firstIndex(where: isForbiddenInValue) {
            let position = value.utf8.distance(from: value.utf8.startIndex, to: offset)
            throw HTTPTransferError(
                .invalidRequest,
                "the value of the header \(name) of \(place) holds a control character at byte \(position)")
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66: true
        default: false
        }
    }
}
