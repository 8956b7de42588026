import Foundation
import SatchelHTTP
import Synchronization

@testable import SatchelOData

/// An in-memory OData server: answers from a route table keyed by "METHOD path?query" (query decoded), and
/// records every request.
final class ServiceDouble: Sendable {
    typealias Route = @Sendable (TransportRequest) -> TransportResponse
    static let root = "https://gw.example.edu/sap/opu/odata/sap/ZADMISSIONS_SRV"
    final class Routes: Sendable {
        let table = Mutex<[String: Route]>([:])
    }

    let routes = Routes()
    let transport: InMemoryTransport

    init() {
        let routes = self.routes
        transport = InMemoryTransport { request in
            let key = ServiceDouble.key(request)
            if let route = routes.table.withLock({ $0[key] }) { return route(request) }
            return TransportResponse(
                status: 404, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":{"code":"NF","message":"no route for \#(key)"}}"#.utf8))
        }
    }

    /// "GET StudentSet?$top=2&sap-client=100": path relative to the service root, query percent-decoded.
    static func key(_ request: TransportRequest) -> String {
        var text = request.url.absoluteString
        if text.hasPrefix(root + "/") { text.removeFirst(root.count + 1) }
        return "\(request.method) " + (text.removingPercentEncoding ?? text)
    }

    func on(
        _ key: String, status: Int = 200, headers: HTTPClient.Headers = ["Content-Type": "application/json"],
        body: String = ""
    ) {
        on(key) { _ in TransportResponse(status: status, headers: headers, body: Data(body.utf8)) }
    }

    func on(_ key: String, _ route: @escaping Route) { routes.table.withLock { $0[key] = route } }

    var requests: [TransportRequest] { transport.requests }
    var keys: [String] { requests.map(ServiceDouble.key) }

    func service(
        _ version: ODataVersion?, sapClient: String? = nil, pageSize: Int? = nil, auth: [any HTTPAuthProvider] = []
    ) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: URL(string: ServiceDouble.root)!, version: version, sapClient: sapClient,
                pageSize: pageSize,
                auth: auth),
            transport: transport)
    }
}

extension TransportRequest {
    var bodyText: String { body?.inMemoryData.map { String(decoding: $0, as: UTF8.self) } ?? "" }
}
