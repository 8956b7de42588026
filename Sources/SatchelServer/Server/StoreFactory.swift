import Foundation
import SatchelRepository

/// Builds the CMIS services over a metadata store and a blob store.
public typealias ServiceFactory =
    @Sendable (_ store: any MetadataStore, _ blobs: BlobStore, _ configuration: ServerConfiguration) async throws ->
    any CMISService

/// Opens the metadata store a configuration asks for.
public enum StoreFactory {
    public static func open(_ choice: ServerConfiguration.Store) async throws -> any MetadataStore {
        let store: any MetadataStore
        switch choice {
        case .memory:
            store = MemoryMetadataStore()
        case .sqlite(let path):
            throw ServerError("the SQLite store (\(path)) is not in this build yet: use --memory")
        case .postgres:
            throw ServerError("the PostgreSQL store is not in this build")
        }
        return store
    }
}

extension SatchelServerApp {
    /// The repository engine over the store, bootstrapped (shared repository created when missing).
    public static let defaultServiceFactory: ServiceFactory = { store, blobs, _ in
        let repository = CMISRepository(store: store, blobs: blobs)
        try await repository.bootstrap()
        return repository
    }
}
