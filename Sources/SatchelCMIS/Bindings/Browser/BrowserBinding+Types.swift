import Foundation
public import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    /// `cmisselector=typeDefinition`; cached per repository, so asking twice costs one request.
    public func typeDefinition(repositoryId: String, typeId: String) async throws -> TypeDefinition {
        try await types.definition(repositoryId: repositoryId, typeId: typeId) {
            let endpoints = try await self.endpoints(repositoryId)
            let request = HTTPClient.Request(
                .get,
                url: Self.url(endpoints.repository, query: [("cmisselector", "typeDefinition"), ("typeId", typeId)]),
                operation: "get CMIS type \(typeId)")
            return try BrowserParser.typeDefinition(try await send(request).body)
        }
    }

    /// `cmisaction=createType` on the repository URL, the definition as JSON in the `type` field.
    public func createType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition {
        try await typeAction("createType", verb: "create", repositoryId: repositoryId, type: type)
    }

    /// `cmisaction=updateType` on the repository URL, the definition as JSON in the `type` field.
    public func updateType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition {
        try await typeAction("updateType", verb: "update", repositoryId: repositoryId, type: type)
    }

    /// `cmisaction=deleteType` on the repository URL.
    public func deleteType(repositoryId: String, typeId: String) async throws {
        _ = try await post(
            repositoryId: repositoryId, objectId: nil, action: "deleteType", fields: [("typeId", typeId)],
            operation: "delete CMIS type \(typeId)")
        types.forget(repositoryId, typeId)
    }

    func typeAction(
        _ action: String, verb: String, repositoryId: String, type: TypeDefinition
    ) async throws -> TypeDefinition {
        var writer = BrowserJSONWriter(succinct: false)
        writer.typeDefinition(type)
        let body = try await post(
            repositoryId: repositoryId, objectId: nil, action: action,
            fields: [("type", String(decoding: writer.bytes, as: UTF8.self))],
            operation: "\(verb) CMIS type \(type.id)")
        let defined = try BrowserParser.typeDefinition(body)
        types.forget(repositoryId, defined.id)
        return defined
    }

    /// Every cached type definition is dropped; the next object read fetches the types it needs again.
    public func clearTypeCache() { types.clear() }
}
