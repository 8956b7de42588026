import Foundation
import SatchelCMISCore
import SatchelHTTP
import SatchelText
import Synchronization

/// What the two client bindings share: sending a request with failures read as the binding's CMIS errors, URLs
/// with query items, the content stream (into memory or a file), and the type cache. A binding supplies its error
/// format (``map(_:)``) and how it finds a document's content (``contentRequest(repositoryId:objectId:streamId:range:)``).
protocol BindingCore: CMISBinding {
    var client: HTTPClient { get }
    var types: TypeCache { get }
    /// A refused request or a transport failure as a ``CMISError`` (the server's exception and message when the
    /// body has them).
    static func map(_ error: HTTPTransferError) -> CMISError
    /// The GET of a document's content, or of the rendition stream `streamId` names.
    func contentRequest(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> HTTPClient.Request
}

extension BindingCore {
    /// Sends a request; maps refusals to the server's CMIS exception and transport failures to ``CMISError``.
    func send(
        _ request: HTTPClient.Request, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> HTTPClient.Response {
        // Every call that passes `progress` sends content: its handler learns how much of the body has gone, not
        // how much of the server's answer has come back (a 100 % upload then reads as such).
        let uploadProgress = progress.map { handler in
            { @Sendable (step: TransferProgress) in if step.direction == .upload { handler(step) } }
        }
        do {
            return try await client.send(request, progress: uploadProgress)
        } catch let error as HTTPTransferError {
            throw Self.map(error)
        }
    }

    /// `base` with these query items (form-encoded, in order).
    static func url(_ base: URL, query: [(String, String)]) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return base }
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + FormURLEncoding.encode(query)
        return components.url ?? base
    }

    /// How a content request names itself in errors: the document's content, or one of its renditions.
    static func contentOperation(_ objectId: String, streamId: String?) -> String {
        "get CMIS \(streamId.map { "rendition \($0)" } ?? "content") of \(objectId)"
    }

    public func contentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> Data {
        try await send(contentRequest(repositoryId: repositoryId, objectId: objectId, streamId: streamId, range: range))
            .body
    }

    public func downloadContentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?, to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        let request = try await contentRequest(
            repositoryId: repositoryId, objectId: objectId, streamId: streamId, range: range)
        do {
            try await client.download(request, to: file, progress: progress)
        } catch let error as HTTPTransferError {
            throw Self.map(error)
        }
    }

    public func streamContentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> HTTPStreamingResponse {
        let request = try await contentRequest(
            repositoryId: repositoryId, objectId: objectId, streamId: streamId, range: range)
        do {
            return try await client.stream(request)
        } catch let error as HTTPTransferError {
            throw Self.map(error)
        }
    }

    /// Parses a response whose properties need type definitions: once, with the definitions cached. When the body
    /// names types not cached yet, each is fetched once and the parsed answer is typed with them
    /// (``PropertyTyped``), not parsed again. A type the repository cannot describe (`objectNotFound`, an unreadable
    /// answer) is remembered as unknown, and its properties keep the types read from the body.
    func parseTyped<T: PropertyTyped>(
        repositoryId: String, _ parse: ((String) -> TypeDefinition?) throws -> T
    ) async throws -> T {
        let (known, unknown) = types.snapshot(repositoryId)
        let missing = MissingTypeIds()
        let parsed = try parse { typeId in
            if let type = known[typeId] { return type }
            if !unknown.contains(typeId) { missing.ids.insert(typeId) }
            return nil
        }
        guard !missing.ids.isEmpty else { return parsed }
        var fetched: [String: TypeDefinition] = [:]
        for typeId in missing.ids.sorted() {
            do {
                fetched[typeId] = try await typeDefinition(repositoryId: repositoryId, typeId: typeId)
            } catch let error as CMISError where error.code == .objectNotFound || error.code == .invalidResponse {
                types.markUnknown(repositoryId, typeId)
            }
        }
        guard !fetched.isEmpty else { return parsed }
        return try parsed.typed { fetched[$0] ?? known[$0] }
    }
}

/// The type ids a parse asked for and the cache did not have (a reference, so the lookup closure can record them).
private final class MissingTypeIds {
    var ids: Set<String> = []
}

/// Type definitions a binding has read, per repository, and the types a repository would not describe (not asked
/// for again). Kept per repository so a parse takes its repository's table as it is (copy on write), without
/// copying or filtering anything on the way to every typed response.
final class TypeCache: Sendable {
    private struct Tables {
        var types: [String: [String: TypeDefinition]] = [:]
        var unknown: [String: Set<String>] = [:]
    }

    private let state = Mutex(Tables())

    /// The cached definition, or the one `fetch` reads (then cached).
    func definition(
        repositoryId: String, typeId: String, fetch: () async throws -> TypeDefinition
    ) async throws -> TypeDefinition {
        if let cached = state.withLock({ $0.types[repositoryId]?[typeId] }) { return cached }
        let type = try await fetch()
        state.withLock { $0.types[repositoryId, default: [:]][typeId] = type }
        return type
    }

    /// The repository's cached definitions by type id, and its unknown type ids.
    func snapshot(_ repositoryId: String) -> (known: [String: TypeDefinition], unknown: Set<String>) {
        state.withLock { ($0.types[repositoryId] ?? [:], $0.unknown[repositoryId] ?? []) }
    }

    func markUnknown(_ repositoryId: String, _ typeId: String) {
        _ = state.withLock { $0.unknown[repositoryId, default: []].insert(typeId) }
    }

    func clear() {
        state.withLock { $0 = Tables() }
    }

    /// Drops what is known of one type (it was created, changed or deleted).
    func forget(_ repositoryId: String, _ typeId: String) {
        state.withLock { tables in
            tables.types[repositoryId]?[typeId] = nil
            tables.unknown[repositoryId]?.remove(typeId)
        }
    }
}
