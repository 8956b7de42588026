import Foundation
public import Hummingbird
import Logging
import SatchelCMISCore
import SatchelRepository
import SatchelText

/// The CMIS 1.1 Browser binding, mounted at `/mcm/b/json` and `/cmis/browser`.
///
/// URLs: `{base}` (repositories), `{base}/{repositoryId}?cmisselector=…` (repository services),
/// `{base}/{repositoryId}/root[/path…]` with `objectId=` or a path (object services). GETs pick a service with
/// `cmisselector`; POSTs with the `cmisaction` form field (urlencoded or multipart).
public struct BrowserBindingRoutes: ServerBindingRoutes {
    /// The paths the binding is mounted at (`/mcm/b/json`, `/cmis/browser`).
    public var mountPoints: [String]

    /// The binding at `mountPoints`.
    public init(mountPoints: [String] = MountPoints.browser) {
        self.mountPoints = mountPoints
    }

    /// Adds GET and POST routes at each mount point and every path under it.
    public func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment) {
        for base in mountPoints {
            let handler = BrowserHandler(environment: environment, mountPoint: base)
            router.get(RouterPath(base)) { request, context in await handler.handle(request, context: context) }
            router.get(RouterPath("\(base)/**")) { request, context in await handler.handle(request, context: context) }
            router.post(RouterPath(base)) { request, context in await handler.handle(request, context: context) }
            router.post(RouterPath("\(base)/**")) { request, context in await handler.handle(request, context: context)
            }
        }
    }
}
