public import Hummingbird

/// A CMIS binding's routes: the application asks each binding to add itself to the router.
///
/// ```swift
/// struct AtomPubBindingRoutes: ServerBindingRoutes {
///     func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment) {
///         for base in MountPoints.atom { router.get("\(base)/**") { request, context in … } }
///     }
/// }
/// ```
/// Authentication has already happened when a binding route runs: `context.caller` is set on every path under
/// ``MountPoints/protectedPrefixes``.
public protocol ServerBindingRoutes: Sendable {
    /// Adds the binding's routes to `router`; `environment` holds the services, the blob store, the limits and the XSRF
    /// policy the routes use.
    func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment)
}

extension SatchelServerApp {
    /// The bindings every server mounts.
    public static var defaultBindings: [any ServerBindingRoutes] {
        [BrowserBindingRoutes(), AtomPubBindingRoutes(), NuxeoRoutes()]
    }
}
