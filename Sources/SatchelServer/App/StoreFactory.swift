import Foundation
public import SatchelRepository

#if PostgreSQL
    import SatchelRepositoryPostgres
#endif

/// Builds the CMIS services over a metadata store and a blob store.
public typealias ServiceFactory =
    @Sendable (_ store: any MetadataStore, _ blobs: BlobStore, _ configuration: ServerConfiguration) async throws ->
    any CMISService

/// Opens the metadata store a configuration asks for: objects, and the server's own state beside them.
public enum StoreFactory {
    /// Opens the store `choice` names: a new in-memory store, the SQLite file at its path, or a connection to
    /// PostgreSQL. Throws `ServerError` when the SQLite file cannot be opened, and PostgreSQL's own error when the
    /// database cannot be reached. The caller migrates the store (`migrate()`) before using it.
    public static func open(_ choice: ServerConfiguration.Store) async throws -> any MetadataStore & ServerStateStore {
        let store: any MetadataStore & ServerStateStore
        switch choice {
        case .memory:
            store = MemoryMetadataStore()
        case .sqlite(let path):
            do {
                store = try SQLiteMetadataStore(path: path)
            } catch {
                throw ServerError("cannot open the SQLite store \(path): \(error)")
            }
        case .postgres(let url):
            #if PostgreSQL
                store = try await PostgresMetadataStore.connect(url: url)
            #else
                _ = url
                throw ServerError(
                    "this build of Satchel has no PostgreSQL support: the package's PostgreSQL trait is off "
                        + "(it is on by default)")
            #endif
        }
        return store
    }

    /// Releases what ``open(_:)`` holds (PostgreSQL connections); call it once the server has stopped.
    public static func close(_ store: any MetadataStore) async {
        #if PostgreSQL
            if let postgres = store as? PostgresMetadataStore { await postgres.shutdown() }
        #endif
    }
}

extension SatchelServerApp {
    /// The repository engine over the store, bootstrapped (shared repository created when missing).
    public static let defaultServiceFactory: ServiceFactory = { store, blobs, configuration in
        let repository = CMISRepository(
            store: store, blobs: blobs,
            configuration: RepositoryConfiguration(
                blobRemovalGrace: configuration.blobRemovalGrace, isSoleWriter: configuration.storeHasOneWriter))
        try await repository.bootstrap()
        return repository
    }
}
