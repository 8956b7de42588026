import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMIS
import SatchelRepository

extension AtomPubRoutes {
    /// GET content: the blob file streamed, with a single byte range when asked (`Range: bytes=a-b`).
    func content(_ call: AtomPubCall) async throws -> Response {
        let output = try await call.service.contentStream(
            repositoryId: call.repositoryId, objectId: try call.required("id"), streamId: call.parameter("streamId"),
            caller: call.caller)
        var headers = HTTPFields()
        headers[.contentType] = output.mimeType
        headers[.eTag] = "\"\(output.hash)\""
        headers[.acceptRanges] = "bytes"
        if let name = output.fileName {
            headers[.contentDisposition] = "attachment; filename*=UTF-8''" + AtomPubURLs.encode(name)
        }
        var status = HTTPResponse.Status.ok
        var range: ClosedRange<Int>? = output.length > 0 ? 0...Int(output.length - 1) : nil
        if let header = call.request.headers[.range] {
            switch Self.byteRange(header, length: output.length) {
            case .whole: break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(output.length)"
                return AtomPubErrors.response(
                    CMISError(.invalidArgument, "the range \(header) is outside the content (\(output.length) bytes)"),
                    status: .rangeNotSatisfiable)
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(output.length)"
            }
        }
        guard let range else {
            headers[.contentLength] = "0"
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        headers[.contentLength] = String(range.count)
        let body = try await FileIO().loadFile(path: output.file.path, range: range, context: call.context)
        return Response(status: status, headers: headers, body: body)
    }

    enum RangeAnswer: Equatable {
        case whole
        case part(ClosedRange<Int>)
        case unsatisfiable
    }

    /// One `bytes=` range of RFC 9110; several ranges or a malformed header give the whole content.
    static func byteRange(_ header: String, length: Int64) -> RangeAnswer {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix >= 0 else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .part(Int(max(0, length - suffix))...Int(length - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        var end = length - 1
        if !last.isEmpty {
            guard let value = Int64(last), value >= start else { return .whole }
            end = min(value, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .part(Int(start)...Int(end))
    }

    /// PUT content: the body streamed into the blob store, then set (or appended with `append=true`).
    func setContent(_ call: AtomPubCall) async throws -> Response {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        let id = try call.required("id")
        let before = try await service.object(
            repositoryId: repositoryId, id: id, context: OperationContext(), caller: caller)
        // Refused before a byte is stored: the document must exist and be the caller's to change.
        try await service.checkContentUpload(repositoryId: repositoryId, targetId: id, name: nil, caller: caller)
        let writer = try environment.blobs.makeWriter(maxBytes: environment.limits.maxContentBytes)
        do {
            for try await buffer in call.request.body {
                try buffer.withUnsafeReadableBytes { bytes throws(BlobStoreError) in try writer.write(bytes) }
            }
        } catch {
            writer.cancel()
            throw error
        }
        let blob = try writer.finish()
        defer { blob.end() }
        let mimeType = call.request.headers[.contentType] ?? "application/octet-stream"
        var fileName = before.contentStreamFileName ?? before.name
        if let disposition = call.request.headers[.contentDisposition], let name = Self.fileName(disposition) {
            fileName = name
        }
        let content = ContentInput(blob: blob, mimeType: mimeType, fileName: fileName)
        let changeToken = call.parameter("changeToken")
        let object: CMISObject
        if try call.bool("append", default: false) {
            object = try await service.appendContentStream(
                repositoryId: repositoryId, objectId: id, isLastChunk: try call.bool("isLastChunk", default: true),
                changeToken: changeToken, content: content, caller: caller)
        } else {
            object = try await service.setContentStream(
                repositoryId: repositoryId, objectId: id, overwrite: try call.bool("overwriteFlag", default: true),
                changeToken: changeToken, content: content, caller: caller)
        }
        let location = call.urls.url(repositoryId, "content", [("id", object.id ?? id)])
        if before.contentStreamLength == nil {
            var headers = HTTPFields()
            headers[.location] = location
            headers[.contentLocation] = location
            return Response(status: .created, headers: headers)
        }
        return AtomPubCall.noContent()
    }

    /// `filename*=UTF-8''…` or `filename="…"` of a Content-Disposition header.
    static func fileName(_ disposition: String) -> String? {
        for part in disposition.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.lowercased().hasPrefix("filename*="), let quote = item.range(of: "''") {
                return String(item[quote.upperBound...]).removingPercentEncoding
            }
        }
        for part in disposition.split(separator: ";") {
            let item = part.trimmingCharacters(in: .whitespaces)
            if item.lowercased().hasPrefix("filename=") {
                let value = item.dropFirst("filename=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }
}
