import Foundation
import HTTPTypes
public import Hummingbird
import SatchelCMISCore
import SatchelCMISQL
import SatchelJSON
import SatchelRepository
import NIOFoundationEssentialsCompat

/// The Nuxeo REST API over the repository `satchel serve` serves through CMIS (docs/nuxeo.md): the same users,
/// objects and permissions. Mounted at `/nuxeo/api/v1/`: documents by path and id (with `repo/{name}/`; `default`
/// is the shared repository), `@children` with Nuxeo's paging, `automation/login`, and errors as Nuxeo's
/// `exception` entity.
public struct NuxeoRoutes: ServerBindingRoutes {
    /// Where the REST API is mounted.
    public static let apiRoot = "/nuxeo/api/v1"
    /// The API's older home, which Nuxeo's clients still use for some calls (`site/api/v1/me`).
    public static let siteAPIRoot = "/nuxeo/site/api/v1"
    /// Automation's older home, which Nuxeo's clients still use.
    public static let siteAutomation = "/nuxeo/site/automation"
    /// The Nuxeo Platform version whose REST API this follows (LTS 2023), as `json/cmis` reports it.
    public static let apiLevel = "2023.0"
    /// The CMIS repository Nuxeo's `default` names.
    public var defaultRepository: String

    /// The API with Nuxeo's `default` repository standing for `defaultRepository` (the shared repository by default).
    public init(defaultRepository: String = "shared") {
        self.defaultRepository = defaultRepository
    }

    /// Adds the REST API under `apiRoot` and `siteAPIRoot`, `automation/login`, Automation at both homes, and
    /// `/nuxeo/json/cmis`.
    public func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment) {
        let handler = NuxeoHandler(environment: environment, defaultRepository: defaultRepository)
        let all = RouterPath("\(Self.apiRoot)/**")
        router.get(all) { request, context in await handler.handle(request, context: context) }
        router.post(all) { request, context in await handler.handle(request, context: context) }
        router.put(all) { request, context in await handler.handle(request, context: context) }
        router.delete(all) { request, context in await handler.handle(request, context: context) }
        router.get(RouterPath("\(Self.siteAPIRoot)/**")) { request, context in
            await handler.handle(request, context: context)
        }
        router.get(RouterPath("/nuxeo/json/cmis")) { request, context in
            await handler.serverInfo(request, context: context)
        }
        for path in ["\(Self.apiRoot)/automation/login", "/nuxeo/site/automation/login"] {
            router.post(RouterPath(path)) { _, context in handler.login(context: context) }
        }
        // The login route makes `automation` a path of its own: the registry and the operations are routed under it
        // explicitly.
        router.get(RouterPath("\(Self.apiRoot)/automation")) { request, context in
            await handler.handle(request, context: context)
        }
        router.post(RouterPath("\(Self.apiRoot)/automation/**")) { request, context in
            await handler.handle(request, context: context)
        }
        // Automation's older home, which Nuxeo's clients still use.
        router.get(RouterPath(Self.siteAutomation)) { request, context in
            await handler.siteAutomation(request, context: context)
        }
        router.post(RouterPath("\(Self.siteAutomation)/**")) { request, context in
            await handler.siteAutomation(request, context: context)
        }
    }
}
