import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelText

/// Reads a `multipart/form-data` body (or `multipart/related`, whose parts are named by Content-ID) as it arrives: form fields into memory (bounded), the file part straight
/// into the blob store, but only once the `beforeContent` check, given the fields read so far, has passed. Malformed
/// bodies and exceeded limits throw ``BrowserRequestError``.
struct MultipartReader {
    struct Upload {
        var blob: BlobLease
        var fileName: String?
        var mimeType: String
    }

    let delimiter: [UInt8]
    let limits: RequestLimits
    let blobs: BlobStore

    /// The `boundary` parameter of a multipart content type.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else {
                continue
            }
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            guard !value.isEmpty, value.utf8.count <= 70 else { return nil }
            return value
        }
        return nil
    }

    init(boundary: String, limits: RequestLimits, blobs: BlobStore) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.limits = limits
        self.blobs = blobs
    }

    private enum State {
        case preamble, afterDelimiter, headers, body, epilogue
    }

    private enum Sink {
        case field(name: String, bytes: [UInt8])
        /// A file part whose headers have been read; nothing is stored before `beforeContent` accepts it.
        case pendingFile(fileName: String?, mimeType: String)
        case file(writer: BlobWriter, fileName: String?, mimeType: String)
    }

    /// Reads the whole body. Returns the fields in order and the uploaded file, if any. `beforeContent` runs when
    /// the file part starts, with the fields that came before it; what it throws refuses the request before a
    /// byte of content is stored.
    func read(
        _ body: RequestBody, beforeContent: ([(String, String)]) async throws -> Void = { _ in }
    ) async throws(BrowserRequestError) -> (fields: [(String, String)], upload: Upload?) {
        // The first delimiter has no CRLF before it: start the buffer with one.
        var buffer: [UInt8] = [13, 10]
        var start = 0
        var state = State.preamble
        var sink: Sink?
        var fields: [(String, String)] = []
        var upload: Upload?
        // The file part once its last byte arrived; made durable after the body is read (off the pool, awaited).
        var written: (writer: BlobWriter, fileName: String?, mimeType: String)?
        var metadataBytes = 0
        var finished = false

        func finishPart() throws(BrowserRequestError) {
            guard let current = sink else { return }
            sink = nil
            switch current {
            case .field(let name, let bytes):
                guard let value = String(validating: bytes, as: UTF8.self) else {
                    throw .invalid("form field \(name) is not valid UTF-8")
                }
                fields.append((name, value))
            case .file(let writer, let fileName, let mimeType):
                written = (writer, fileName, mimeType)
            case .pendingFile:
                break
            }
        }

        func append(_ bytes: ArraySlice<UInt8>) throws(BrowserRequestError) {
            guard !bytes.isEmpty, let current = sink else { return }
            switch current {
            case .field(let name, var collected):
                metadataBytes += bytes.count
                guard collected.count + bytes.count <= limits.maxPropertyValueBytes else {
                    throw .tooLarge("form field \(name) is longer than \(limits.maxPropertyValueBytes) bytes")
                }
                guard metadataBytes <= limits.maxMetadataBytes else {
                    throw .tooLarge("the form fields are larger than \(limits.maxMetadataBytes) bytes")
                }
                sink = nil  // keep the array uniquely referenced while appending
                collected.append(contentsOf: bytes)
                sink = .field(name: name, bytes: collected)
            case .pendingFile:
                break
            case .file(let writer, _, _):
                do {
                    try bytes.withUnsafeBytes { try writer.write($0) }
                } catch let error as BlobStoreError {
                    throw error.limitExceeded
                        ? .tooLarge("the content is larger than \(limits.maxContentBytes) bytes")
                        : .storage("could not store the content: \(error.reason)")
                } catch {
                    throw .storage("could not store the content")
                }
            }
        }

        func process() throws(BrowserRequestError) {
            while true {
                switch state {
                case .preamble, .body:
                    if let found = search(delimiter, in: buffer, from: start) {
                        if state == .body { try append(buffer[start..<found]) } else { metadataBytes += found - start }
                        try finishPart()
                        start = found + delimiter.count
                        state = .afterDelimiter
                    } else {
                        // Keep a possible partial delimiter at the end.
                        let safe = max(start, buffer.count - delimiter.count + 1)
                        if state == .body { try append(buffer[start..<safe]) } else { metadataBytes += safe - start }
                        start = safe
                        if state == .preamble && metadataBytes > 64 << 10 {
                            throw .invalid("malformed multipart body: no boundary delimiter found")
                        }
                        return
                    }
                case .afterDelimiter:
                    guard buffer.count - start >= 2 else { return }
                    if buffer[start] == UInt8(ascii: "-") && buffer[start + 1] == UInt8(ascii: "-") {
                        state = .epilogue
                        finished = true
                        start = buffer.count
                        return
                    }
                    // Transport padding, then CRLF.
                    var index = start
                    while index < buffer.count && (buffer[index] == 32 || buffer[index] == 9) { index += 1 }
                    guard buffer.count - index >= 2 else { return }
                    guard buffer[index] == 13 && buffer[index + 1] == 10 else {
                        throw .invalid("malformed multipart body: no line break after a boundary")
                    }
                    start = index + 2
                    state = .headers
                case .headers:
                    guard let end = search([13, 10, 13, 10], in: buffer, from: start) else {
                        if buffer.count - start > 16 << 10 { throw .invalid("multipart part headers are too long") }
                        // A part with no headers at all starts with CRLF straight away.
                        if buffer.count - start >= 2 && buffer[start] == 13 && buffer[start + 1] == 10 {
                            throw .invalid("malformed multipart body: a part has no Content-Disposition")
                        }
                        return
                    }
                    guard let headerText = String(validating: buffer[start..<end], as: UTF8.self) else {
                        throw .invalid("multipart part headers are not valid UTF-8")
                    }
                    metadataBytes += end - start
                    start = end + 4
                    try beginPart(headers: headerText)
                    state = .body
                    if case .pendingFile = sink { return }  // the caller checks before any content is stored
                case .epilogue:
                    start = buffer.count
                    return
                }
            }
        }

        func beginPart(headers: String) throws(BrowserRequestError) {
            var name: String?
            var contentID: String?
            var fileName: String?
            var contentType = "application/octet-stream"
            for line in headers.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { throw .invalid("malformed multipart part header") }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if field == "content-disposition" {
                    name = Self.dispositionParameter("name", in: value)
                    fileName = Self.dispositionParameter("filename", in: value)
                } else if field == "content-type", !value.isEmpty {
                    do {
                        contentType = try MediaTypeSyntax.checked(value)
                    } catch {
                        throw .invalid(error.message)
                    }
                } else if field == "content-id" {
                    contentID = value.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
                }
            }
            // multipart/related names its parts by Content-ID (`request`, `input`).
            guard let name = name ?? contentID else {
                throw .invalid("a multipart part has no Content-Disposition name or Content-ID")
            }
            if fileName != nil || name == "content" {
                guard written == nil else { throw .invalid("the request carries more than one content stream") }
                sink = .pendingFile(fileName: fileName, mimeType: contentType)
            } else {
                guard fields.count < limits.maxFormFields else {
                    throw .invalid("the request has more than \(limits.maxFormFields) form fields")
                }
                sink = .field(name: name, bytes: [])
            }
        }

        func startContent() async throws(BrowserRequestError) {
            while case .pendingFile(let fileName, let mimeType) = sink {
                do {
                    try await beforeContent(fields)
                } catch let error as CMISError {
                    throw .refused(error)
                } catch {
                    throw .invalid("the request was refused: \(error)")
                }
                do throws(BlobStoreError) {
                    let writer = try blobs.makeWriter(maxBytes: limits.maxContentBytes)
                    sink = .file(writer: writer, fileName: fileName, mimeType: mimeType)
                } catch {
                    throw .storage("could not store the content: \(error.reason)")
                }
                try process()
            }
        }

        do {
            for try await chunk in body {
                buffer.append(contentsOf: chunk.readableBytesView)
                try process()
                try await startContent()
                if start > 1 << 16 {
                    buffer.removeSubrange(0..<start)
                    start = 0
                }
            }
        } catch let error as BrowserRequestError {
            if case .file(let writer, _, _) = sink { writer.cancel() }
            throw error
        } catch {
            if case .file(let writer, _, _) = sink { writer.cancel() }
            throw .invalid("the request body could not be read: \(error)")
        }
        guard finished else {
            if case .file(let writer, _, _) = sink { writer.cancel() }
            throw .invalid("malformed multipart body: it ends before the closing boundary")
        }
        if let written {
            do throws(BlobStoreError) {
                upload = Upload(
                    blob: try await written.writer.finish(), fileName: written.fileName, mimeType: written.mimeType)
            } catch {
                throw .storage("could not store the content: \(error.reason)")
            }
        }
        return (fields, upload)
    }

    /// A `name="value"` parameter of a Content-Disposition header (quoted or not; `filename*=UTF-8''…` too).
    static func dispositionParameter(_ name: String, in header: String) -> String? {
        var extended: String?
        var plain: String?
        for parameter in splitParameters(header).dropFirst() {
            let scalars = parameter.unicodeScalars
            guard let equals = scalars.firstIndex(of: "=") else { continue }
            let key = String(scalars[..<equals]).trimmingCharacters(in: .whitespaces).lowercased()
            var value = String(scalars[scalars.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            if key == name + "*" {
                if let quote = value.range(of: "''") {
                    extended = String(value[quote.upperBound...]).removingPercentEncoding
                }
            } else if key == name {
                let scalars = value.unicodeScalars
                if scalars.count >= 2, scalars.first == "\"", scalars.last == "\"" {
                    // A quoted-string: `\"` is a quote. Browsers, and Satchel's client, send a backslash as it is
                    // (and a quote as %22), so other backslashes stay.
                    var unquoted = String.UnicodeScalarView()
                    let inner = Array(scalars.dropFirst().dropLast())
                    var index = 0
                    while index < inner.count {
                        if inner[index] == "\\", index + 1 < inner.count, inner[index + 1] == "\"" { index += 1 }
                        unquoted.append(inner[index])
                        index += 1
                    }
                    value = String(unquoted)
                }
                plain = value
            }
        }
        return extended ?? plain
    }

    /// Splits on `;` outside quoted strings (by Unicode scalars: a quote followed by a combining mark is still a
    /// quote; `\"` inside one is a quote, not its end).
    static func splitParameters(_ header: String) -> [String] {
        header.splittingByScalars(at: ";", outside: "\"", escape: "\\")
    }
}

/// The first occurrence of `needle` in `haystack` at or after `from`.
func search(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
    guard let first = needle.first, haystack.count - from >= needle.count else { return nil }
    return haystack.withUnsafeBufferPointer { hay -> Int? in
        needle.withUnsafeBufferPointer { pattern -> Int? in
            guard let hayBase = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
            var position = from
            let last = hay.count - pattern.count
            while position <= last {
                guard let hit = memchr(hayBase + position, Int32(first), last - position + 1) else { return nil }
                let offset = UnsafeRawPointer(hayBase).distance(to: UnsafeRawPointer(hit))
                if memcmp(hayBase + offset, patternBase, pattern.count) == 0 { return offset }
                position = offset + 1
            }
            return nil
        }
    }
}

/// A request the Browser binding refuses before it reaches the repository.
enum BrowserRequestError: Error {
    /// 400 invalidArgument.
    case invalid(String)
    /// 413 with an invalidArgument body.
    case tooLarge(String)
    /// 500 storage.
    case storage(String)
    /// Refused before the content was stored, with the error the operation would have answered.
    case refused(CMISError)

    var cmisError: CMISError {
        switch self {
        case .invalid(let message), .tooLarge(let message): CMISError(.invalidArgument, message)
        case .storage(let message): CMISError(.storage, message)
        case .refused(let error): error
        }
    }

    var status: HTTPResponse.Status {
        switch self {
        case .invalid: .badRequest
        case .tooLarge: .contentTooLarge
        case .storage: .internalServerError
        case .refused(let error): error.httpStatus
        }
    }
}
