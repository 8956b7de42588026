public import SatchelCMISCore

/// The CMIS services a server offers, one per repository id: what each binding asks once per request, with the
/// repository id its URL names, before it calls the service.
///
/// A server alone has one service for every repository (``SingleServiceResolver``, the local engine); a gateway
/// has one per mounted back-end beside the local engine (`GatewayRepositories` in SatchelGateway).
///
/// ```swift
/// let service = resolver.service(for: repositoryId)
/// let object = try await service.object(repositoryId: repositoryId, id: id, context: context, caller: caller)
/// ```
public protocol CMISServiceResolver: Sendable {
    /// The service that serves `repositoryId` (also for an id no repository has: that service then answers
    /// `objectNotFound` in its own words).
    func service(for repositoryId: String) -> any CMISService
    /// Every repository the caller can reach, in the order clients are given them (getRepositories).
    func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo]
}

/// One service for every repository id: a server without mounts.
public struct SingleServiceResolver: CMISServiceResolver {
    /// The service every repository id names.
    public let service: any CMISService

    /// Resolves every repository id to `service`.
    public init(_ service: any CMISService) { self.service = service }

    /// `service`, whatever the id.
    public func service(for repositoryId: String) -> any CMISService { service }

    /// The service's repositories.
    public func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        try await service.repositoryInfos(caller: caller)
    }
}
