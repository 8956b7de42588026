import Foundation
public import Logging
public import SatchelCMISCore
public import SatchelRepository

/// The server's repositories with a gateway: the local engine's, and each mounted back-end's under its id. Each
/// binding request resolves the one service its repository id names (``service(for:)``) and calls it; the list of
/// repositories is every mount the caller can reach, in the file's order, then the local ones (clients that take
/// the first repository take the first mount). A back-end that is down is left out of the list, logged, and
/// answers each request made to it with a clear error.
public final class GatewayRepositories: CMISServiceResolver {
    /// The server's own repositories: every repository id that names no mount goes here.
    public let local: any CMISService
    /// The mounted back-ends, by the repository id users see.
    public let mounts: [String: RemoteRepository]
    let order: [String]
    let logger: Logger

    /// Serves `mounts` beside `local`, listed in the order given. Ids should be unique; given twice, the first mount
    /// with an id wins.
    public init(
        local: any CMISService, mounts: [RemoteRepository], logger: Logger = Logger(label: "satchel.gateway")
    ) {
        self.local = local
        // Ids are unique in a checked file; given twice here, the first mount wins.
        self.mounts = Dictionary(mounts.map { ($0.mount.id, $0) }, uniquingKeysWith: { first, _ in first })
        order = mounts.map(\.mount.id)
        self.logger = logger
    }

    /// The local engine with the mounts of `configuration`, their uploads read from `blobs`.
    public convenience init(
        local: any CMISService, configuration: GatewayConfiguration, blobs: BlobStore,
        logger: Logger = Logger(label: "satchel.gateway")
    ) {
        self.init(
            local: local,
            mounts: configuration.mounts.map { RemoteRepository(mount: $0, blobs: blobs, logger: logger) },
            logger: logger
        )
    }

    /// The mount `repositoryId` names, or the local engine for every other id.
    public func service(for repositoryId: String) -> any CMISService { mounts[repositoryId] ?? local }

    /// Every mount's repository info, asked of the back-ends in parallel and listed in the configuration's order, then
    /// the local engine's. A mount whose back-end fails is logged (`satchel.gateway`) and left out; a failure of the
    /// local engine is thrown.
    ///
    /// The list is asked for often (every client starts with it): each mount answers from what it remembers
    /// (`RemoteRepository/listedInfo(caller:)`), so one back-end that is down does not cost every list its whole
    /// timeout.
    public func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        let own = try await local.repositoryInfos(caller: caller)
        let remote = await withTaskGroup(of: (Int, RepositoryInfo?).self) { group in
            for (index, id) in order.enumerated() {
                guard let mount = mounts[id] else { continue }
                group.addTask {
                    do {
                        return (index, try await mount.listedInfo(caller: caller))
                    } catch {
                        self.logger.warning(
                            "repository \(id) left out of the list",
                            metadata: ["error": "\(error)", "user": "\(caller.user)"])
                        return (index, nil)
                    }
                }
            }
            var infos: [(Int, RepositoryInfo)] = []
            for await (index, info) in group { if let info { infos.append((index, info)) } }
            return infos.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return remote + own
    }
}
