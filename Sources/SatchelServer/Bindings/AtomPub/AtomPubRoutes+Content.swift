import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelRepository

extension AtomPubRoutes {
    /// GET content: the blob file streamed (``ContentResponse``).
    func content(_ call: AtomPubCall) async throws -> Response {
        let output = try await call.service.contentStream(
            repositoryId: call.repositoryId, objectId: try call.required("id"), streamId: call.parameter("streamId"),
            caller: call.caller)
        return try await ContentResponse(content: output).response(to: call.request, context: call.context)
    }

    /// PUT content: the body streamed into the blob store, then set (or appended with `append=true`).
    func setContent(_ call: AtomPubCall) async throws -> Response {
        let (service, repositoryId, caller) = (call.service, call.repositoryId, call.caller)
        let id = try call.required("id")
        let before = try await service.object(
            repositoryId: repositoryId, id: id, context: OperationContext(), caller: caller)
        // Refused before a byte is stored: the document must exist and be the caller's to change.
        try await service.checkContentUpload(repositoryId: repositoryId, targetId: id, name: nil, caller: caller)
        let mimeType = try MediaTypeSyntax.checked(call.request.headers[.contentType] ?? "")
        let writer = try environment.blobs.makeWriter(maxBytes: environment.limits.maxContentBytes)
        do {
            for try await buffer in call.request.body {
                try buffer.withUnsafeReadableBytes { bytes throws(BlobStoreError) in try writer.write(bytes) }
            }
        } catch {
            writer.cancel()
            throw Self.bodyFailure(error)
        }
        let blob = try await writer.finish()
        defer { blob.end() }
        var fileName = before.contentStreamFileName ?? before.name
        if let disposition = call.request.headers[.contentDisposition], let name = Self.fileName(disposition) {
            fileName = name
        }
        let content = try ContentInput(blob: blob, mimeType: mimeType, fileName: fileName)
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
