import Foundation
import SatchelCMISCore

/// Parses a response whose properties need their type definitions, the way both bindings do it: parse with the
/// cached types; when the body names types not cached yet, fetch each of them once and parse again. A type the
/// repository cannot describe (`objectNotFound`, unreadable answer) is remembered as unknown, and its properties
/// keep their inferred types.
func parseWithTypeDefinitions<T>(
    cached: @escaping (String) -> TypeDefinition?, isKnownUnknown: @escaping (String) -> Bool,
    fetch: (String) async throws -> TypeDefinition, markUnknown: (String) -> Void,
    parse: ((String) -> TypeDefinition?) throws -> T
) async throws -> T {
    let missing = MissingTypeIds()
    let first = try parse { typeId in
        if let type = cached(typeId) { return type }
        if !isKnownUnknown(typeId) { missing.ids.insert(typeId) }
        return nil
    }
    guard !missing.ids.isEmpty else { return first }
    var fetched: [String: TypeDefinition] = [:]
    for typeId in missing.ids.sorted() {
        do {
            fetched[typeId] = try await fetch(typeId)
        } catch let error as CMISError where error.code == .objectNotFound || error.code == .invalidResponse {
            markUnknown(typeId)
        }
    }
    guard !fetched.isEmpty else { return first }
    return try parse { typeId in fetched[typeId] ?? cached(typeId) }
}

/// The type ids a parse asked for and the cache did not have (a reference, so the lookup closure can record them).
private final class MissingTypeIds {
    var ids: Set<String> = []
}
