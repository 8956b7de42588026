import Foundation
import SatchelCMISCore
import Synchronization
import Testing

@testable import SatchelRepository

/// A repository over a memory store and a blob store in a fresh temporary folder, with a clock that steps one
/// second per reading, two users and an administrator.
struct EngineFixture {
    let repository: CMISRepository
    let store: MemoryMetadataStore
    let blobs: BlobStore
    let alice = CallerContext(user: "alice", sessionToken: "alice-token")
    let bob = CallerContext(user: "bob", sessionToken: "bob-token")
    let admin = CallerContext(user: "admin", sessionToken: "admin-token", isAdministrator: true)
    var shared: String { "shared" }
    var aliceDocs: String { "mydocs-alice" }
    var bobDocs: String { "mydocs-bob" }

    init(configure: (inout RepositoryConfiguration) -> Void = { _ in }) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "satchel-engine-\(UUID().uuidString)", isDirectory: true)
        blobs = try BlobStore(directory: folder)
        store = MemoryMetadataStore()
        let ticks = Ticker()
        var configuration = RepositoryConfiguration()
        configuration.clock = {
            ticks.seconds.withLock { value in
                value += 1
                return Date(timeIntervalSince1970: value)
            }
        }
        configure(&configuration)
        repository = CMISRepository(store: store, blobs: blobs, configuration: configuration)
        try await repository.bootstrap()
    }

    func root(_ repositoryId: String, _ caller: CallerContext) async throws -> String {
        try await repository.repositoryInfo(repositoryId: repositoryId, caller: caller).rootFolderId
    }

    func content(
        _ text: String, mimeType: String = "text/plain", fileName: String? = "file.txt"
    ) async throws
        -> ContentInput
    {
        try ContentInput(blob: try await blobs.put(Data(text.utf8)), mimeType: mimeType, fileName: fileName)
    }

    func text(_ repositoryId: String, _ id: String, _ caller: CallerContext) async throws -> String {
        let output = try await repository.contentStream(
            repositoryId: repositoryId, objectId: id, streamId: nil, caller: caller)
        return String(decoding: try Data(contentsOf: #require(output.file)), as: UTF8.self)
    }

    @discardableResult
    func folder(
        _ name: String, in parent: String, _ repositoryId: String, _ caller: CallerContext
    ) async throws
        -> CMISObject
    {
        try await repository.createFolder(
            repositoryId: repositoryId, parentId: parent, properties: props(name, type: "cmis:folder"), policies: [],
            addACEs: [], removeACEs: [], caller: caller)
    }

    @discardableResult
    func document(
        _ name: String, in parent: String?, _ repositoryId: String, _ caller: CallerContext, text: String? = nil,
        versioningState: VersioningState? = nil
    ) async throws -> CMISObject {
        let input: ContentInput? = if let text { try await content(text) } else { nil }
        return try await repository.createDocument(
            repositoryId: repositoryId, parentId: parent, properties: props(name),
            content: input,
            versioningState: versioningState, policies: [], addACEs: [], removeACEs: [], caller: caller)
    }

    func get(
        _ repositoryId: String, _ id: String, _ caller: CallerContext, _ context: OperationContext = .init()
    )
        async throws -> CMISObject
    {
        try await repository.object(repositoryId: repositoryId, id: id, context: context, caller: caller)
    }
}

/// The seconds of the test clock.
final class Ticker: Sendable {
    let seconds = Mutex<Double>(1_700_000_000)
}

/// Properties with a name and a type (and any extra properties).
func props(_ name: String?, type: String = "cmis:document", _ extra: [CMISProperty] = []) -> Properties {
    var list = [CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id(type)])]
    if let name { list.append(CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])) }
    return Properties(list + extra)
}

/// Runs `body` and returns the CMIS error code it threw (nil when it did not throw a CMISError).
func cmisCode(_ body: () async throws -> Void) async -> CMISError.Code? {
    do {
        try await body()
        return nil
    } catch let error as CMISError {
        return error.code
    } catch {
        return .runtime
    }
}

extension CMISObject {
    var requiredId: String { id ?? "" }
}
