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

    /// Every cached type definition is dropped; the next object read fetches the types it needs again.
    public func clearTypeCache() { types.clear() }
}
