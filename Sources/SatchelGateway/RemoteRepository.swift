import Foundation
public import Logging
import SatchelCMIS
public import SatchelCMISCore
public import SatchelHTTP
public import SatchelRepository
import Synchronization

/// A back-end CMIS repository served as if it were local: `CMISService` over the Satchel CMIS client, for one
/// mount of a ``GatewayConfiguration``.
///
/// Each call goes to the back-end as the mount's service account, or as the calling user (pass-through). Object
/// ids, paging, change tokens and the back-end's messages pass through unchanged; content goes both ways in
/// constant memory (uploads from the file the binding already wrote, downloads streamed as they arrive).
/// Failures keep the back-end's CMIS exception and message; a back-end that cannot be reached is a
/// `.connection` error naming the mount, which the server answers with 503 while everything else keeps working.
public final class RemoteRepository: CMISService {
    /// The mount this repository serves: its id, back-end and users.
    public let mount: GatewayConfiguration.Mount
    let blobs: BlobStore
    let bindings: BackendBindings
    /// Users' MyDocuments folder ids on the back-end, once found or created.
    private let personalFolders = Mutex<[String: String]>([:])
    /// First uses of MyDocuments under way, per user: concurrent first requests wait for the one that prepares the
    /// folder instead of racing it.
    private let preparing = Mutex<[String: Task<String, any Error>]>([:])
    /// Where the back-end's address and the transport's own words go: never to the user, who sees the mount's id.
    let logger: Logger
    /// How long the repository list keeps this mount's answer, and leaves it out after the back-end could not be
    /// reached, before asking the back-end again.
    public let listMemory: Duration
    /// What the repository list remembers of this mount.
    private let listing: Mutex<ListMemory>
    /// Renditions of unknown length being read into memory now (at most ``maximumBufferedRenditions``).
    let bufferedRenditions = Mutex(0)
    /// How many renditions without a length a mount reads into memory at once: 4 × 16 MiB at most.
    static let maximumBufferedRenditions = 4

    /// `transport`: the HTTP transport to the back-end (the platform's default when nil). `listMemory`: how long the
    /// repository list keeps what the mount answered, or that its back-end could not be reached (30 seconds by
    /// default).
    public init(
        mount: GatewayConfiguration.Mount, blobs: BlobStore, transport: (any HTTPTransport)? = nil,
        listMemory: Duration = .seconds(30), logger: Logger = Logger(label: "satchel.gateway")
    ) {
        self.mount = mount
        self.blobs = blobs
        self.logger = logger
        self.listMemory = listMemory
        listing = Mutex(ListMemory(memory: listMemory))
        bindings = BackendBindings(mount: mount, transport: transport)
    }

    /// Runs `body` with the caller's binding and the back-end's repository id; failures become errors that name
    /// the mount and keep the back-end's own exception and message.
    func call<T: Sendable>(
        _ caller: CallerContext, _ operation: String,
        _ body: (any CMISBinding, String) async throws -> T
    ) async throws -> T {
        let binding = try bindings.binding(for: caller)
        do {
            return try await body(binding, mount.repositoryId)
        } catch let error as CMISError {
            throw translate(error, operation: operation, caller: caller)
        }
    }

    /// The error a user sees for a back-end failure. What the transport says of the back-end (its address, the
    /// system's error) is logged, not shown: any signed-in user may read the answer.
    func translate(_ error: CMISError, operation: String, caller: CallerContext) -> CMISError {
        switch error.code {
        case .connection:
            // A back-end that refuses or drops connections is left out of lists for a while. An answer too large,
            // a slow query or a cancelled request says nothing about the back-end: any user can cause those.
            if (error.underlying as? HTTPTransferError)?.code == .connection {
                listing.withLock { $0.markDown(at: .now) }
            }
            logger.warning(
                "back-end \(mount.id) unreachable",
                metadata: [
                    "operation": "\(operation)", "url": "\(mount.url.absoluteString)", "error": "\(error.message)",
                    "user": "\(caller.user)",
                ])
            return CMISError(.connection, "back-end \(mount.id) unreachable (\(operation))", underlying: error)
        case .unauthorized:
            let who: String
            switch mount.users {
            case .serviceAccount(let user, _): who = "the service account \(user)"
            case .passThrough: who = "\(caller.user)'s credentials"
            }
            return CMISError(
                .permissionDenied, "back-end \(mount.id) refused \(who) (\(operation))", status: 403,
                underlying: error)
        case .invalidResponse:
            logger.warning(
                "back-end \(mount.id) answered with something that is not CMIS",
                metadata: [
                    "operation": "\(operation)", "url": "\(mount.url.absoluteString)", "error": "\(error.message)",
                ])
            return CMISError(
                .invalidResponse, "back-end \(mount.id) answered \(operation) with something that is not CMIS",
                underlying: error)
        default:
            // The back-end's exception and message, as the back-end said them; a status that is not a failure
            // (a redirect, a 304) cannot be passed on as one.
            let status = error.status.map { (400...599).contains($0) ? $0 : 502 }
            return CMISError(
                error.code, error.message, serverException: error.serverException, status: status, underlying: error)
        }
    }

    // MARK: Repository services

    /// The mount's repository info alone.
    public func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        [try await repositoryInfo(repositoryId: mount.id, caller: caller)]
    }

    /// The back-end's repository info under the mount's id (and name, when the mount sets one). The back-end's own
    /// Mobile Documents `myDocuments` and `token` extensions are replaced by this server's: the caller's MyDocuments
    /// folder on the back-end (found or created now, when the mount has `myDocuments`) and the caller's session token,
    /// when there is one.
    public func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo {
        var info = try await call(caller, "get repository info") { binding, backend in
            try await binding.repositoryInfo(repositoryId: backend)
        }
        info.id = mount.id
        if let name = mount.name { info.name = name }
        // The back-end's Mobile Documents extensions would name its folders and its tokens: this server's replace them.
        info.extensions.removeAll {
            $0.name == MobileDocuments.myDocumentsExtension || $0.name == MobileDocuments.tokenExtension
        }
        if let folder = try await personalFolder(caller) {
            info.extensions.append(
                CMISExtension(
                    namespace: MobileDocuments.namespace, name: MobileDocuments.myDocumentsExtension, value: folder))
        }
        if let token = caller.sessionToken {
            info.extensions.append(
                CMISExtension(namespace: MobileDocuments.namespace, name: MobileDocuments.tokenExtension, value: token))
        }
        return info
    }

    /// The repository info the repository list shows: what the mount answered this user's session within
    /// ``listMemory``, else the back-end's answer now. Nil, without asking the back-end, while the back-end is
    /// remembered as unreachable (it could not be reached within ``listMemory``): one back-end that is down costs
    /// one list its timeout, not every list. Requests addressed to the mount always ask the back-end.
    public func listedInfo(caller: CallerContext) async throws -> RepositoryInfo? {
        let key = ListMemory.Key(user: caller.user, session: caller.sessionToken)
        switch listing.withLock({ $0.answer(for: key, now: .now) }) {
        case .info(let info): return info
        case .down: return nil
        case .unknown: break
        }
        let started = ContinuousClock.now
        do {
            let info = try await repositoryInfo(repositoryId: mount.id, caller: caller)
            listing.withLock { $0.remember(info, for: key, askedAt: started, now: .now) }
            return info
        } catch let error as CMISError where error.code == .connection {
            // The list's own small request failed: the back-end is unreachable or too slow to wait for.
            listing.withLock { $0.markDown(at: .now) }
            throw error
        }
    }

    /// Always nil: the back-end may change by other means, so nothing of it is cached.
    public func readGeneration(repositoryId: String) -> UInt64? { nil }

    /// A mount is shared: its back-end decides who reaches what, and changes need the XSRF token only under the
    /// server's general rule (cookie sessions, or the strict policy).
    public func isPersonal(repositoryId: String) -> Bool { false }

    // MARK: MyDocuments

    /// The caller's MyDocuments folder on the back-end (`myDocuments/user`), created on first use (by the
    /// provisioner when the mount has one) with an ACL that gives the user all rights and nobody else any of its
    /// own; nil when the mount has no MyDocuments.
    func personalFolder(_ caller: CallerContext) async throws -> String? {
        guard mount.myDocuments != nil else { return nil }
        if let known = personalFolders.withLock({ $0[caller.user] }) { return known }
        let task = preparing.withLock { pending in
            if let running = pending[caller.user] { return running }
            let task = Task { try await self.preparePersonalFolder(caller) }
            pending[caller.user] = task
            return task
        }
        do {
            let id = try await task.value
            personalFolders.withLock { $0[caller.user] = id }
            preparing.withLock { $0[caller.user] = nil }
            return id
        } catch {
            preparing.withLock { pending in
                if pending[caller.user] == task { pending[caller.user] = nil }
            }
            throw error
        }
    }

    /// Finds or makes the caller's MyDocuments folder. Another server, or another mount of the same back-end, may
    /// make it at the same moment: a name conflict on creating it means it is there now, and it is read again.
    private func preparePersonalFolder(_ caller: CallerContext) async throws -> String {
        guard let root = mount.myDocuments else { throw CMISError(.runtime, "the mount has no MyDocuments") }
        let path = (root.hasSuffix("/") ? root : root + "/") + caller.user
        return try await provisioning(caller) { binding, backend -> String in
            let context = OperationContext(filter: ["cmis:objectId"])
            var folderId: String?
            var created = false
            do {
                folderId = try await binding.object(repositoryId: backend, path: path, context: context).id
            } catch let error as CMISError where error.code == .objectNotFound {}
            if folderId == nil {
                let parent = try await binding.object(repositoryId: backend, path: root, context: context)
                guard let parentId = parent.id else {
                    throw CMISError(.invalidResponse, "the folder \(root) came back without an id")
                }
                do {
                    let folder = try await binding.createFolder(
                        repositoryId: backend, parentId: parentId,
                        properties: Properties([
                            CMISProperty(id: "cmis:name", type: .string, values: [.string(caller.user)]),
                            CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:folder")]),
                        ]))
                    folderId = folder.id
                    created = true
                } catch let error as CMISError
                    where [.contentAlreadyExists, .nameConstraintViolation, .constraint].contains(error.code)
                    || error.status == 409
                {
                    // Made by someone else meanwhile: use theirs.
                    folderId = try await binding.object(repositoryId: backend, path: path, context: context).id
                }
            }
            guard let id = folderId else { throw CMISError(.invalidResponse, "the folder \(path) has no id") }
            // The user alone, every time the folder is first used here (found or made): whatever others were given
            // directly goes, the user gets everything. A folder that cannot be made the user's is not used.
            do {
                let acl = try await binding.acl(repositoryId: backend, objectId: id, onlyBasicPermissions: true)
                let others = acl.aces.filter { $0.isDirect && $0.principalId != caller.user }
                let own = acl.aces.contains {
                    $0.isDirect && $0.principalId == caller.user && $0.permissions.contains("cmis:all")
                }
                if !others.isEmpty || !own {
                    _ = try await binding.applyACL(
                        repositoryId: backend, objectId: id,
                        add: own ? [] : [ACE(principalId: caller.user, permissions: ["cmis:all"])], remove: others,
                        propagation: .repositoryDetermined)
                }
            } catch let error as CMISError where error.code == .connection || error.code == .invalidResponse {
                throw error
            } catch {
                if created { try? await binding.deleteObject(repositoryId: backend, objectId: id, allVersions: true) }
                throw CMISError(
                    .permissionDenied,
                    "the MyDocuments folder \(path) on back-end \(mount.id) cannot be made \(caller.user)'s alone: "
                        + "\(error)")
            }
            return id
        }
    }

    /// Runs `body` as the mount's provisioner when it has one, otherwise as the caller.
    func provisioning<T: Sendable>(
        _ caller: CallerContext, _ body: (any CMISBinding, String) async throws -> T
    ) async throws -> T {
        guard let binding = bindings.provisioner else { return try await call(caller, "prepare MyDocuments", body) }
        do {
            return try await body(binding, mount.repositoryId)
        } catch let error as CMISError {
            var translated = translate(error, operation: "prepare MyDocuments", caller: caller)
            if error.code == .unauthorized, let account = mount.provisioner {
                translated.message =
                    "back-end \(mount.id) refused the provisioner \(account.user) (prepare MyDocuments)"
            }
            throw translated
        }
    }
}

/// The CMIS client bindings to one back-end: one for the service account, or one per user passed through (each
/// with its own cookies, so users' back-end sessions never mix).
final class BackendBindings: Sendable {
    let mount: GatewayConfiguration.Mount
    let transport: any HTTPTransport
    private let shared: (any CMISBinding)?
    /// The provisioner's binding, for MyDocuments folders.
    let provisioner: (any CMISBinding)?
    private let perUser = Mutex<[String: (password: String, binding: any CMISBinding)]>([:])

    init(mount: GatewayConfiguration.Mount, transport: (any HTTPTransport)?) {
        self.mount = mount
        // The platform's default: on Linux, `http` over the socket transport, which answers a loopback getObject
        // about 150 µs sooner than NIOTransport on the shared event loops (measured, docs/gateway.md).
        let transport = transport ?? HTTPClient.defaultTransport()
        self.transport = transport
        if case .serviceAccount(let user, let password) = mount.users {
            shared = Self.binding(mount, user: user, password: password, transport: transport)
        } else {
            shared = nil
        }
        provisioner = mount.provisioner.map {
            Self.binding(mount, user: $0.user, password: $0.password, transport: transport)
        }
    }

    static func binding(
        _ mount: GatewayConfiguration.Mount, user: String, password: String, transport: any HTTPTransport
    ) -> any CMISBinding {
        // No retries here: the user's own client decides whether to try again, and a back-end that is down is
        // reported at once.
        // Answers read into memory (everything but content) are bounded per request: 16 MiB holds a page of a
        // thousand objects many times over.
        // No redirects either: a mount is the URL its file names, and a back-end that sends the gateway elsewhere
        // (another host, a port on the gateway's own machine) would have it fetch and pass on what is there.
        let http = HTTPClient.Configuration(
            userAgent: "Satchel gateway", timeout: mount.timeout, retry: .never, maximumRedirects: 0,
            maximumInMemoryResponseBytes: 16 * 1024 * 1024, cookieJar: CookieJar())
        let parameters = SessionParameters(
            binding: mount.binding == .atomPub ? .atomPub : .browser, url: mount.url,
            repositoryId: mount.repositoryId, auth: [BasicAuth(user: user, password: password)], http: http,
            transport: transport)
        return parameters.makeBinding()
    }

    /// Drops the cached type definitions of every binding of the mount (the service account's, each user's, the
    /// provisioner's): a type one of them changed is read again by all.
    func clearTypeCaches() {
        shared?.clearTypeCache()
        provisioner?.clearTypeCache()
        for binding in perUser.withLock({ $0.values.map(\.binding) }) { binding.clearTypeCache() }
    }

    /// The binding the caller's requests go through. Passed through, a caller signed in with a password gets a
    /// binding with it (a new one when the password changed); a caller signed in by cookie or token reuses the one
    /// their last password made.
    func binding(for caller: CallerContext) throws -> any CMISBinding {
        if let shared { return shared }
        if let password = caller.password?.value {
            return perUser.withLock { bindings in
                if let known = bindings[caller.user], known.password == password { return known.binding }
                let binding = Self.binding(mount, user: caller.user, password: password, transport: transport)
                bindings[caller.user] = (password, binding)
                return binding
            }
        }
        if let known = perUser.withLock({ $0[caller.user]?.binding }) { return known }
        throw CMISError(
            .permissionDenied,
            "back-end \(mount.id) takes each user's own password: sign in with a user name and password (Basic)"
                + " once before using a session or token")
    }
}

/// What the repository list remembers of one mount for ``memory``: its last answer per user and session, and when
/// its back-end was last found unreachable.
struct ListMemory {
    struct Key: Hashable {
        var user: String
        var session: String?
    }

    enum Answer {
        case info(RepositoryInfo)
        case down
        case unknown
    }

    /// How long an answer is kept, and a mount found unreachable left out.
    let memory: Duration
    private var infos: [Key: (info: RepositoryInfo, at: ContinuousClock.Instant)] = [:]
    /// When the back-end was last found unreachable: lists leave the mount out for ``memory`` after it, and an
    /// answer to a request asked before it is not remembered.
    private var markedDownAt: ContinuousClock.Instant?

    init(memory: Duration) { self.memory = memory }

    func answer(for key: Key, now: ContinuousClock.Instant) -> Answer {
        if let markedDownAt, now < markedDownAt + memory { return .down }
        if let known = infos[key], now < known.at + memory { return .info(known.info) }
        return .unknown
    }

    /// Keeps `info`, answered at `now` to a request asked at `askedAt`.
    mutating func remember(
        _ info: RepositoryInfo, for key: Key, askedAt: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) {
        if let markedDownAt, askedAt <= markedDownAt { return }
        // Expired answers go as new ones come: the table holds about one per user and session seen lately.
        if infos.count >= 4_096 {
            infos = infos.filter { now < $0.value.at + memory }
            if infos.count >= 4_096 { infos.removeAll() }
        }
        infos[key] = (info, now)
    }

    mutating func markDown(at now: ContinuousClock.Instant) {
        markedDownAt = now
        infos.removeAll()
    }
}
