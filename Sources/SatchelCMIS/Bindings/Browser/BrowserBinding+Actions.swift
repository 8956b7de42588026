import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension BrowserBinding {
    /// `cmisaction=createFolder`, posted to the parent folder.
    public func createFolder(repositoryId: String, parentId: String, properties: Properties) async throws -> CMISObject
    {
        let body = try await post(
            repositoryId: repositoryId, objectId: parentId, action: "createFolder",
            fields: Self.propertyFields(properties), operation: "create CMIS folder in \(parentId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=createDocument`, posted to the parent folder: a multipart form when there is content (a file is
    /// streamed from disk).
    public func createDocument(
        repositoryId: String, parentId: String, properties: Properties, content: ContentSource?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        let body = try await post(
            repositoryId: repositoryId, objectId: parentId, action: "createDocument",
            fields: Self.propertyFields(properties), content: content, progress: progress,
            operation: "create CMIS document in \(parentId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=update`, with `changeToken` when given.
    public func updateProperties(
        repositoryId: String, objectId: String, properties: Properties, changeToken: String?
    ) async throws -> CMISObject {
        var fields = Self.propertyFields(properties)
        if let changeToken { fields.append(("changeToken", changeToken)) }
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "update", fields: fields,
            operation: "update CMIS object \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=delete`, with `allVersions`.
    public func deleteObject(repositoryId: String, objectId: String, allVersions: Bool) async throws {
        _ = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "delete",
            fields: [("allVersions", String(allVersions))], operation: "delete CMIS object \(objectId)")
    }

    /// Posts a `cmisaction` form to an object's URL (`<rootFolderUrl>?objectId=…`), or to the repository URL when
    /// `objectId` is nil, with the repository's token; multipart when there is content. Returns the response body.
    func post(
        repositoryId: String, objectId: String?, action: String, fields: [(String, String)],
        content: ContentSource? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil, operation: String
    ) async throws -> Data {
        let endpoints = try await self.endpoints(repositoryId)
        // `_charset_` (the CMIS 1.1 Browser binding; RFC 7578, 4.6): every field is UTF-8, whatever the server assumes.
        var all = [("cmisaction", action)] + fields + [("succinct", "true"), ("_charset_", "UTF-8")]
        if let token = endpoints.token { all.append(("token", token)) }
        let body: HTTPClient.Body
        if let content {
            var form = MultipartFormData()
            for (name, value) in all { form.addField(name, value) }
            do {
                switch content.storage {
                case .data(let data):
                    try form.addData("content", data: data, filename: content.filename, contentType: content.mimeType)
                case .file(let file):
                    try form.addFile(
                        "content", fileURL: file, filename: content.filename, contentType: content.mimeType)
                }
            } catch let error as HTTPTransferError {
                throw CMISError(.invalidArgument, error.message, httpError: error)
            }
            body = .multipart(form)
        } else {
            body = .form(all)
        }
        let url = objectId.map { Self.url(endpoints.rootFolder, query: [("objectId", $0)]) } ?? endpoints.repository
        var request = HTTPClient.Request(.post, url: url, body: body, operation: operation)
        if let tokenHeader, let token = endpoints.token { request.headers[tokenHeader] = token }
        return try await send(request, progress: progress).body
    }

    /// `propertyId[n]` / `propertyValue[n]` (or `propertyValue[n][m]` for multi-valued properties) fields.
    static func propertyFields(_ properties: Properties) -> [(String, String)] {
        var fields: [(String, String)] = []
        for (index, property) in properties.enumerated() {
            fields.append(("propertyId[\(index)]", property.id))
            if property.cardinality == .multi {
                for (position, value) in property.values.enumerated() {
                    fields.append(("propertyValue[\(index)][\(position)]", formValue(value)))
                }
            } else if let value = property.values.first {
                fields.append(("propertyValue[\(index)]", formValue(value)))
            }
        }
        return fields
    }

    /// A value as the Browser binding writes it: datetimes as milliseconds since 1970.
    static func formValue(_ value: PropertyValue) -> String {
        switch value {
        case .string(let text), .id(let text), .uri(let text), .html(let text): text
        case .boolean(let flag): String(flag)
        case .integer(let number): String(number)
        case .decimal(let number): "\(number)"
        case .datetime(let date): String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
    }
}
