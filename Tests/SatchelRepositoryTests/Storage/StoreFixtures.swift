import Foundation
import SatchelCMISCore
import SatchelRepository
import SatchelRepositoryPostgres
import SatchelTestSupport
import Testing

/// The stores the conformance suite runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgres

    var testDescription: String { rawValue }
}

/// A fresh, empty store and how to dispose of it.
struct StoreHarness: Sendable {
    let store: any MetadataStore
    let close: @Sendable () async -> Void

    static func make(_ backend: Backend) async throws -> StoreHarness {
        switch backend {
        case .memory:
            return StoreHarness(store: MemoryMetadataStore(), close: {})
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "satchel-store-\(UUID().uuidString)")
            let store = try SQLiteMetadataStore(path: folder.appendingPathComponent("db/metadata.sqlite").path)
            try await store.migrate()
            return StoreHarness(store: store, close: { try? FileManager.default.removeItem(at: folder) })
        case .postgres:
            let postgres = try await SharedPostgres.server.value
            let store = try await PostgresMetadataStore.connect(url: try postgres.createDatabase())
            try await store.migrate()
            return StoreHarness(store: store, close: { await store.shutdown() })
        }
    }
}

/// One PostgreSQL cluster for the whole test process; it stops when the process ends.
enum SharedPostgres {
    static let server = Task<TemporaryPostgres, any Error> { try await TemporaryPostgres.start() }
}

/// Runs `body` with a fresh store of `backend`, closing it afterwards even when `body` throws.
func withStore(_ backend: Backend, _ body: (any MetadataStore) async throws -> Void) async throws {
    let harness = try await StoreHarness.make(backend)
    do {
        try await body(harness.store)
    } catch {
        await harness.close()
        throw error
    }
    await harness.close()
}

// MARK: Sample data

let repo = "shared"
let rootId = "root"

/// A time on a whole millisecond (the durable stores keep milliseconds).
func time(_ offset: Int64) -> Date { StoredTime.date(milliseconds: 1_700_000_000_000 + offset) }

func makeRepository(_ id: String = repo, owner: String? = nil) -> StoredRepository {
    StoredRepository(
        id: id, name: "Repository \(id)", description: "for tests", owner: owner, rootFolderId: rootId,
        createdAt: time(0))
}

func folder(_ id: String, name: String? = nil, in parent: String? = rootId, repository: String = repo) -> StoredObject {
    StoredObject(
        repositoryId: repository, id: id, baseTypeId: .folder, typeId: "cmis:folder", name: name ?? id,
        parentIds: parent.map { [$0] } ?? [],
        properties: Properties([
            CMISProperty(id: "cmis:name", type: .string, values: [.string(name ?? id)]),
            CMISProperty(id: "cmis:objectId", type: .id, values: [.id(id)]),
        ]), createdAt: time(1), modifiedAt: time(1))
}

func document(
    _ id: String, name: String? = nil, in parents: [String] = [rootId], type: String = "cmis:document",
    created: Int64 = 2, length: Int64? = nil, hash: String? = nil, series: String? = nil, latest: Bool = true,
    pwc: Bool = false, repository: String = repo
) -> StoredObject {
    let content = (length ?? hash.map { _ in 1 }).map {
        StoredContent(hash: hash ?? "h-\(id)", length: $0, mimeType: "text/plain", fileName: "\(id).txt")
    }
    return StoredObject(
        repositoryId: repository, id: id, baseTypeId: .document, typeId: type, name: name ?? id, parentIds: parents,
        properties: Properties([
            CMISProperty(id: "cmis:name", type: .string, values: [.string(name ?? id)]),
            CMISProperty(id: "cmis:objectId", type: .id, values: [.id(id)]),
        ]), content: content, versionSeriesId: series, isLatestVersion: latest, isPrivateWorkingCopy: pwc,
        acl: [ACE(principalId: "alice", permissions: ["cmis:all"])], createdAt: time(created),
        modifiedAt: time(created + 1))
}

func relationship(_ id: String, from source: String, to target: String) -> StoredObject {
    StoredObject(
        repositoryId: repo, id: id, baseTypeId: .relationship, typeId: "cmis:relationship", name: id, parentIds: [],
        properties: Properties([CMISProperty(id: "cmis:sourceId", type: .id, values: [.id(source)])]),
        sourceId: source, targetId: target, createdAt: time(3), modifiedAt: time(3))
}

func created(_ object: StoredObject) -> StoredChange {
    StoredChange(
        repositoryId: object.repositoryId, objectId: object.id, changeType: .created, time: time(10),
        typeId: object.typeId, baseTypeId: object.baseTypeId)
}

/// A store holding the shared repository and its root folder.
func seed(_ store: any MetadataStore) async throws {
    try await store.apply(
        StoreBatch(
            repositoryId: repo, newRepositories: [makeRepository()], inserts: [folder(rootId, in: nil)]))
}

/// Every kind of property value, with and without the optional names, single and multi-valued, empty lists.
let everyPropertyKind = Properties([
    CMISProperty(
        id: "cmis:name", type: .string, values: [.string("Ünïcødé \"quoted\" \\ back\nslash\t\u{1} 🎉")],
        localName: "name", displayName: "Name", queryName: "cmis:name"),
    CMISProperty(id: "b", type: .boolean, values: [.boolean(true)]),
    CMISProperty(id: "bs", type: .boolean, cardinality: .multi, values: [.boolean(false), .boolean(true)]),
    CMISProperty(id: "i", type: .integer, values: [.integer(Int64.max)]),
    CMISProperty(id: "is", type: .integer, cardinality: .multi, values: [.integer(Int64.min), .integer(0)]),
    CMISProperty(id: "d", type: .decimal, values: [.decimal(Decimal(string: "12345678901234567890.123456789")!)]),
    CMISProperty(
        id: "ds", type: .decimal, cardinality: .multi,
        values: [.decimal(Decimal(string: "0.1")!), .decimal(Decimal(string: "-1e-20")!)]),
    CMISProperty(id: "t", type: .datetime, values: [.datetime(time(123))]),
    CMISProperty(
        id: "ts", type: .datetime, cardinality: .multi,
        values: [.datetime(StoredTime.date(milliseconds: -86_400_001)), .datetime(StoredTime.date(milliseconds: 0))]),
    CMISProperty(id: "id", type: .id, values: [.id("abc-123")], displayName: "Identifier"),
    CMISProperty(id: "u", type: .uri, values: [.uri("https://example.com/a?b=c&d")], queryName: "u"),
    CMISProperty(id: "h", type: .html, values: [.html("<p>hi &amp; bye</p>")]),
    CMISProperty(id: "empty", type: .string, values: []),
    CMISProperty(id: "emptyMulti", type: .integer, cardinality: .multi, values: []),
    CMISProperty(id: "mixed", type: .string, cardinality: .multi, values: [.string("x"), .integer(7), .html("<b/>")]),
])
