public import Hummingbird

/// The AtomPub binding as the application mounts it: ``AtomPubRoutes`` at every ``MountPoints/atom`` path.
public struct AtomPubBindingRoutes: ServerBindingRoutes {
    /// The binding at its usual mount points.
    public init() {}

    /// Adds the AtomPub routes at every mount point of `MountPoints.atom`.
    public func register(on router: Router<ServerRequestContext>, environment: BindingEnvironment) {
        let routes = AtomPubRoutes(environment: environment)
        for mountPath in MountPoints.atom { routes.register(on: router, mountPath: mountPath) }
    }
}
