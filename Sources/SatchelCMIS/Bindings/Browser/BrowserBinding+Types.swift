import Foundation
import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    public func typeDefinition(repositoryId: String, typeId: String) async throws -> TypeDefinition {
        let key = TypeKey(repositoryId: repositoryId, typeId: typeId)
        if let cached = state.withLock({ $0.types[key] }) { return cached }
        let endpoints = try await self.endpoints(repositoryId)
        let request = HTTPRequest(
            .get,
            url: Self.url(endpoints.repository, query: [("cmisselector", "typeDefinition"), ("typeId", typeId)]),
            operation: "get CMIS type \(typeId)")
        let type = try BrowserParser.typeDefinition(try await send(request).body)
        state.withLock { $0.types[key] = type }
        return type
    }

    /// Every cached type definition is dropped; the next object read fetches the types it needs again.
    public func clearTypeCache() {
        state.withLock {
            $0.types.removeAll()
            $0.unknownTypes.removeAll()
        }
    }

    /// Parses a succinct response with typed properties: parses with the cached types, and when the body
    /// names types not yet cached, fetches each of them once and parses again.
    func parseTyped<T>(
        repositoryId: String, _ parse: (BrowserParser.TypeLookup) throws -> T
    ) async throws -> T {
        let (known, unknown) = state.withLock { ($0.types, $0.unknownTypes) }
        return try await parseWithTypeDefinitions(
            cached: { known[TypeKey(repositoryId: repositoryId, typeId: $0)] },
            isKnownUnknown: { unknown.contains(TypeKey(repositoryId: repositoryId, typeId: $0)) },
            fetch: { try await typeDefinition(repositoryId: repositoryId, typeId: $0) },
            markUnknown: { typeId in
                state.withLock { _ = $0.unknownTypes.insert(TypeKey(repositoryId: repositoryId, typeId: typeId)) }
            },
            parse: parse)
    }
}
